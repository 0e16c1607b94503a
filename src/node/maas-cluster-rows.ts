// The `clusters` introspection verb on a node: what its MaasCluster actors hold, asked of each
// actor (no MAAS call). The actors are found in the actor registry: every owned shard spawns one
// per MaasCluster (`shard-<shard>-e<epoch>/mc-<ns>~<name>`, actors/maas/binding.ts), and a lost
// shard's are stopped with it, so the registry lists exactly the clusters of the owned shards.
import { clusterNameOf } from '../actors/maas/index.ts';
import type { MaasClusterMsg, MaasClusterSnapshot } from '../actors/maas/index.ts';
import type { ActorSystem } from '../actors/runtime/index.ts';
import { ask, lookup } from '../actors/runtime/index.ts';
import type { MaasMachine } from '../api/index.ts';
import { isControlPlaneMachine, shardOf, errorMessage } from '../api/index.ts';
import type { ClusterMachineRow, ClusterRow } from '../bus/messages/introspect.ts';
import type { MaasClusterState } from '../machines/maas-cluster/index.ts';
import type { StoredObject } from '../ports/index.ts';

/** The actor kind the MaasCluster actors register under (maasClusterKind's actorKind). */
const CLUSTER_ACTOR_KIND = 'maas-cluster';

/** One row per MaasCluster actor of this node, sorted by key; an actor that does not answer in time is a row that says so. */
export async function maasClusterRows(system: ActorSystem, o: { shardCount: number; now: () => number; timeoutMs: number }): Promise<ClusterRow[]> {
  const actors = system.registry.list({ summary: false }).filter((a) => a.kind === CLUSTER_ACTOR_KIND);
  const rows = await Promise.all(actors.map(async (a): Promise<ClusterRow | null> => {
    const ref = lookup<MaasClusterMsg>(system, a.path);
    if (!ref) return null; // stopped between the listing and the lookup
    try {
      const snap = await ask<MaasClusterMsg, MaasClusterSnapshot>(ref, (reply) => ({ type: 'snapshot', reply }), o.timeoutMs);
      return snap.state ? clusterRow(snap.state, o.shardCount, o.now()) : null;
    } catch (err) {
      return unanswered(keyOfActor(a.name), shardOfSupervisor(a.parent), o.shardCount, `the cluster actor did not answer: ${errorMessage(err)}`);
    }
  }));
  return rows.filter((r): r is ClusterRow => r !== null && r.phase !== 'gone').sort(byKey);
}

/** A MaasCluster actor's state as the `clusters` verb shows it. */
export function clusterRow(s: MaasClusterState, shardCount: number, now: number): ClusterRow {
  const meta = s.object.metadata;
  const ns = meta.namespace ?? 'default';
  const cluster = clusterNameOf(s.object as unknown as Pick<StoredObject, 'metadata'>);
  const addresses = [...(s.record?.ips ?? [])];
  const inRecord = new Set(addresses);
  return {
    key: `${ns}/${meta.name}`,
    cluster,
    // The shard of the Cluster API cluster, as actors/maas/binding.ts routes it.
    shard: shardOf(`${ns}/${cluster}`, shardCount),
    phase: s.phase,
    ready: s.status.ready,
    failureDomains: (s.status.failureDomains ?? []).map((d) => d.name),
    dnsName: s.status.network?.dnsName ?? null,
    addresses,
    addressesSeenMs: s.recordAt === null ? null : Math.max(0, now - s.recordAt),
    machines: s.world.machines.map((m) => machineRow(m, (ips) => ips.some((ip) => inRecord.has(ip)))).sort(byKey),
    conditions: (s.status.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? '' })),
    lastError: s.lastError,
    waiting: s.waiting,
  };
}

/** Sorts rows by their key. */
export const byKey = (a: { readonly key: string }, b: { readonly key: string }): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** A machine of a cluster; `attached` says whether the DNS record holds one of its external addresses. */
export function machineRow(m: MaasMachine, attached: (ips: readonly string[]) => boolean): ClusterMachineRow {
  const ips = (m.status?.addresses ?? []).filter((a) => a.type === 'ExternalIP').map((a) => a.address);
  const address = ips[0];
  return {
    key: `${m.metadata.namespace ?? 'default'}/${m.metadata.name}`,
    machineState: m.status?.machineState ?? '',
    controlPlane: isControlPlaneMachine(m),
    ...(address !== undefined ? { address } : {}),
    dnsAttached: attached(ips),
  };
}

// `mc-capi~c1` → `capi/c1` (the shard names them so: '/' is the path separator).
function keyOfActor(name: string): string {
  return name.replace(/^mc-/, '').replace('~', '/');
}

// `…/shard-5-e12` → 5: the shard that spawned the actor (node/kind-host.ts names them so).
function shardOfSupervisor(parent: string | null): number | undefined {
  const m = /shard-(\d+)-e\d+$/.exec(parent ?? '');
  return m ? Number(m[1]) : undefined;
}

function unanswered(key: string, shard: number | undefined, shardCount: number, lastError: string): ClusterRow {
  // Without its state the Cluster API cluster's name is unknown: the MaasCluster's stands in.
  const name = key.slice(key.indexOf('/') + 1);
  return {
    key, cluster: name, shard: shard ?? shardOf(key, shardCount), phase: 'unknown', ready: false, failureDomains: [],
    dnsName: null, addresses: [], addressesSeenMs: null, machines: [], conditions: [], lastError, waiting: null,
  };
}
