// The API server prunes a `null` from every field its CRD does not mark nullable, before it
// defaults and validates (reference/kube-api.md §8), so `image:` or `firmware:` with no value in a
// manifest means "not set" to BMO and its webhook. BareMetalHost reads manifests the same way.
// BMO's CRD marks only the RAID volume lists and the operation history times nullable (schema.ts):
// there the null is kept, as the API server keeps it. Array items are never pruned (a null item
// is the schema's error).

function nullable(path: readonly string[]): boolean {
  const key = path[path.length - 1];
  const parent = path[path.length - 2];
  if (parent === 'raid' && (key === 'hardwareRAIDVolumes' || key === 'softwareRAIDVolumes')) return true;
  return path.length === 4 && path[0] === 'status' && path[1] === 'operationHistory' && (key === 'start' || key === 'end');
}

function prune(value: unknown, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => prune(item, [...path, '[]']));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, key];
    if (item === null && !nullable(at)) continue;
    // defineProperty, not assignment: a `__proto__` key in a manifest stays a plain key.
    Object.defineProperty(out, key, { value: prune(item, at), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A copy of a BareMetalHost as the API server admits it: without the nulls of fields that are not nullable. */
export function pruneHostNulls(host: unknown): unknown {
  return prune(host, []);
}
