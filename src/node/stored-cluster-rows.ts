import { isControlPlaneMachine, MaasClusterStatus, MaasMachine, shardOf } from '../api/index.ts';
import type { ClusterMachineRow, ClusterRow } from '../bus/messages/introspect.ts';
import { clusterKeyOf, clusterNameOf } from '../machines/cluster-key.ts';
import type { ResourceStore } from '../ports/index.ts';
import { byKey, machineRow } from './maas-cluster-rows.ts';
import { storedProblem } from './stored-problem.ts';

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
  // A machine metalfleet did not write (a hand-made KV value) stays in its cluster, as unreadable,
  // and its cluster's error names the field that is wrong.
  const machines = new Map<string, Array<{ row: ClusterMachineRow; problem?: string }>>();
  for (const raw of await store.list('MaasMachine')) {
    const parsed = MaasMachine.safeParse(raw);
    const key = clusterKeyOf('MaasMachine', raw);
    const machine = parsed.success
      ? { row: machineRow(parsed.data, () => parsed.data.status?.dnsAttached === true) }
      : {
        row: { key: `${raw.metadata.namespace}/${raw.metadata.name}`, machineState: 'unreadable', controlPlane: isControlPlaneMachine(raw), dnsAttached: false },
        problem: `MaasMachine ${raw.metadata.namespace}/${raw.metadata.name}: ${storedProblem(parsed.error)}`,
      };
    machines.set(key, [...(machines.get(key) ?? []), machine]);
  }
  return clusters.map((c): ClusterRow => {
    const clusterKey = clusterKeyOf('MaasCluster', c);
    const parsed = MaasClusterStatus.safeParse(c.status ?? {});
    const status = parsed.success ? parsed.data : { ready: false };
    const mine = machines.get(clusterKey) ?? [];
    const problems = [...(parsed.success ? [] : [storedProblem(parsed.error, ['status'])]), ...mine.flatMap((m) => (m.problem ? [m.problem] : []))];
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
      machines: mine.map((m) => m.row).sort(byKey),
      conditions: (status.conditions ?? []).map((x) => ({ type: x.type, status: x.status, reason: x.reason ?? '' })),
      lastError: problems.length > 0 ? problems.join('; ') : null,
      waiting: 'no node drives it now',
      stored: true,
    };
  });
}
