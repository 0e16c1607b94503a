// Field ownership (metadata.managedFields, FieldsV1) and server-side apply conflicts, after
// structured-merge-diff as the API server runs it: leaf fields and list elements are owned
// (field-set.ts, by the list types of list-types.ts), and an Update the objects it added; an Update takes the
// fields it changed from everyone; an Apply owns exactly what it sent, removes what it stopped
// sending (unless someone else owns it), and conflicts when it would change another manager's value.
import { fail } from './errors.ts';
import type { KubeApiError } from './errors.ts';
import { nowTime } from './go-time.ts';
import { deepEqual } from './json.ts';
import { fromFieldsV1, leafPathsOf, pathKey, printPath, removePath, sameAt, toFieldsV1 } from './field-set.ts';
import type { ObjectOwnership, Path } from './field-set.ts';
import type { ListTypes } from './list-types.ts';
import { clone, isObj, metaOf, str } from './types.ts';
import type { Obj } from './types.ts';

export interface ManagedEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Obj;
  subresource?: string;
}

// Fields the server sets or the request does not own.
const UNTRACKED_META = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

/** Leaf paths of an object, list elements by their keys (field-set.ts). */
export function leafPaths(obj: Obj, statusOwned: boolean, types: ListTypes, owned?: ObjectOwnership): Path[] {
  const out: Path[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && !statusOwned) continue;
    if (k === 'metadata' && isObj(v)) {
      for (const [mk, mv] of Object.entries(v)) if (!UNTRACKED_META.has(mk)) leafPathsOf(mv, ['f:metadata', `f:${mk}`], ['metadata', mk], types, out, owned);
      continue;
    }
    leafPathsOf(v, [`f:${k}`], [k], types, out, owned);
  }
  return out;
}

const key = pathKey;

function entries(obj: Obj | undefined): ManagedEntry[] {
  const mf = obj ? metaOf(obj).managedFields : undefined;
  return Array.isArray(mf) ? clone(mf.filter(isObj)) as unknown as ManagedEntry[] : [];
}

// decodeLiveOrNew: managedFields sent with the request replace the stored ones ([{}] clears
// them); none, or an empty list, keeps the stored ones (clients that do not know the field).
function baseEntries(old: Obj | undefined, requested: unknown): ManagedEntry[] {
  if (Array.isArray(requested) && requested.length === 1 && isObj(requested[0]) && Object.keys(requested[0]).length === 0) return [];
  if (Array.isArray(requested) && requested.length > 0 && requested.every((e) => isObj(e) && typeof e.manager === 'string' && isObj(e.fieldsV1))) {
    return clone(requested) as ManagedEntry[];
  }
  return entries(old);
}

// managedFieldsUpdater: the writer's entry gets a new time when its write changed something (a
// field it already owned included) or its fields; the entries it took fields from keep theirs.
function setOwned(list: ManagedEntry[], match: (e: ManagedEntry) => boolean, make: () => ManagedEntry, paths: readonly Path[], wrote: boolean): void {
  const i = list.findIndex(match);
  const fields = toFieldsV1(paths);
  if (i >= 0) {
    const e = list[i] as ManagedEntry;
    if (wrote || !deepEqual(e.fieldsV1, fields)) list[i] = { ...e, fieldsV1: fields, time: nowTime() };
  } else if (paths.length > 0) list.push({ ...make(), fieldsV1: fields });
}

function withoutPaths(list: ManagedEntry[], drop: ReadonlySet<string>, except: (e: ManagedEntry) => boolean): ManagedEntry[] {
  return list.map((e) => {
    if (except(e)) return e;
    const kept = fromFieldsV1(e.fieldsV1).filter((p) => !drop.has(key(p)));
    return kept.length === fromFieldsV1(e.fieldsV1).length ? e : { ...e, fieldsV1: toFieldsV1(kept) };
  }).filter((e) => fromFieldsV1(e.fieldsV1).length > 0);
}

export interface Writer {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource?: string;
}

const sameEntry = (w: Writer, operation: 'Apply' | 'Update') => (e: ManagedEntry): boolean =>
  e.manager === w.manager && e.operation === operation && (e.subresource ?? '') === (w.subresource ?? '');

