// Reading deploy/'s manifests and writing clusterctl's files: multi-document YAML in, one stream
// out, with every `${VARIABLE}` string double-quoted unless it must stay a plain scalar (an
// integer a template substitutes, e.g. `replicas: ${CONTROL_PLANE_MACHINE_COUNT}`).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Scalar, parseAllDocuments, stringify } from 'yaml';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every document of a file under the repository root, comments dropped. */
export async function readManifests(root: string, path: string): Promise<Obj[]> {
  const text = await readFile(join(root, path), 'utf8');
  const docs = parseAllDocuments(text, { version: '1.1' });
  const out: Obj[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message ?? 'unreadable YAML'}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isObj(value)) throw new Error(`${path}: a document is not an object`);
    out.push(value);
  }
  return out;
}

/** One manifest that a file must hold alone. */
export async function readManifest(root: string, path: string): Promise<Obj> {
  const [first, ...rest] = await readManifests(root, path);
  if (!first || rest.length > 0) throw new Error(`${path}: expected exactly one object`);
  return first;
}

/** A value written as a plain scalar: after substitution the API server reads a number or a bool. */
export function plain(text: string): Scalar {
  const s = new Scalar(text);
  s.type = Scalar.PLAIN;
  return s;
}

// Strings holding a variable are quoted, so that a value like "1.30" or "on" stays a string.
function quoteVariables(v: unknown): unknown {
  if (v instanceof Scalar) return v;
  if (typeof v === 'string' && v.includes('${')) {
    const s = new Scalar(v);
    s.type = Scalar.QUOTE_DOUBLE;
    return s;
  }
  if (Array.isArray(v)) return v.map(quoteVariables);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, quoteVariables(x)]));
  return v;
}

/** A YAML stream: a header comment, then the objects in order. */
export function renderStream(header: string, objects: readonly unknown[]): string {
  // YAML 1.1, as gen-crds writes: the API server's parser reads 1.1, where "on" or "y" is a bool.
  const body = objects.map((o) => stringify(quoteVariables(o), { lineWidth: 0, indentSeq: false, version: '1.1' })).join('---\n');
  return `${header.split('\n').map((l) => (l ? `# ${l}` : '#')).join('\n')}\n${body}`;
}

/** Replaces `from` in every string of a value (keys included), returning a copy. */
export function replaceStrings(v: unknown, from: string, to: string): unknown {
  if (typeof v === 'string') return v.split(from).join(to);
  if (Array.isArray(v)) return v.map((x) => replaceStrings(x, from, to));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.split(from).join(to), replaceStrings(x, from, to)]));
  return v;
}

export function metadataOf(o: Obj): Obj {
  if (!isObj(o.metadata)) o.metadata = {};
  return o.metadata as Obj;
}

export function labelsOf(o: Obj): Record<string, string> {
  const meta = metadataOf(o);
  if (!isObj(meta.labels)) meta.labels = {};
  return meta.labels as Record<string, string>;
}
