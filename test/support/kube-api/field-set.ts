// Field paths as FieldsV1 writes them (structured-merge-diff's fieldpath): each step is a field
// `f:name`, an element of a map list `k:{"name":"app"}` (key fields sorted, defaults filled), a
// value of a set list `v:"x"`, or `.`, the element itself (an owner of an element owns its
// existence besides its fields). Objects recurse; atomic lists, scalars and empty objects are leaves.
import { deepEqual } from './json.ts';
import type { ListType, ListTypes } from './list-types.ts';
import { clone, isObj } from './types.ts';
import type { Obj } from './types.ts';

export type Path = readonly string[];

export const pathKey = (p: Path): string => JSON.stringify(p);

/** The `k:` step of a map list's element: its key fields, sorted by name, defaults filled in. */
export function elementKey(item: unknown, t: Extract<ListType, { type: 'map' }>): string {
  const fields: Obj = {};
  for (const k of [...t.keys].sort()) {
    const v = isObj(item) && item[k] !== undefined ? item[k] : t.defaults?.[k];
    if (v !== undefined) fields[k] = v;
  }
  return `k:${JSON.stringify(fields)}`;
}

/**
 * Which non-empty objects and lists are owned themselves besides their fields (a `.` entry), by
 * their field names and whether they sit in a list element: an Update owns the nodes it added,
 * where the old object (for a create, the empty one) had none.
 */
export type ObjectOwnership = (names: readonly string[], inElement: boolean) => boolean;

const NONE: ObjectOwnership = () => false;

// Go maps and pointer structs of the stored built-in kinds: absent from the zero value.
const POINTERS = new Set(['data', 'binaryData', 'rollingUpdate', 'limits', 'requests', 'valueFrom', 'livenessProbe', 'readinessProbe',
  'startupProbe', 'securityContext', 'nodeSelector', 'affinity', 'sessionAffinityConfig']);

/**
 * For a custom resource the old object of a create is empty, so every node is added. A built-in
 * kind's Go zero value already holds its plain structs (spec, strategy, template) and null lists,
 * so only its maps, pointer structs and what a new list element holds are.
 */
export function addedObjects(typed: boolean): ObjectOwnership {
  if (!typed) return () => true;
  return (n, inElement) => {
    const last = n[n.length - 1] ?? '';
    return inElement || (n[n.length - 2] === 'metadata' ? last === 'labels' || last === 'annotations' : POINTERS.has(last));
  };
}

/** Leaf paths of the fields under `node`, which sits at `path` (names: its field names only). */
export function leafPathsOf(node: unknown, path: Path, names: readonly string[], types: ListTypes, out: Path[], owned: ObjectOwnership = NONE, inElement = false): void {
  if (isObj(node) && Object.keys(node).length > 0 && types(names)?.type !== 'atomic') {
    if (owned(names, inElement)) out.push([...path, '.']);
    for (const [k, v] of Object.entries(node)) leafPathsOf(v, [...path, `f:${k}`], [...names, k], types, out, owned, inElement);
    return;
  }
  const t = Array.isArray(node) && node.length > 0 ? types(names) : undefined;
  if (t && owned(names, inElement)) out.push([...path, '.']);
  if (Array.isArray(node) && t?.type === 'map') {
    for (const item of node) {
      const at = [...path, elementKey(item, t)];
      out.push([...at, '.']);
      if (isObj(item)) for (const [k, v] of Object.entries(item)) leafPathsOf(v, [...at, `f:${k}`], [...names, k], types, out, owned, true);
    }
  } else if (Array.isArray(node) && t?.type === 'set') {
    for (const v of node) out.push([...path, `v:${JSON.stringify(v)}`]);
  } else out.push(path);
}

function child(node: unknown, step: string, types: ListTypes, names: readonly string[]): unknown {
  if (step === '.') return node;
  if (step.startsWith('f:')) return isObj(node) ? node[step.slice(2)] : undefined;
  if (!Array.isArray(node)) return undefined;
  return node[indexIn(node, step, types(names))];
}

function indexIn(list: readonly unknown[], step: string, t: ListType | undefined): number {
  if (step.startsWith('v:')) return list.findIndex((v) => JSON.stringify(v) === step.slice(2));
  if (t?.type !== 'map') return -1;
  return list.findIndex((item) => elementKey(item, t) === step);
}

const fieldNames = (p: Path): string[] => p.filter((s) => s.startsWith('f:')).map((s) => s.slice(2));

export function valueAt(obj: unknown, path: Path, types: ListTypes): unknown {
  let node = obj;
  for (let i = 0; i < path.length; i++) node = child(node, path[i] as string, types, fieldNames(path.slice(0, i)));
  return node;
}

/** The field has the same value in both; for an element's `.`, both have the element. */
export function sameAt(a: unknown, b: unknown, path: Path, types: ListTypes): boolean {
  const va = valueAt(a, path, types);
  const vb = valueAt(b, path, types);
  return path[path.length - 1] === '.' ? (va === undefined) === (vb === undefined) : deepEqual(va, vb);
}

/** `obj` without the field (an element's `.` removes the element; an emptied list goes). */
export function removePath(obj: Obj, path: Path, types: ListTypes): Obj {
  const out = clone(obj);
  const target = path[path.length - 1] === '.' ? path.slice(0, -1) : path;
  const last = target[target.length - 1];
  if (last === undefined) return out;
  const parentPath = target.slice(0, -1);
  const parent = valueAt(out, parentPath, types);
  if (last.startsWith('f:')) {
    if (isObj(parent)) delete parent[last.slice(2)];
    return out;
  }
  if (!Array.isArray(parent)) return out;
  const i = indexIn(parent, last, types(fieldNames(parentPath)));
  if (i >= 0) parent.splice(i, 1);
  const holder = valueAt(out, parentPath.slice(0, -1), types);
  const field = parentPath[parentPath.length - 1];
  if (parent.length === 0 && isObj(holder) && field?.startsWith('f:')) delete holder[field.slice(2)];
  return out;
}

/** The set as FieldsV1 JSON, in fieldpath's order: `.` first, then fields, keys and values, each sorted. */
export function toFieldsV1(paths: readonly Path[]): Obj {
  const root: Obj = {};
  for (const p of paths) {
    let node = root;
    for (const k of p) node = (node[k] ??= {}) as Obj;
  }
  return sorted(root);
}

function sorted(node: Obj): Obj {
  const keys = Object.keys(node).sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, sorted(node[k] as Obj)]));
}

export function fromFieldsV1(fields: unknown, prefix: Path = []): Path[] {
  if (!isObj(fields)) return [];
  const out: Path[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const p = [...prefix, k];
    const below = fromFieldsV1(v, p);
    if (below.length === 0) out.push(p);
    else out.push(...below);
  }
  return out;
}

/** `.spec.containers[name="app"].image`, as fieldpath.Path prints. */
export function printPath(p: Path): string {
  return p.filter((s) => s !== '.').map((s) => {
    if (s.startsWith('f:')) return `.${s.slice(2)}`;
    if (s.startsWith('v:')) return `[=${s.slice(2)}]`;
    const fields = JSON.parse(s.slice(2)) as Obj;
    return `[${Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
  }).join('');
}
