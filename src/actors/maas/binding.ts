import { MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, errorMessage } from '../../api/index.ts';
import type { MaasMachineConfig } from '../../machines/maas-machine/index.ts';
import type { Fence, Logger, MaasDriver, ObjectEvent, ObjectKind, ObjectStore, StoredObject } from '../../ports/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import type { MachineChanges } from '../machine/index.ts';
import type { ActorRef, Clock } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import type { KindActors, KindRouter, ShardBinding, ShardScope } from '../shard/index.ts';
import { CLUSTER_LABEL, clusterNameOf } from './context.ts';
import type { MaasClusterMsg } from './maas-cluster-actor.ts';
import { maasClusterBehavior } from './maas-cluster-actor.ts';
import type { MaasMachineMsg } from './maas-machine-actor.ts';
import { maasMachineBehavior } from './maas-machine-actor.ts';
import { SeenObjects, seenStore } from './seen.ts';

// The MAAS kinds as a shard hosts them. A Cluster API cluster is the unit of sharding: its
// MaasCluster, MaasMachines, Machines and Cluster all route by `namespace/cluster`, so one owner
// keeps the cluster's DNS record and the delete order of its control plane (a machine leaves the
// record before it is released) without coordinating across nodes.

// In seed order: what a MaasMachine's world names (its Cluster, Machine, MaasCluster) is seen
// before the machine's first wake-up reads it.
const ROUTED: readonly ObjectKind[] = ['Cluster', 'Machine', 'MaasCluster', 'MaasMachine'];

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

export interface MaasBindingDeps {
  readonly store: ObjectStore;
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
}

/** The MAAS router of one shard: its machine and cluster actors. */
export interface MaasRouter extends KindRouter<ObjectEvent> {
  machine(key: string): ActorRef<MaasMachineMsg> | undefined;
  cluster(key: string): ActorRef<MaasClusterMsg> | undefined;
}