/** managedFields after a create, update or non-apply patch: the writer takes what it changed. */
export function trackUpdate(old: Obj | undefined, next: Obj, w: Writer, statusOwned: boolean, types: ListTypes, owned: ObjectOwnership, requested?: unknown): ManagedEntry[] {
  const before = new Map((old ? leafPaths(old, statusOwned, types, owned) : []).map((p) => [key(p), p]));
  const after = leafPaths(next, statusOwned, types, owned);
  const changed = after.filter((p) => !before.has(key(p)) || !sameAt(old, next, p, types));
  const afterKeys = new Set(after.map(key));
  const removed = [...before.keys()].filter((k) => !afterKeys.has(k));
  const mine = sameEntry(w, 'Update');
  let list = withoutPaths(baseEntries(old, requested), new Set([...changed.map(key), ...removed]), mine);
  const own = [...fromFieldsV1(list.find(mine)?.fieldsV1).filter((p) => afterKeys.has(key(p))), ...changed];
  const unique = [...new Map(own.map((p) => [key(p), p])).values()];
  setOwned(list, mine, () => newEntry(w, 'Update'), unique, changed.length > 0 || removed.length > 0);
  list = list.filter((e) => fromFieldsV1(e.fieldsV1).length > 0);
  return list;
}

function newEntry(w: Writer, operation: 'Apply' | 'Update'): ManagedEntry {
  const e: ManagedEntry = { manager: w.manager, operation, apiVersion: w.apiVersion, time: nowTime(), fieldsType: 'FieldsV1', fieldsV1: {} };
  if (w.subresource) e.subresource = w.subresource;
  return e;
}

function printManager(e: ManagedEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  return e.operation === 'Update' ? `${s} using ${e.apiVersion} at ${e.time}` : s;
}

/** internal.NewConflictError: 409 Conflict listing each manager's conflicting fields. */
function conflictError(conflicts: readonly { entry: ManagedEntry; path: Path }[]): KubeApiError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0] as { entry: ManagedEntry; path: Path };
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.entry)}: ${printPath(c.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(printManager(c.entry), [...(byManager.get(printManager(c.entry)) ?? []), printPath(c.path)]);
    const lines = [...byManager.keys()].sort().flatMap((m) => [`conflicts with ${m}:`, ...(byManager.get(m) ?? []).map((p) => `- ${p}`)]);
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return fail(409, 'Conflict', message, { causes });
}

/**
 * Server-side apply of `applied` by `w` onto `live`: the merged object (with managedFields), or a
 * 409 when another manager owns a field the configuration sets to a different value (unless forced).
 */
export function applyOwned(live: Obj, applied: Obj, w: Writer, force: boolean, statusOwned: boolean, types: ListTypes, merge: (live: Obj, applied: Obj) => Obj): Obj {
  const list = entries(live);
  const mine = sameEntry(w, 'Apply');
  const appliedPaths = leafPaths(applied, statusOwned, types);
  const appliedKeys = new Set(appliedPaths.map(key));
  const conflicts: { entry: ManagedEntry; path: Path }[] = [];
  for (const e of list) {
    if (mine(e)) continue;
    for (const p of fromFieldsV1(e.fieldsV1)) {
      // Owning an element (`.`) is shared; only its fields' values conflict.
      if (appliedKeys.has(key(p)) && p[p.length - 1] !== '.' && !sameAt(applied, live, p, types)) conflicts.push({ entry: e, path: p });
    }
  }
  if (conflicts.length > 0 && !force) throw conflictError(conflicts);
  const taken = new Set(conflicts.map((c) => key(c.path)));
  let next = merge(live, applied);
  // Fields this manager applied before and no longer does go, unless another manager owns them.
  const othersPaths = list.filter((e) => !mine(e)).flatMap((e) => fromFieldsV1(e.fieldsV1).filter((p) => !taken.has(key(p))));
  const othersOwn = new Set(othersPaths.map(key));
  // An object or element someone still owns something below stays (structured-merge-diff removes
  // it, then adds back what is owned): only its unowned fields go.
  const holders = new Set([...appliedPaths, ...othersPaths].flatMap((p) => p.map((_, i) => key(p.slice(0, i)))));
  for (const p of fromFieldsV1(list.find(mine)?.fieldsV1)) {
    if (appliedKeys.has(key(p)) || othersOwn.has(key(p))) continue;
    if (p[p.length - 1] === '.' && holders.has(key(p.slice(0, -1)))) continue;
    next = removePath(next, p, types);
  }
  const kept = withoutPaths(list, taken, mine);
  const { managedFields: _before, ...liveMeta } = metaOf(live);
  const { managedFields: _after, ...nextMeta } = metaOf(next);
  const wrote = !deepEqual({ ...live, metadata: liveMeta }, { ...next, metadata: nextMeta });
  setOwned(kept, mine, () => newEntry(w, 'Apply'), appliedPaths, wrote);
  metaOf(next).managedFields = kept.filter((e) => fromFieldsV1(e.fieldsV1).length > 0);
  return next;
}

/** The manager a request without `fieldManager` gets: the User-Agent's program name. */
export function defaultManager(userAgent: string | undefined): string {
  const name = str(userAgent).split('/')[0] ?? '';
  return name.slice(0, 128) || 'unknown';
}
