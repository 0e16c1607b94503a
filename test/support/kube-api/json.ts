// Small JSON value helpers: structural equality and Go's map-key order for unstructured output.
import { isObj } from './types.ts';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Unstructured objects are Go maps, which encoding/json writes with sorted keys. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObj(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k]);
  return out;
}

/** `value` with the keys in `order` first (in that order), the rest after in their own order. */
export function orderKeys(value: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (k in value) out[k] = value[k];
  for (const [k, v] of Object.entries(value)) if (!(k in out)) out[k] = v;
  return out;
}
