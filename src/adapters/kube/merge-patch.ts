// JSON merge patch (RFC 7386) between two JSON-like values, as the API server applies it: objects
// merge key by key, null deletes a key, and arrays (and everything else) are replaced whole.

export type JsonObject = { [key: string]: unknown };

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The merge patch that turns `from` into `to`: only what differs, null for keys `to` drops. A
 * null inside `to` counts as absent: a merge patch cannot store a null, so sending one would make
 * every later diff see a difference that can never be written. Empty object: nothing to change.
 */
export function mergePatchDiff(from: JsonObject, to: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const [key, next] of Object.entries(to)) {
    if (next === undefined || next === null) continue;
    const prev = from[key];
    if (jsonEqual(prev, next)) continue;
    if (isPlainObject(prev) && isPlainObject(next)) {
      const inner = mergePatchDiff(prev, next);
      if (Object.keys(inner).length > 0) patch[key] = inner;
      continue;
    }
    patch[key] = next;
  }
  for (const [key, prev] of Object.entries(from)) {
    if (prev === undefined || prev === null) continue;
    const next = to[key];
    if (next === undefined || next === null) patch[key] = null;
  }
  return patch;
}

/** Applies a merge patch to a value without changing either; returns the result. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/** Structural equality of JSON values; an undefined (or null) property equals an absent one. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ra = a as JsonObject;
  const rb = b as JsonObject;
  const present = (r: JsonObject) => Object.keys(r).filter((k) => r[k] !== undefined && r[k] !== null);
  const ka = present(ra);
  const kb = present(rb);
  return ka.length === kb.length && ka.every((k) => jsonEqual(ra[k], rb[k]));
}
