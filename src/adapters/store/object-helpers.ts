// Small helpers for the JSON-like objects both host stores keep.

export function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!a?.length) return b?.length ? [...b] : undefined;
  if (!b?.length) return [...a];
  return [...new Set([...a, ...b])];
}

// Drops keys whose value is undefined, so stored objects compare and serialize cleanly.
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

// One structural equality for the whole project (src/api): stores, status writers and machines.
export { deepEqual } from '../../api/index.ts';
