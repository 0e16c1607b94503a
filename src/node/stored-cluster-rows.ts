import { MaasClusterStatus, MaasMachine, shardOf } from '../api/index.ts';
import type { ClusterRow } from '../bus/messages/introspect.ts';
import { clusterKeyOf, clusterNameOf } from '../machines/cluster-key.ts';
import type { ResourceStore } from '../ports/index.ts';
import { byKey, machineRow } from './maas-cluster-rows.ts';

/**
 * The MaasClusters of `shards` as this node's store holds them, with their MaasMachines, for a
 * listing whose node for those shards did not answer (killed a moment ago: its leases stand until
 * their TTL), as stored-host-rows.ts does for hosts. What only the cluster's actor knows (its
 * phase, the DNS record as last read from MAAS, its last error) is left out; a machine is in the
 * record as its own status last said (status.dnsAttached).
 */
export async function storedClusterRows(store: ResourceStore, shardCount: number, shards: readonly number[]): Promise<ClusterRow[]> {
  const wanted = new Set(shards);
  const clusters = (await store.list('MaasCluster')).filter((c) => wanted.has(shardOf(clusterKeyOf('MaasCluster', c), shardCount)));
  if (clusters.length === 0) return [];
  const machines = new Map<string, MaasMachine[]>();
  for (const raw of await store.list('MaasMachine')) {
    const parsed = MaasMachine.safeParse(raw);
    if (!parsed.success) continue;
    const key = clusterKeyOf('MaasMachine', raw);
    machines.set(key, [...(machines.get(key) ?? []), parsed.data]);
  }
  return clusters.map((c): ClusterRow => {
    const clusterKey = clusterKeyOf('MaasCluster', c);
    const parsed = MaasClusterStatus.safeParse(c.status ?? {});
    const status = parsed.success ? parsed.data : { ready: false };
    return {
      key: `${c.metadata.namespace}/${c.metadata.name}`,
      cluster: clusterNameOf(c),
      shard: shardOf(clusterKey, shardCount),
      phase: 'stored',
      ready: status.ready,
      failureDomains: (status.failureDomains ?? []).map((d) => d.name),
      dnsName: status.network?.dnsName ?? null,
      addresses: [],
      addressesSeenMs: null,
      machines: (machines.get(clusterKey) ?? []).map((m) => machineRow(m, () => m.status?.dnsAttached === true)).sort(byKey),
      conditions: (status.conditions ?? []).map((x) => ({ type: x.type, status: x.status, reason: x.reason ?? '' })),
      lastError: null,
      waiting: 'no node drives it now',
      stored: true,
    };
  });
}
