// The API server prunes `null` from fields of a custom resource that are not nullable before
// defaulting, so `providerID:` with no value, or `annotations:` left empty in a manifest, means
// "not set". None of CAPMAAS's fields is nullable; the MAAS schemas read manifests the same way.

/** A copy of `value` without the object keys whose value is null, at every depth. Array items stay. */
export function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty, not assignment: a `__proto__` key in a manifest stays a plain key.
    if (item !== null) Object.defineProperty(out, key, { value: pruneNulls(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
