import { BMH_KIND, MaasMachineStatus, shardOf, type BareMetalHost } from '../api/index.ts';
import type { HostBackend, HostRow } from '../bus/messages/introspect.ts';
import { stateEnteredStamp } from '../machines/bmh/index.ts';
import { clusterKeyOf } from '../machines/cluster-key.ts';
import type { ResourceStore, StoredObject } from '../ports/index.ts';
import { storedProblem, unreadableRow } from './stored-problem.ts';

/** What the rows are read for: the node's BareMetalHost backend, whether it drives MaasMachines, its shard count. */
export interface StoredRowsScope {
  readonly backend: HostBackend;
  readonly maas: boolean;
  readonly shardCount: number;
}

/**
 * The hosts of `shards` as this node's store holds them, for a listing whose node for those
 * shards did not answer (killed a moment ago: its leases stand until their TTL, so no other node
 * drives them yet). Every node's store sees the whole fleet's writes, so any node can say what
 * was last written; no actor is asked, and a row says it is stored, not driven. A MaasMachine is
 * in its cluster's shard (machines/cluster-key.ts), so all of them are read to find those.
 */
export async function storedHostRows(store: ResourceStore, scope: StoredRowsScope, shards: readonly number[], now: number): Promise<HostRow[]> {
  const wanted = new Set(shards);
  const shardOfKey = (key: string): number => shardOf(key, scope.shardCount);
  const hosts = await store.list(BMH_KIND, { keys: (key) => wanted.has(shardOfKey(key)) });
  const rows: HostRow[] = [];
  for (const host of hosts) {
    const key = `${host.metadata.namespace}/${host.metadata.name}`;
    const shard = shardOfKey(key);
    if (!wanted.has(shard)) continue;
    const status = host.status;
    rows.push({
      key, kind: 'BareMetalHost', backend: scope.backend,
      state: status?.provisioning.state ?? '',
      poweredOn: status?.poweredOn ?? false,
      operationalStatus: status?.operationalStatus ?? '',
      errorType: status?.errorType ?? '',
      ...(status?.errorMessage ? { errorMessage: status.errorMessage } : {}),
      shard,
      stateSinceMs: bmhStateSinceMs(status, now),
      stored: true,
    });
  }
  // A host whose only record the store cannot read is listed with the store's reason, as its
  // owner lists it (introspection-source.ts), so it is not simply missing.
  const listed = new Set(rows.map((r) => r.key));
  for (const [key, problem] of store.recordProblems?.(BMH_KIND) ?? []) {
    const shard = shardOfKey(key);
    if (wanted.has(shard) && !listed.has(key)) {
      rows.push(unreadableRow(key, 'BareMetalHost', scope.backend, shard, problem, true));
    }
  }
  if (scope.maas) for (const machine of await store.list('MaasMachine')) {
    const shard = shardOfKey(clusterKeyOf('MaasMachine', machine));
    if (wanted.has(shard)) rows.push(maasRow(machine, shard, now));
  }
  return rows;
}

// As the actor's view shows one (machines/maas-machine/logic.ts), from what its status last said.
export function maasRow(machine: StoredObject, shard: number, now: number): HostRow {
  const key = `${machine.metadata.namespace}/${machine.metadata.name}`;
  const parsed = MaasMachineStatus.safeParse(machine.status ?? {});
  // A status metalfleet did not write (a hand-made KV value) is listed as the store's unreadable
  // hosts are, with the field that is wrong, not as a Pending machine.
  if (!parsed.success) {
    return unreadableRow(key, 'MaasMachine', 'maas', shard, storedProblem(parsed.error, ['status']), true);
  }
  const status = parsed.data;
  return {
    key, kind: 'MaasMachine', backend: 'maas',
    state: status.machineState ?? 'Pending',
    poweredOn: status.machinePowered ?? false,
    operationalStatus: status.failureReason ? 'error' : status.ready ? 'OK' : 'pending',
    errorType: status.failureReason ?? '',
    ...(status.failureMessage ? { errorMessage: status.failureMessage } : {}),
    shard,
    // A MaasMachine's status has no lastUpdated: its newest condition says when it last changed.
    stateSinceMs: sinceNewestTransition(status.conditions, now),
    stored: true,
  };
}

/** Milliseconds since the newest lastTransitionTime of `conditions`; 0 when none has one that parses. */
function sinceNewestTransition(conditions: ReadonlyArray<{ lastTransitionTime?: string | undefined }> | undefined, now: number): number {
  const times = (conditions ?? []).map((c) => (c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.NaN)).filter(Number.isFinite);
  return times.length > 0 ? Math.max(0, now - Math.max(...times)) : 0;
}

/**
 * How long a stored BareMetalHost has been in its provisioning state: from its operationHistory,
 * as a live owner reads it (machines/bmh/logic.ts), not from lastUpdated, which any status write
 * (a power change) moves; lastUpdated only for the states the history does not date.
 */
export function bmhStateSinceMs(status: BareMetalHost['status'], now: number): number {
  return status ? sinceMs(stateEnteredStamp(status) ?? status.lastUpdated, now) : 0;
}

/** Milliseconds since an RFC 3339 time (status.lastUpdated); 0 when there is none or it does not parse. */
export function sinceMs(at: string | undefined, now: number): number {
  const t = at ? Date.parse(at) : Number.NaN;
  return Number.isFinite(t) ? Math.max(0, now - t) : 0;
}
