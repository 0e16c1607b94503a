import { jsonEqual } from './merge-patch.ts';
import { OWNER_ANNOTATION } from './owner-fence.ts';
import type { RawObject } from './raw-object.ts';

/**
 * What an update changed: 'spec' for anything a controller reacts to (spec, labels, annotations,
 * finalizers, deletion), 'status' when only status moved (our own writes, as a rule), 'none' for
 * a resync or a write that changed nothing but the resourceVersion.
 */
export type ChangeKind = 'spec' | 'status' | 'none';

// Volatile or ours: the RV changes on every write, managedFields on every writer, and the owner
// annotation is the fencing record a status write adds, not something a host reacts to.
function comparableMeta(meta: RawObject['metadata']): Record<string, unknown> {
  const { resourceVersion: _rv, managedFields: _mf, ...rest } = meta as Record<string, unknown> & RawObject['metadata'];
  const annotations = meta.annotations;
  if (annotations && OWNER_ANNOTATION in annotations) {
    const { [OWNER_ANNOTATION]: _owner, ...others } = annotations;
    rest['annotations'] = Object.keys(others).length > 0 ? others : undefined;
  }
  return rest;
}

export function classifyChange(prev: RawObject | undefined, next: RawObject): ChangeKind {
  if (prev === undefined) return 'spec';
  if (!jsonEqual(comparableMeta(prev.metadata), comparableMeta(next.metadata))) return 'spec';
  const a = prev as Record<string, unknown>;
  const b = next as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'metadata' || key === 'status') continue;
    if (!jsonEqual(a[key], b[key])) return 'spec';
  }
  return jsonEqual(a['status'], b['status']) ? 'none' : 'status';
}
