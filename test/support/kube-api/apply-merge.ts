// The applied configuration merged onto the live object, as structured-merge-diff merges: objects
// field by field (`null` removes; atomic ones are replaced), `map` lists element by element on their keys, `set` lists as a
// union, every other list (and scalar) replaced by the applied value. A live element the
// configuration leaves out keeps its place; the configuration's elements follow its own order.
import { elementKey } from './field-set.ts';
import type { ListType, ListTypes } from './list-types.ts';
import { clone, isObj } from './types.ts';
import type { Obj } from './types.ts';

export function mergeApplied(live: Obj, applied: Obj, types: ListTypes, names: readonly string[] = []): Obj {
  const out = clone(live);
  for (const [k, v] of Object.entries(applied)) {
    const at = [...names, k];
    const current = out[k];
    if (v === null) delete out[k];
    else if (isObj(v) && isObj(current) && types(at)?.type !== 'atomic') out[k] = mergeApplied(current, v, types, at);
    else if (Array.isArray(v) && Array.isArray(current)) out[k] = mergeList(current, v, types(at), types, at);
    else out[k] = clone(v);
  }
  return out;
}

function mergeList(live: readonly unknown[], applied: readonly unknown[], t: ListType | undefined, types: ListTypes, at: readonly string[]): unknown[] {
  if (t?.type === 'set') {
    const seen = new Set(live.map((v) => JSON.stringify(v)));
    return [...clone(live), ...applied.filter((v) => !seen.has(JSON.stringify(v))).map(clone)];
  }
  if (t?.type !== 'map') return clone([...applied]);
  const keyOf = (item: unknown): string => elementKey(item, t);
  const liveByKey = new Map(live.map((item) => [keyOf(item), item]));
  const appliedKeys = new Map(applied.map((item, i) => [keyOf(item), i]));
  const merged = (item: unknown): unknown => {
    const old = liveByKey.get(keyOf(item));
    return isObj(old) && isObj(item) ? mergeApplied(old, item, types, at) : clone(item);
  };
  const out: unknown[] = [];
  let next = 0;
  for (const item of live) {
    const i = appliedKeys.get(keyOf(item));
    if (i === undefined) out.push(clone(item));
    // The applied elements up to this one come here, in the configuration's order.
    else for (; next <= i; next++) out.push(merged(applied[next]));
  }
  for (; next < applied.length; next++) out.push(merged(applied[next]));
  return out;
}
