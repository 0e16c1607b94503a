import { MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, errorMessage } from '../../api/index.ts';
import { clusterKeyOf } from '../../machines/cluster-key.ts';
import { kindNamed } from '../../machines/kinds.ts';
import { ACTOR_CRASHED } from '../../machines/maas-machine/index.ts';
import type { MaasMachineConfig } from '../../machines/maas-machine/index.ts';
import type { Fence, Logger, MaasDriver, ObjectKind, ResourceEvent, ResourceStore } from '../../ports/index.ts';
import { OBJECT_KINDS } from '../../ports/index.ts';
import type { BackendCalls } from '../calls/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import type { MachineChanges } from '../machine/index.ts';
import type { ActorRef, Clock } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import type { KindActors, KindRouter, ShardBinding, ShardScope } from '../shard/index.ts';
import type { MaasClusterMsg } from './maas-cluster-actor.ts';
import { maasClusterBehavior } from './maas-cluster-actor.ts';
import type { MaasMachineMsg } from './maas-machine-actor.ts';
import { maasMachineBehavior } from './maas-machine-actor.ts';
import { SeenObjects, seenStore } from './seen.ts';

// The MAAS kinds as a shard hosts them. A Cluster API cluster is the unit of sharding: its
// MaasCluster, MaasMachines, Machines and Cluster all route by `namespace/cluster` (the kinds'
// shardKey, machines/cluster-key.ts), so one owner keeps the cluster's DNS record and the delete
// order of its control plane (a machine leaves the record before it is released) without
// coordinating across nodes.

// In seed order: what a MaasMachine's world names (its Cluster, Machine, MaasCluster) is seen
// before the machine's first wake-up reads it.
const ROUTED: readonly ObjectKind[] = ['Cluster', 'Machine', 'MaasCluster', 'MaasMachine'];

export { clusterKeyOf };

export interface MaasBindingDeps {
  readonly store: ResourceStore;
  /** The driver of one shard: guarded by its lease and fence (node/lease-guarded-driver.ts). */
  driverFor(fence: Fence, leaseHeld: (() => boolean) | undefined): MaasDriver;
  readonly broker: ActorRef<CapacityMsg>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: MaasMachineConfig;
  readonly grantTtlMs: number;
  readonly clusterResyncMs: number;
  /** The node's change stream: each shard's MaasMachine and MaasCluster actors report there. */
  readonly changes?: MachineChanges;
  /** The node's per-backend bound on the machines' calls that hold no slot. */
  readonly calls?: BackendCalls;
}

/** The MAAS router of one shard: its machine and cluster actors. */
export interface MaasRouter extends KindRouter<ResourceEvent<ObjectKind>> {
  machine(key: string): ActorRef<MaasMachineMsg> | undefined;
  cluster(key: string): ActorRef<MaasClusterMsg> | undefined;
}

export function maasBinding(deps: MaasBindingDeps): ShardBinding<ResourceEvent<ObjectKind>, MaasRouter> {
  // Where each object was last seen going: a deletion carries no labels to compute it from.
  const homes = new Map<string, string>();
  const home = (event: ResourceEvent<ObjectKind>): string | null | undefined => {
    if (event.kind === 'Secret') return null;
    const id = `${event.kind} ${event.key}`;
    if (event.type === 'deleted') {
      const last = homes.get(id);
      homes.delete(id);
      return last;
    }
    // A kind's own shard key (its kind.ts); the Cluster API objects around it go with their cluster.
    const key = kindNamed(event.kind)?.shardKey(event.object) ?? clusterKeyOf(event.kind, event.object);
    homes.set(id, key);
    return key;
  };
  return {
    name: 'maas', // as the MAAS kinds' kind.ts name it
    open: (scope) => openMaasRouter(scope, deps),
    indexed: (event) => ({ kind: event.kind, key: event.key, object: event.type === 'deleted' ? null : event.object }),
    watch: (emit) => deps.store.watch((event) => {
      const key = home(event);
      // Which machine a bootstrap Secret belongs to is known to the shard that has it.
      if (key !== undefined) emit(key, event);
    }, { kinds: OBJECT_KINDS }),
    async list() {
      const found: Array<readonly [string, ResourceEvent<ObjectKind>]> = [];
      // In ROUTED order: a machine's first look finds its cluster's actor and its world seen.
      for (const kind of ROUTED) {
        for (const object of await deps.store.list(kind)) {
          const event: ResourceEvent<ObjectKind> = { type: 'upsert', kind, key: `${object.metadata.namespace}/${object.metadata.name}`, object, change: 'spec' };
          const key = home(event);
          if (key) found.push([key, event]);
        }
      }
      return found;
    },
  };
}

