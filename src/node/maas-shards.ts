import type { MaasOptions, MaasSupervisorMsg } from '../actors/maas/index.ts';
import { CLUSTER_LABEL, clusterNameOf, dnsOf, machineStateOf, spawnMaasShard } from '../actors/maas/index.ts';
import type { ActorRef, ActorSystem } from '../actors/runtime/index.ts';
import { stop, tell } from '../actors/runtime/index.ts';
import { shardOf } from '../api/index.ts';
import type { MaasMachineState } from '../machines/maas-machine/index.ts';
import type { Fence, Logger, ObjectEvent, ObjectKind, StoredObject } from '../ports/index.ts';
import { leaseGuardedDriver } from './lease-guarded-driver.ts';

// The MAAS kinds on a sharded node. A Cluster API cluster is the unit of sharding: its
// MaasCluster, MaasMachines, Machines and Cluster all live in the shard of `namespace/cluster`,
// so one owner keeps the cluster's DNS record and the delete order of its control plane (a
// machine leaves the record before it is released) without coordinating across nodes. Each owned
// shard runs one MAAS supervisor, fenced with the shard's lease; the router here hands it the
// store events of its clusters.

type MaasKind = 'MaasCluster' | 'MaasMachine' | 'Machine' | 'Cluster';
const KINDS: readonly MaasKind[] = ['MaasCluster', 'MaasMachine', 'Machine', 'Cluster'];

/** `namespace/cluster` of a MAAS-side object: what its shard is computed from. */
export function clusterKeyOf(kind: ObjectKind, object: StoredObject): string {
  const ns = object.metadata.namespace;
  switch (kind) {
    case 'Cluster': return `${ns}/${object.metadata.name}`;
    case 'MaasCluster': return `${ns}/${clusterNameOf(object)}`;
    case 'Machine': {
      const spec = object.spec as { clusterName?: unknown } | undefined;
      const name = typeof spec?.clusterName === 'string' ? spec.clusterName : object.metadata.labels?.[CLUSTER_LABEL];
      return `${ns}/${name ?? object.metadata.name}`;
    }
    default: return `${ns}/${object.metadata.labels?.[CLUSTER_LABEL] ?? object.metadata.name}`;
  }
}

export interface MaasShardsOptions extends Omit<MaasOptions, 'fence' | 'onMachineChange'> {
  readonly system: ActorSystem;
  readonly shardCount: number;
  readonly log: Logger;
}

export interface MaasShards {
  /** leaseHeld: is the shard's lease safely held now? Asked before each call that changes MAAS. */
  acquired(shard: number, fence: Fence, leaseHeld?: () => boolean): void;
  /** Stops the shard's MAAS actors at once (the lease is gone or handed off). */
  stopped(shard: number): void;
  /** The MaasMachines driven here, with since when (clock ms) each is in its MAAS state. */
  machines(): ReadonlyMap<string, { readonly state: MaasMachineState; readonly since: number }>;
  machineState(key: string, timeoutMs: number): Promise<MaasMachineState | null>;
  dns(clusterKey: string, timeoutMs: number): Promise<{ dnsName: string | null; ips: readonly string[] } | null>;
  close(): void;
}

export function startMaasShards(o: MaasShardsOptions): MaasShards {
  const supervisors = new Map<number, ActorRef<MaasSupervisorMsg>>();
  // Where each object was last seen going: a deletion carries no labels to compute it from.
  const homes = new Map<string, number>();
  const machines = new Map<string, { state: MaasMachineState; since: number; shard: number }>();
  const shardOfKey = (clusterKey: string): number => shardOf(clusterKey, o.shardCount);

  const route = (event: ObjectEvent): void => {
    const id = `${event.kind} ${event.key}`;
    if (event.kind === 'Secret') {
      // Which machine a bootstrap Secret belongs to is known to the supervisor that has it.
      for (const ref of supervisors.values()) tell(ref, { type: 'event', event });
      return;
    }
    const shard = event.type === 'upsert' ? shardOfKey(clusterKeyOf(event.kind, event.object)) : homes.get(id);
    if (event.type === 'upsert') homes.set(id, shard as number);
    else homes.delete(id);
    if (shard === undefined) return;
    const ref = supervisors.get(shard);
    if (ref) tell(ref, { type: 'event', event });
  };
  const unwatch = o.store.watch(route);

  const changed = (shard: number) => (key: string, state: MaasMachineState): void => {
    if (supervisors.get(shard) === undefined) return;
    const before = machines.get(key);
    if (state.gone) {
      machines.delete(key);
      return;
    }
    const same = before !== undefined && before.state.status.machineState === state.status.machineState;
    machines.set(key, { state, since: same ? before.since : o.clock.now(), shard });
  };

  const supervisorFor = async (key: string, kind: MaasKind): Promise<ActorRef<MaasSupervisorMsg> | undefined> => {
    const home = homes.get(`${kind} ${key}`);
    if (home !== undefined) return supervisors.get(home);
    const object = await o.store.get(kind, key);
    return object ? supervisors.get(shardOfKey(clusterKeyOf(kind, object))) : undefined;
  };

  return {
    acquired(shard, fence, leaseHeld) {
      if (supervisors.has(shard)) return;
      const driver = leaseHeld ? leaseGuardedDriver(o.driver, leaseHeld, fence) : o.driver;
      // An epoch in the name: a shard lost and won again never collides with its stopping self.
      const { ref, seed } = spawnMaasShard(o.system, `maas-${shard}-e${fence.epoch}`, { ...o, driver, fence, onMachineChange: changed(shard) });
      supervisors.set(shard, ref);
      // The new owner reads its clusters from the store: status there is the truth.
      void (async () => {
        const objects: Array<{ kind: MaasKind; object: StoredObject }> = [];
        for (const kind of KINDS) {
          for (const object of await o.store.list(kind)) {
            const home = shardOfKey(clusterKeyOf(kind, object));
            homes.set(`${kind} ${object.metadata.namespace}/${object.metadata.name}`, home);
            if (home === shard) objects.push({ kind, object });
          }
        }
        // Clusters first: a machine's first look finds its cluster's actor there.
        if (supervisors.get(shard) === ref) seed(objects);
      })().catch((err: unknown) => o.log.error({ shard, err: err instanceof Error ? err.message : String(err) }, 'listing the MAAS objects of an acquired shard failed'));
    },
    stopped(shard) {
      const ref = supervisors.get(shard);
      if (!ref) return;
      supervisors.delete(shard);
      stop(ref);
      for (const [key, m] of machines) if (m.shard === shard) machines.delete(key);
    },
    machines: () => machines,
    async machineState(key, timeoutMs) {
      const ref = await supervisorFor(key, 'MaasMachine');
      return ref ? machineStateOf(ref, key, timeoutMs) : null;
    },
    async dns(key, timeoutMs) {
      const ref = await supervisorFor(key, 'MaasCluster');
      return ref ? dnsOf(ref, key, timeoutMs) : null;
    },
    close() {
      unwatch();
      for (const shard of [...supervisors.keys()]) this.stopped(shard);
    },
  };
}