export function maasBinding(deps: MaasBindingDeps): ShardBinding<ObjectEvent, MaasRouter> {
  // Where each object was last seen going: a deletion carries no labels to compute it from.
  const homes = new Map<string, string>();
  const home = (event: ObjectEvent): string | null | undefined => {
    if (event.kind === 'Secret') return null;
    const id = `${event.kind} ${event.key}`;
    if (event.type === 'deleted') {
      const last = homes.get(id);
      homes.delete(id);
      return last;
    }
    const key = clusterKeyOf(event.kind, event.object);
    homes.set(id, key);
    return key;
  };
  return {
    name: 'MAAS',
    open: (scope) => openMaasRouter(scope, deps),
    watch: (emit) => deps.store.watch((event) => {
      const key = home(event);
      // Which machine a bootstrap Secret belongs to is known to the shard that has it.
      if (key !== undefined) emit(key, event);
    }),
    async list() {
      const found: Array<readonly [string, ObjectEvent]> = [];
      // In ROUTED order: a machine's first look finds its cluster's actor and its world seen.
      for (const kind of ROUTED) {
        for (const object of await deps.store.list(kind)) {
          const event: ObjectEvent = { type: 'upsert', kind, key: `${object.metadata.namespace}/${object.metadata.name}`, object, change: 'spec' };
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
// changes to the object's own actor, a machine's status to its cluster (DNS), a Machine or
// Secret change to the MaasMachines that depend on it, a Cluster change (pause, infrastructure)
// and a MaasCluster's status (ready, DNS name) to the cluster's machines, and a DNS change of a
// MaasCluster to its machines. Every event first updates what the router has seen, and both the
// actors' worlds and who a change wakes are answered from that, not from store reads.
function openMaasRouter(scope: ShardScope, deps: MaasBindingDeps): MaasRouter {
  const driver = deps.driverFor(scope.fence, scope.leaseHeld);
  const changes = deps.changes?.sink(scope.shard);
  const seen = new SeenObjects();
  const machineDeps = {
    store: seenStore(deps.store, seen, () => { machineWakes += 1; }),
    driver, broker: deps.broker, clock: deps.clock, config: deps.config, log: deps.log, grantTtlMs: deps.grantTtlMs, fence: scope.fence,
    ...(changes ? { changes } : {}),
  };
  const clusterStore = seenStore(deps.store, seen);
  const machines: KindActors<MaasMachineMsg> = scope.actors({
    kind: MAAS_MACHINE_KIND,
    prefix: 'mm-',
    behavior: (key) => maasMachineBehavior(key, machineDeps),
    drainable: (ref) => ref,
    gaveUp: (key, error, restarts) => void markMaasCrashed(deps.store, deps.log, 'MaasMachine', key, error, restarts, scope.fence),
  });
  const clusters: KindActors<MaasClusterMsg> = scope.actors({
    kind: MAAS_CLUSTER_KIND,
    prefix: 'mc-',
    behavior: (key) => maasClusterBehavior(key, {
      store: clusterStore, driver, clock: deps.clock, log: deps.log, resyncMs: deps.clusterResyncMs, fence: scope.fence,
      ...(changes ? { changes } : {}),
      // A MaasCluster changed its DNS record: its control-plane machines read it again.
      onDnsChanged: () => scope.later(() => dnsChanged(key)),
    }),
    drainable: (ref) => ref,
    gaveUp: (key, error, restarts) => void markMaasCrashed(deps.store, deps.log, 'MaasCluster', key, error, restarts, scope.fence),
  });

  function dnsChanged(clusterKey: string): void {
    const mc = seen.get('MaasCluster', clusterKey);
    if (mc) wakeMachines(namespaceOf(clusterKey), clusterNameOf(mc), { type: 'dnsChanged' });
  }

  function wakeMachines(ns: string, cluster: string, msg: MaasMachineMsg): void {
    for (const key of seen.maasMachinesOf(ns, cluster)) {
      const ref = machines.get(key);
      if (ref) tell(ref, msg);
    }
  }

  // A machine's status changed (its address for the DNS record): its cluster's MaasClusters look
  // again. A machine of no known cluster wakes those of its namespace.
  function wakeClusters(machineKey: string, cluster: string | undefined): void {
    const ns = namespaceOf(machineKey);
    const keys = cluster === undefined ? [...clusters.entries()].map(([key]) => key).filter((key) => key.startsWith(`${ns}/`)) : seen.maasClustersOf(ns, cluster);
    for (const key of keys) {
      const ref = clusters.get(key);
      if (ref) tell(ref, { type: 'tick' });
    }
  }

  function machineEvent(e: ObjectEvent & { type: 'upsert' }): void {
    if (e.change === 'status') return wakeClusters(e.key, clusterName(e.key));
    tell(machines.ensure(e.key), { type: 'observed', object: e.object });
    return wakeClusters(e.key, clusterName(e.key));
  }

  function clusterName(machineKey: string): string | undefined {
    const group = seen.clusterOfMachine(machineKey);
    return group === undefined ? undefined : group.slice(group.indexOf('/') + 1);
  }

  function clusterEvent(e: ObjectEvent): void {
    if (e.type === 'deleted') {
      clusters.stop(e.key);
      return;
    }
    // Its status says whether the infrastructure is ready and names the DNS record.
    wakeMachines(namespaceOf(e.key), clusterNameOf(e.object), { type: 'tick' });
    if (e.change === 'status') return;
    tell(clusters.ensure(e.key), { type: 'tick' });
  }

  function dependentEvent(e: ObjectEvent): void {
    const ns = namespaceOf(e.key);
    // A Cluster changed (paused, infrastructure ready, endpoint): wake its MaasClusters and machines.
    if (e.kind === 'Cluster') {
      const name = e.key.slice(ns.length + 1);
      for (const key of seen.maasClustersOf(ns, name)) {
        const ref = clusters.get(key);
        if (ref) tell(ref, { type: 'tick' });
      }
      wakeMachines(ns, name, { type: 'tick' });
      return;
    }
    // A CAPI Machine or a Secret changed: wake the MaasMachine that depends on it (its bootstrap
    // data may just have appeared).
    const dependent = seen.dependentOf(e.kind, e.key);
    const ref = dependent ? machines.get(dependent) : undefined;
    const object = dependent ? seen.get('MaasMachine', dependent) : undefined;
    if (ref && object) tell(ref, { type: 'observed', object });
  }

  return {
    event(e) {
      // Before the deletion is applied: a deleted MaasMachine's cluster is known only from here.
      const cluster = e.kind === 'MaasMachine' && e.type === 'deleted' ? clusterName(e.key) : undefined;
      seen.apply(e);
      if (e.kind === 'MaasMachine') return e.type === 'deleted' ? deletedMachine(e.key, cluster) : machineEvent(e);
      if (e.kind === 'MaasCluster') return clusterEvent(e);
      return dependentEvent(e);
    },
    machine: (key) => machines.get(key),
    cluster: (key) => clusters.get(key),
  };

  function deletedMachine(key: string, cluster: string | undefined): void {
    machines.stop(key);
    wakeClusters(key, cluster);
  }
}

/**
 * A MAAS actor that keeps crashing is marked on its object, as a host is (node/mark-crashed.ts):
 * a Ready=False condition with the reason, and for a MaasMachine Cluster API's failure fields.
 * Nothing restarts it until the object changes.
 */
export async function markMaasCrashed(store: ObjectStore, log: Logger, kind: 'MaasMachine' | 'MaasCluster', key: string, error: unknown, restarts: number, fence?: Fence): Promise<void> {
  const message = `${kind} actor crashed ${restarts} times, last: ${describe(error)}; metalfleet stopped driving it — fix the cause, then change the ${kind} (for example annotate it) to retry`;
  log.error({ kind, key, restarts, err: describe(error) }, 'actor gave up');
  try {
    const object = await store.get(kind, key);
    if (!object) return;
    const status = (object.status ?? {}) as { conditions?: ReadonlyArray<{ type: string }> } & Record<string, unknown>;
    const condition = { type: 'Ready', status: 'False', reason: 'ActorCrashed', message, lastTransitionTime: new Date().toISOString() };
    const conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Ready'), condition];
    const failure = kind === 'MaasMachine' ? { failureReason: 'ActorCrashed', failureMessage: message } : {};
    await store.writeStatus(kind, key, { ...status, ...failure, conditions }, fence);
  } catch (err) {
    log.error({ kind, key, err: describe(err) }, 'recording the crash in status failed');
  }
}

function namespaceOf(key: string): string {
  return key.split('/')[0] ?? 'default';
}

function describe(err: unknown): string {
  return errorMessage(err);
}
