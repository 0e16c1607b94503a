// The three patch formats: JSON merge patch (RFC 7386), JSON patch (RFC 6902, as evanphx/json-patch
// applies it for the API server) and, for built-in kinds only, strategic merge patch with the
// lists each kind's Go type merges (patch-strategies.ts).
import { deepEqual } from './json.ts';
import { clone, isObj } from './types.ts';
import type { Obj } from './types.ts';
import { REPLACE } from './patch-strategies.ts';
import type { MergeLists } from './patch-strategies.ts';

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

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

/**
 * Strategic merge patch (apimachinery strategicpatch): maps merge, `null` deletes, lists named in
 * `lists` merge by their key (scalars as a set) and every other list is replaced. Directives:
 * `$patch: replace|delete` on a map or a list item, `$retainKeys`, `$deleteFromPrimitiveList/x`
 * and `$setElementOrder/x`, which orders the merged list.
 */
export function strategicMergePatch(target: unknown, patch: unknown, lists: MergeLists = {}): unknown {
  return isObj(patch) ? mergeMap(isObj(target) ? target : {}, patch, '', lists) : clone(patch);
}

function mergeMap(original: Obj, patch: Obj, path: string, lists: MergeLists): Obj {
  if (patch[DIRECTIVE] === 'replace') return stripDirectives(patch);
  if (patch[DIRECTIVE] === 'delete') return {};
  if (patch[DIRECTIVE] !== undefined) throw new PatchError(`Unrecognized patch type: ${JSON.stringify(patch[DIRECTIVE])}`, true);
  const out = clone(original);
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  const orders: [string, unknown[]][] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === RETAIN_KEYS) continue;
    if (k.startsWith(SET_ORDER)) {
      if (Array.isArray(v)) orders.push([k.slice(SET_ORDER.length), v]);
      continue;
    }
    if (k.startsWith(DELETE_FROM)) {
      const field = k.slice(DELETE_FROM.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    const at = path ? `${path}.${k}` : k;
    if (v === null) delete out[k];
    else if (isObj(v) && lists[at] === REPLACE) out[k] = stripDirectives(v);
    else if (Array.isArray(v) && at in lists) out[k] = mergeList(Array.isArray(out[k]) ? out[k] as unknown[] : [], v, lists[at] ?? null, at, lists);
    else if (isObj(v)) out[k] = mergeMap(isObj(out[k]) ? out[k] as Obj : {}, v, at, lists);
    else out[k] = clone(v);
  }
  for (const [k, order] of orders) {
    const at = path ? `${path}.${k}` : k;
    if (!(at in lists) || !Array.isArray(out[k])) continue;
    const key = lists[at] ?? null;
    const merged = out[k] as unknown[];
    const inOrder = merged.filter((x) => indexIn(order, x, key) >= 0);
    const serverOnly = merged.filter((x) => indexIn(order, x, key) < 0);
    out[k] = interleave(sortBy(inOrder, order, key), sortBy(serverOnly, Array.isArray(original[k]) ? original[k] as unknown[] : [], key),
      Array.isArray(original[k]) ? original[k] as unknown[] : [], key);
  }
  return out;
}

function stripDirectives(patch: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(patch)) {
    if (k !== DIRECTIVE && k !== RETAIN_KEYS && !k.startsWith(SET_ORDER) && !k.startsWith(DELETE_FROM)) out[k] = clone(v);
  }
  return out;
}

function mergeList(original: unknown[], patch: unknown[], key: string | null, path: string, lists: MergeLists): unknown[] {
  let merged: unknown[];
  let items = patch;
  if (key === null) {
    merged = [...clone(original)];
    for (const x of patch) if (!merged.some((y) => deepEqual(x, y))) merged.push(clone(x));
  } else {
    if (patch.some((x) => isObj(x) && x[DIRECTIVE] === 'replace')) return patch.filter((x) => !(isObj(x) && x[DIRECTIVE] === 'replace')).map((x) => clone(x));
    const deleted = patch.filter((x) => isObj(x) && x[DIRECTIVE] === 'delete');
    items = patch.filter((x) => !deleted.includes(x));
    for (const x of items) {
      if (!isObj(x) || !(key in x)) throw new PatchError(`map: ${JSON.stringify(x)} does not contain declared merge key: ${key}`, true);
    }
    merged = original.filter((x) => !deleted.some((d) => isObj(d) && isObj(x) && deepEqual(d[key], x[key])));
    merged = merged.map((x) => clone(x));
    for (const x of items as Obj[]) {
      const at = merged.findIndex((y) => isObj(y) && deepEqual(y[key], x[key]));
      if (at >= 0) merged[at] = mergeMap(merged[at] as Obj, x, path, lists);
      else merged.push(mergeMap({}, x, path, lists));
    }
  }
  const fromPatch = merged.filter((x) => indexIn(items, x, key) >= 0);
  const serverOnly = merged.filter((x) => indexIn(items, x, key) < 0);
  return interleave(sortBy(fromPatch, items, key), sortBy(serverOnly, original, key), original, key);
}

function indexIn(list: readonly unknown[], item: unknown, key: string | null): number {
  if (key === null) return list.findIndex((x) => deepEqual(x, item));
  return isObj(item) ? list.findIndex((x) => isObj(x) && deepEqual(x[key], item[key])) : -1;
}

function sortBy(items: unknown[], order: readonly unknown[], key: string | null): unknown[] {
  return items.map((x, i) => ({ x, i, at: indexIn(order, x, key) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
    .map((e) => e.x);
}

// mergeSortedSlice: the items the patch orders, with the server-only items put back where the
// live list had them relative to those items.
function interleave(patched: unknown[], serverOnly: unknown[], live: readonly unknown[], key: string | null): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < patched.length || j < serverOnly.length) {
    if (i >= patched.length) out.push(serverOnly[j++]);
    else if (j >= serverOnly.length) out.push(patched[i++]);
    else {
      const a = indexIn(live, patched[i], key);
      const b = indexIn(live, serverOnly[j], key);
      if (a >= 0 && b >= 0 && a < b) out.push(patched[i++]);
      else out.push(serverOnly[j++]);
    }
  }
  return out;
}
