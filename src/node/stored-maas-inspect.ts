import { MaasMachineSpec } from '../api/index.ts';
import type { InspectedHost, SpecSummary } from '../bus/messages/introspect.ts';
import { clusterKeyOf } from '../machines/cluster-key.ts';
import type { StoredObject } from '../ports/index.ts';
import { maasRow } from './stored-host-rows.ts';
import { storedProblem } from './stored-problem.ts';

/**
 * A MaasMachine as this node's store last had it, for an inspect no node answered as its driver
 * (the owner of its cluster's shard killed a moment ago keeps the lease until its TTL). Its state
 * is read from its status as the listing's stored row reads it; what only an actor knows (in
 * flight, slot, retry, MAAS's own record) is left empty, and the reply says it is stored.
 */
export function storedMaasInspect(key: string, machine: StoredObject, shardOfKey: (key: string) => number, now: number): InspectedHost {
  const shard = shardOfKey(clusterKeyOf('MaasMachine', machine));
  const row = maasRow(machine, shard, now);
  const spec = MaasMachineSpec.safeParse(machine.spec ?? {});
  // What of the record does not parse is its newest warning, as a live host's unreadable record is.
  const problems = [...(spec.success ? [] : [storedProblem(spec.error, ['spec'])]), ...(row.state === 'unreadable' && row.errorMessage ? [row.errorMessage] : [])];
  return {
    key, kind: 'MaasMachine', backend: 'maas',
    state: row.state,
    stateSinceMs: row.stateSinceMs,
    spec: spec.success ? maasSpecSummary(spec.data) : {},
    status: { ...(machine.status ?? {}) },
    recent: problems.map((message) => ({ at: now, severity: 'Warning' as const, reason: 'StoreRecordInvalid', message })),
    inFlight: null, slot: { phase: 'none' }, retryAt: null, nextAttemptInMs: null,
    shard, epoch: 0, stored: true,
  };
}

/** The fields inspect shows of a MaasMachine's spec: the image and where it may run. */
export function maasSpecSummary(s: MaasMachineSpec): SpecSummary {
  const spec: SpecSummary = { imageUrl: s.image, minCPU: s.minCPU, minMemoryMB: s.minMemory };
  if (s.providerID) spec.providerID = s.providerID;
  if (s.failureDomain) spec.failureDomain = s.failureDomain;
  if (s.tags) spec.tags = [...s.tags];
  return spec;
}
