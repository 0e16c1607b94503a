// The three patch formats: JSON merge patch (RFC 7386), JSON patch (RFC 6902, as evanphx/json-patch
// applies it for the API server) and, for built-in kinds only, strategic merge patch reduced to
// what ObjectMeta declares (finalizers merge as a set, ownerReferences by uid).
import { deepEqual } from './json.ts';
import { clone, isObj } from './types.ts';
import type { Obj } from './types.ts';

/** A patch that cannot be applied (422) or decoded (400, `decode: true`). */
export class PatchError extends Error {
  constructor(message: string, readonly decode = false) {
    super(message);
    this.name = 'PatchError';
  }
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Obj = isObj(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** h/patch.go maxJSONPatchOperations; more gets 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

export function jsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw new PatchError(`json: cannot unmarshal ${isObj(patch) ? 'object' : typeof patch} into Go value of type jsonpatch.Patch`, true);
  }
  let current = clone(doc);
  for (const raw of patch) {
    if (!isObj(raw)) throw new PatchError('json: cannot unmarshal into Go value of type jsonpatch.Operation', true);
    const op = raw.op;
    const path = typeof raw.path === 'string' ? raw.path : undefined;
    if (path === undefined) throw new PatchError(`${String(op)} operation missing path`);
    switch (op) {
      case 'add':
        if (!('value' in raw)) throw new PatchError('add operation missing value');
        current = add(current, path, clone(raw.value), 'add');
        break;
      case 'remove':
        current = remove(current, path, 'remove').doc;
        break;
      case 'replace': {
        if (!('value' in raw)) throw new PatchError('replace operation missing value');
        get(current, path, 'replace');
        current = set(current, path, clone(raw.value));
        break;
      }
      case 'move': {
        const from = fromOf(raw, 'move');
        const { doc, value } = remove(current, from, 'move');
        current = add(doc, path, value, 'move');
        break;
      }
      case 'copy': {
        const from = fromOf(raw, 'copy');
        current = add(current, path, clone(get(current, from, 'copy')), 'copy');
        break;
      }
      case 'test': {
        let actual: unknown;
        try {
          actual = get(current, path, 'test');
        } catch {
          throw new PatchError(`testing value ${path} failed: test failed`);
        }
        if (!deepEqual(actual, raw.value)) throw new PatchError(`testing value ${path} failed: test failed`);
        break;
      }
      default:
        throw new PatchError(`Unexpected kind: ${String(op)}`);
    }
  }
  return current;
}

function fromOf(raw: Obj, op: string): string {
  if (typeof raw.from !== 'string') throw new PatchError(`${op} operation missing from`);
  return raw.from;
}

function tokens(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer: ${path}`);
  return path.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function parentOf(doc: unknown, path: string, op: string): { parent: unknown; key: string } {
  const toks = tokens(path);
  if (toks.length === 0) return { parent: undefined, key: '' };
  let node = doc;
  for (const t of toks.slice(0, -1)) {
    node = step(node, t);
    if (node === undefined) throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  return { parent: node, key: toks[toks.length - 1] as string };
}

function step(node: unknown, t: string): unknown {
  if (Array.isArray(node)) {
    const i = index(t, node.length - 1);
    return i === undefined ? undefined : node[i];
  }
  return isObj(node) && Object.hasOwn(node, t) ? node[t] : undefined;
}

function index(t: string, max: number): number | undefined {
  if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
  const i = Number(t);
  return i <= max ? i : undefined;
}

function get(doc: unknown, path: string, op: string): unknown {
  if (path === '') return doc;
  const { parent, key } = parentOf(doc, path, op);
  const v = step(parent, key);
  if (v === undefined) throw new PatchError(`${op} operation does not apply: doc is missing key: ${path}`);
  return v;
}

function set(doc: unknown, path: string, value: unknown): unknown {
  if (path === '') return value;
  const { parent, key } = parentOf(doc, path, 'replace');
  if (Array.isArray(parent)) parent[index(key, parent.length - 1) as number] = value;
  else (parent as Obj)[key] = value;
  return doc;
}

function add(doc: unknown, path: string, value: unknown, op: string): unknown {
  if (path === '') return value;
  const { parent, key } = parentOf(doc, path, op);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : index(key, parent.length);
    if (i === undefined) throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
    parent.splice(i, 0, value);
  } else if (isObj(parent)) {
    parent[key] = value;
  } else {
    throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  return doc;
}

function remove(doc: unknown, path: string, op: string): { doc: unknown; value: unknown } {
  const value = get(doc, path, op);
  if (path === '') return { doc: null, value };
  const { parent, key } = parentOf(doc, path, op);
  if (Array.isArray(parent)) parent.splice(index(key, parent.length - 1) as number, 1);
  else delete (parent as Obj)[key];
  return { doc, value };
}

// Lists that ObjectMeta merges instead of replacing, and the key that identifies an item.
const MERGED_LISTS: Record<string, string | null> = { 'metadata.finalizers': null, 'metadata.ownerReferences': 'uid' };

export function strategicMergePatch(target: unknown, patch: unknown, path = ''): unknown {
  if (!isObj(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return clone(rest);
  }
  const out: Obj = isObj(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    const at = path ? `${path}.${k}` : k;
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (v === null || (isObj(v) && v.$patch === 'delete')) delete out[k];
    else if (at in MERGED_LISTS && Array.isArray(v)) out[k] = mergeList(out[k], v, MERGED_LISTS[at] ?? null);
    else if (isObj(v)) out[k] = strategicMergePatch(out[k], v, at);
    else out[k] = clone(v);
  }
  return out;
}

function mergeList(current: unknown, patch: unknown[], key: string | null): unknown[] {
  const out = Array.isArray(current) ? clone(current) : [];
  for (const item of patch) {
    if (key === null) {
      if (!out.some((x) => deepEqual(x, item))) out.push(clone(item));
      continue;
    }
    const id = isObj(item) ? item[key] : undefined;
    const at = out.findIndex((x) => isObj(x) && x[key] === id);
    if (isObj(item) && item.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = strategicMergePatch(out[at], item);
    else out.push(clone(item));
  }
  return out;
}
