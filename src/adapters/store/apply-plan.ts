import { randomUUID } from 'node:crypto';
import { compact, deepEqual, union } from './object-helpers.ts';
import { kubeTimestamp } from './kv-record.ts';
import type { SpecRecord } from './kv-layouts.ts';

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

/**
 * What a user's apply of `desired` writes over `old`, for every kind, as the API server does:
 * identity and lifecycle fields (uid, generation, creationTimestamp, deletionTimestamp) belong to
 * the store, not the manifest; finalizers are the union of stored and given; generation moves
 * only when the spec does; a status in the manifest is not part of the spec record.
 */
export function planApplied(old: SpecRecord | undefined, given: SpecRecord & { readonly status?: unknown }, now: () => number): { spec: SpecRecord; outcome: ApplyOutcome } {
  const { status: _status, fence: _fence, legacyStatus: _legacy, ...desired } = given;
  const { uid: _uid, resourceVersion: _rv, generation: _gen, creationTimestamp: _ct, deletionTimestamp: _dt, finalizers, ...rest } = desired.metadata;
  if (old === undefined) {
    const metadata = compact({
      ...rest,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: kubeTimestamp(now()),
      finalizers: union(undefined, finalizers),
    });
    return { spec: { ...desired, metadata }, outcome: 'created' };
  }
  const specChanged = !deepEqual(old.spec, desired.spec);
  const metadata = compact({
    ...rest,
    uid: old.metadata.uid,
    generation: (old.metadata.generation ?? 1) + (specChanged ? 1 : 0),
    creationTimestamp: old.metadata.creationTimestamp,
    finalizers: union(old.metadata.finalizers, finalizers),
    deletionTimestamp: old.metadata.deletionTimestamp,
  });
  const oldMeta = { ...old.metadata, resourceVersion: undefined };
  const { fence: _oldFence, legacyStatus: _oldLegacy, ...oldRest } = old;
  const sameRest = deepEqual({ ...oldRest, metadata: undefined, spec: undefined }, { ...desired, metadata: undefined, spec: undefined });
  if (!specChanged && sameRest && deepEqual(oldMeta, metadata)) return { spec: old, outcome: 'unchanged' };
  // The owner's fence is the store's, not the manifest's: it stays; so does an older node's status.
  return { spec: { ...desired, metadata, ...(old.fence ? { fence: old.fence } : {}), ...(old.legacyStatus ? { legacyStatus: old.legacyStatus } : {}) }, outcome: 'updated' };
}