// MaasMachine wake-ups of this process (reads of a MaasMachine by its actor, one per wake-up),
// for the maas benchmark's store-reads-per-wake figure.
let machineWakes = 0;

/** How many MaasMachine wake-ups this process has run (every node's routers). */
export function maasMachineWakes(): number {
  return machineWakes;
}

// Spawns an actor per MaasMachine and per MaasCluster on demand and routes store events: spec
// changes to the object's own actor, and to every object the change wakes as the shard's
// dependents index answers it (from what the MAAS kinds declare): a machine's change to its
// cluster's MaasClusters (DNS), a Machine or Secret change to the MaasMachine that depends on it,
// a Cluster change (pause, infrastructure) to its MaasClusters and machines, a MaasCluster's
// change (ready, DNS name) and a DNS change of it to its machines. Every event first updates
// what the router has seen: the actors' worlds and who a change wakes come from that and from
// the index, never from store reads.
function openMaasRouter(scope: ShardScope, deps: MaasBindingDeps): MaasRouter {
  const driver = deps.driverFor(scope.fence, scope.leaseHeld);
  const changes = deps.changes?.sink(scope.shard);
  const seen = new SeenObjects(scope.index);
  // Every line of the shard's machines and clusters says which tenure wrote it, as a host's do
  // (actors/host/binding.ts): after a failover the old and the new owner's lines differ by epoch.
  const log = deps.log.child({ shard: scope.shard, epoch: scope.fence.epoch });
  const machineDeps = {
    store: seenStore(deps.store, seen, () => { machineWakes += 1; }),
    driver, broker: deps.broker, clock: deps.clock, config: deps.config, log, grantTtlMs: deps.grantTtlMs, fence: scope.fence,
    ...(changes ? { changes } : {}),
    ...(deps.calls ? { calls: deps.calls } : {}),
  };
  const clusterStore = seenStore(deps.store, seen);
  const machines: KindActors<MaasMachineMsg> = scope.actors({
    kind: MAAS_MACHINE_KIND,
    prefix: 'mm-',
    behavior: (key) => maasMachineBehavior(key, machineDeps),
    drainable: (ref) => ref,
    gaveUp: (key, error, restarts) => void markMaasCrashed(deps.store, log, 'MaasMachine', key, error, restarts, scope.fence),
  });
  const clusters: KindActors<MaasClusterMsg> = scope.actors({
    kind: MAAS_CLUSTER_KIND,
    prefix: 'mc-',
    behavior: (key) => maasClusterBehavior(key, {
      store: clusterStore, driver, clock: deps.clock, log, resyncMs: deps.clusterResyncMs, fence: scope.fence,
      ...(changes ? { changes } : {}),
      ...(deps.calls ? { calls: deps.calls } : {}),
      // A MaasCluster changed its DNS record: its control-plane machines read it again.
      onDnsChanged: () => scope.later(() => dnsChanged(key)),
    }),
    drainable: (ref) => ref,
    gaveUp: (key, error, restarts) => void markMaasCrashed(deps.store, log, 'MaasCluster', key, error, restarts, scope.fence),
  });

  // A DNS record changes as its MaasCluster does: whom it wakes is whom a change of it wakes.
  function dnsChanged(clusterKey: string): void {
    const mc = seen.get('MaasCluster', clusterKey);
    if (mc) tellMachines(scope.index.dependentsOf('MaasCluster', mc, MAAS_MACHINE_KIND), { type: 'dnsChanged' });
  }

  function tellMachines(keys: Iterable<string>, msg: MaasMachineMsg): void {
    for (const key of keys) {
      const ref = machines.get(key);
      if (ref) tell(ref, msg);
    }
  }

  function tickClusters(keys: Iterable<string>): void {
    for (const key of keys) {
      const ref = clusters.get(key);
      if (ref) tell(ref, { type: 'tick' });
    }
  }

  // A Machine or a Secret changed: its MaasMachine looks again with its own object (its
  // bootstrap data may just have appeared).
  function observeMachines(keys: Iterable<string>): void {
    for (const key of keys) {
      const ref = machines.get(key);
      const object = seen.get('MaasMachine', key);
      if (ref && object) tell(ref, { type: 'observed', object });
    }
  }

  return {
    event(e, wakes) {
      seen.apply(e);
      const woken = (kind: string): Iterable<string> => wakes.get(kind) ?? [];
      switch (e.kind) {
        case 'MaasMachine':
          if (e.type === 'deleted') machines.stop(e.key);
          else if (e.change === 'spec') tell(machines.ensure(e.key), { type: 'observed', object: e.object });
          // Its status (the address for the DNS record) or its leaving: its cluster looks again.
          return tickClusters(woken(MAAS_CLUSTER_KIND));
        case 'MaasCluster':
          if (e.type === 'deleted') return clusters.stop(e.key);
          // Its status says whether the infrastructure is ready and names the DNS record.
          tellMachines(woken(MAAS_MACHINE_KIND), { type: 'tick' });
          if (e.change === 'spec') tell(clusters.ensure(e.key), { type: 'tick' });
          return;
        case 'Cluster':
          tickClusters(woken(MAAS_CLUSTER_KIND));
          return tellMachines(woken(MAAS_MACHINE_KIND), { type: 'tick' });
        default:
          return observeMachines(woken(MAAS_MACHINE_KIND));
      }
    },
    machine: (key) => machines.get(key),
    cluster: (key) => clusters.get(key),
  };
}

