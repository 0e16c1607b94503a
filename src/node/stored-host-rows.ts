import { BMH_KIND, shardOf } from '../api/index.ts';
import type { HostBackend, HostRow } from '../bus/messages/introspect.ts';
import type { ResourceStore } from '../ports/index.ts';

/**
 * The BareMetalHosts of `shards` as this node's store holds them, for a listing whose node for
 * those shards did not answer (killed a moment ago: its leases stand until their TTL, so no other
 * node drives them yet). Every node's store sees the whole fleet's writes, so any node can say
 * what was last written; no actor is asked, and a row says it is stored, not driven.
 * MaasMachines are left out: their shard is their cluster's, which only a Machine read tells.
 */
export async function storedHostRows(store: ResourceStore, backend: HostBackend, shardCount: number, shards: readonly number[], now: number): Promise<HostRow[]> {
  const wanted = new Set(shards);
  const hosts = await store.list(BMH_KIND, { keys: (key) => wanted.has(shardOf(key, shardCount)) });
  const rows: HostRow[] = [];
  for (const host of hosts) {
    const key = `${host.metadata.namespace}/${host.metadata.name}`;
    const shard = shardOf(key, shardCount);
    if (!wanted.has(shard)) continue;
    const status = host.status;
    const updated = status?.lastUpdated ? Date.parse(status.lastUpdated) : Number.NaN;
    rows.push({
      key, kind: 'BareMetalHost', backend,
      state: status?.provisioning.state ?? '',
      poweredOn: status?.poweredOn ?? false,
      operationalStatus: status?.operationalStatus ?? '',
      errorType: status?.errorType ?? '',
      ...(status?.errorMessage ? { errorMessage: status.errorMessage } : {}),
      shard,
      stateSinceMs: Number.isFinite(updated) ? Math.max(0, now - updated) : 0,
      stored: true,
    });
  }
  return rows;
}
