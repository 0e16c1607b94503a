import { readFile, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

// Reads a kustomize base the way `kubectl kustomize` would for the features deploy/ uses
// (resources and namespace), and refuses any other kustomize feature, so what the tests check is
// what gets applied.

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEPLOY = join(REPO, 'deploy');

export interface KubeObject {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface LoadedObject {
  /** From the repository root, with `#n` the document's index in the file. */
  readonly source: string;
  readonly object: KubeObject;
  /** The namespace kustomize gives it: the outermost `namespace:`, else its own. */
  readonly namespace: string | undefined;
}

export interface LoadedBase {
  readonly objects: LoadedObject[];
  /** Every file read, kustomization files included, from the repository root. */
  readonly files: string[];
}

const KUSTOMIZATION_KEYS = new Set(['apiVersion', 'kind', 'namespace', 'resources']);

export async function loadKustomization(dir: string = DEPLOY): Promise<LoadedBase> {
  const objects: LoadedObject[] = [];
  const files: string[] = [];
  await load(dir, undefined, objects, files);
  return { objects, files };
}

async function load(dir: string, outerNamespace: string | undefined, objects: LoadedObject[], files: string[]): Promise<void> {
  const path = join(dir, 'kustomization.yaml');
  files.push(relative(REPO, path));
  const k = (await parseFile(path))[0] as Record<string, unknown> | undefined;
  if (k?.kind !== 'Kustomization') throw new Error(`${relative(REPO, path)}: not a Kustomization`);
  const unknown = Object.keys(k).filter((key) => !KUSTOMIZATION_KEYS.has(key));
  if (unknown.length > 0) throw new Error(`${relative(REPO, path)}: ${unknown.join(', ')} is not read by these tests; teach test/deploy/kustomize.ts first`);
  const namespace = outerNamespace ?? (typeof k.namespace === 'string' ? k.namespace : undefined);
  for (const entry of (k.resources as string[] | undefined) ?? []) {
    const target = join(dir, entry);
    if ((await stat(target)).isDirectory()) {
      await load(target, namespace, objects, files);
      continue;
    }
    files.push(relative(REPO, target));
    for (const [i, object] of (await parseFile(target)).entries()) {
      if (object === null) continue;
      const own = (object as KubeObject).metadata?.namespace;
      objects.push({ source: `${relative(REPO, target)}#${i}`, object: object as KubeObject, namespace: namespace ?? (typeof own === 'string' ? own : undefined) });
    }
  }
}

export async function parseFile(path: string): Promise<unknown[]> {
  const docs = parseAllDocuments(await readFile(path, 'utf8'));
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${relative(REPO, path)}: ${doc.errors[0]?.message ?? 'YAML error'}`);
    out.push(doc.toJS());
  }
  return out;
}

/** Every file under `dir` whose name ends with `suffix`, from the repository root. */
export async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await filesUnder(path, suffix));
    else if (entry.name.endsWith(suffix)) out.push(relative(REPO, path));
  }
  return out.sort();
}