/**
 * A MAAS actor that keeps crashing is marked on its object, as a host is (node/mark-crashed.ts):
 * a Ready=False condition with the reason, and for a MaasMachine Cluster API's failure fields.
 * Nothing restarts it until the object changes.
 */
export async function markMaasCrashed(store: ResourceStore, log: Logger, kind: 'MaasMachine' | 'MaasCluster', key: string, error: unknown, restarts: number, fence?: Fence): Promise<void> {
  const message = `${kind} actor crashed ${restarts} times, last: ${describe(error)}; metalfleet stopped driving it — fix the cause, then change the ${kind} (for example annotate it) to retry`;
  log.error({ kind, key, restarts, err: describe(error) }, 'actor gave up');
  try {
    const object = await store.get(kind, key);
    if (!object) return;
    const status = (object.status ?? {}) as { conditions?: ReadonlyArray<{ type: string }> } & Record<string, unknown>;
    const condition = { type: 'Ready', status: 'False', reason: ACTOR_CRASHED, message, lastTransitionTime: new Date().toISOString() };
    const conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Ready'), condition];
    // Dropped by the MaasMachine actor started when the object changes (initialMaasMachineState).
    const failure = kind === 'MaasMachine' ? { failureReason: ACTOR_CRASHED, failureMessage: message } : {};
    await store.writeStatus(kind, key, { ...status, ...failure, conditions }, fence);
  } catch (err) {
    log.error({ kind, key, err: describe(err) }, 'recording the crash in status failed');
  }
}

function describe(err: unknown): string {
  return errorMessage(err);
}
