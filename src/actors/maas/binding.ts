import { MAAS_CLUSTER_KIND, MAAS_MACHINE_KIND, errorMessage } from '../../api/index.ts';
import type { MaasMachineConfig, MaasMachineState } from '../../machines/maas-machine/index.ts';
import type { Fence, Logger, MaasDriver, ObjectEvent, ObjectKind, ObjectStore, StoredObject } from '../../ports/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import type { ActorRef, Clock } from '../runtime/index.ts';
import { tell } from '../runtime/index.ts';
import type { KindActors, KindRouter, ShardBinding, ShardScope } from '../shard/index.ts';
import { CLUSTER_LABEL, clusterNameOf } from './context.ts';
import type { MaasClusterMsg } from './maas-cluster-actor.ts';
import { maasClusterBehavior } from './maas-cluster-actor.ts';
import type { MaasMachineMsg } from './maas-machine-actor.ts';
import { maasMachineBehavior } from './maas-machine-actor.ts';

// The MAAS kinds as a shard hosts them. A Cluster API cluster is the unit of sharding: its
// MaasCluster, MaasMachines, Machines and Cluster all route by `namespace/cluster`, so one owner
// keeps the cluster's DNS record and the delete order of its control plane (a machine leaves the
// record before it is released) without coordinating across nodes.

const ROUTED: readonly ObjectKind[] = ['MaasCluster', 'MaasMachine', 'Machine', 'Cluster'];

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
  /** A MaasMachine stepped (its shard, for the node's per-shard view). */
  readonly onMachineChange?: (shard: number, key: string, state: MaasMachineState) => void;
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
      // Clusters first: a machine's first look finds its cluster's actor there.
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

interface Index {
  // Who depends on what, from the CAPI Machines seen: "<ns>/<machine>" and "<ns>/<bootstrap
  // secret>" to the MaasMachine key, so a change wakes its dependents only, not a namespace.
  readonly byMachine: Map<string, string>;
  readonly bySecret: Map<string, string>;
  // "<ns>/<MaasMachine>" to the name of its cluster, to wake a cluster's machines only.
  readonly clusterOf: Map<string, string>;
}

// Spawns an actor per MaasMachine and per MaasCluster on demand and routes store events: spec
// changes to the object's own actor, a machine's status to its cluster (DNS), a Machine or
// Secret change to the MaasMachines that depend on it, a Cluster change (pause, infrastructure)
// and a MaasCluster's status (ready, DNS name) to the cluster's machines, and a DNS change of a
// MaasCluster to its machines.
function openMaasRouter(scope: ShardScope, deps: MaasBindingDeps): MaasRouter {
  const driver = deps.driverFor(scope.fence, scope.leaseHeld);
  const ix: Index = { byMachine: new Map(), bySecret: new Map(), clusterOf: new Map() };
  const machineDeps = {
    store: deps.store, driver, broker: deps.broker, clock: deps.clock, config: deps.config, log: deps.log, grantTtlMs: deps.grantTtlMs, fence: scope.fence,
    ...(deps.onMachineChange ? { onChange: (key: string, state: MaasMachineState) => deps.onMachineChange?.(scope.shard, key, state) } : {}),
  };
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
      store: deps.store, driver, clock: deps.clock, log: deps.log, resyncMs: deps.clusterResyncMs, fence: scope.fence,
      // A MaasCluster changed its DNS record: its control-plane machines read it again.
      onDnsChanged: () => scope.later(() => dnsChanged(key)),
    }),
    drainable: (ref) => ref,
    gaveUp: (key, error, restarts) => void markMaasCrashed(deps.store, deps.log, 'MaasCluster', key, error, restarts, scope.fence),
  });

  async function dnsChanged(clusterKey: string): Promise<void> {
    const mc = await deps.store.get('MaasCluster', clusterKey);
    if (mc) wakeMachines(namespaceOf(clusterKey), clusterNameOf(mc), { type: 'dnsChanged' });
  }

  function wakeMachines(ns: string, cluster: string, msg: MaasMachineMsg): void {
    for (const [key, ref] of machines.entries()) if (key.startsWith(`${ns}/`) && ix.clusterOf.get(key) === cluster) tell(ref, msg);
  }

  async function wakeCluster(machineKey: string, cluster: string | undefined): Promise<void> {
    const ns = namespaceOf(machineKey);
    for (const [key, ref] of [...clusters.entries()]) {
      if (!key.startsWith(`${ns}/`)) continue;
      const obj = cluster === undefined ? undefined : await deps.store.get('MaasCluster', key);
      const name = obj ? clusterNameOf(obj) : undefined;
      if (cluster === undefined || name === cluster) tell(ref, { type: 'tick' });
    }
  }

  async function machineEvent(e: ObjectEvent): Promise<void> {
    if (e.type === 'deleted') {
      machines.stop(e.key);
      ix.clusterOf.delete(e.key);
      return wakeCluster(e.key, undefined);
    }
    const clusterName = e.object.metadata.labels?.[CLUSTER_LABEL];
    if (e.change === 'status') return wakeCluster(e.key, clusterName);
    if (clusterName) ix.clusterOf.set(e.key, clusterName);
    tell(machines.ensure(e.key), { type: 'observed', object: e.object });
    return wakeCluster(e.key, clusterName);
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

  async function dependentEvent(e: ObjectEvent): Promise<void> {
    const ns = namespaceOf(e.key);
    // A Cluster changed (paused, infrastructure ready, endpoint): wake its MaasClusters and machines.
    if (e.kind === 'Cluster') {
      for (const [key, ref] of clusters.entries()) if (key.startsWith(`${ns}/`)) tell(ref, { type: 'tick' });
      wakeMachines(ns, e.key.slice(ns.length + 1), { type: 'tick' });
      return;
    }
    // A CAPI Machine or a Secret changed: wake the MaasMachine that depends on it (its bootstrap
    // data may just have appeared).
    if (e.kind === 'Machine' && e.type === 'upsert') {
      const spec = (e.object.spec ?? {}) as { infrastructureRef?: { name?: string }; bootstrap?: { dataSecretName?: string }; clusterName?: string };
      const target = spec.infrastructureRef?.name;
      if (target) {
        ix.byMachine.set(e.key, `${ns}/${target}`);
        if (spec.clusterName && !ix.clusterOf.has(`${ns}/${target}`)) ix.clusterOf.set(`${ns}/${target}`, spec.clusterName);
        if (spec.bootstrap?.dataSecretName) ix.bySecret.set(`${ns}/${spec.bootstrap.dataSecretName}`, `${ns}/${target}`);
      }
    }
    const dependent = e.kind === 'Machine' ? ix.byMachine.get(e.key) : e.kind === 'Secret' ? ix.bySecret.get(e.key) : undefined;
    const ref = dependent ? machines.get(dependent) : undefined;
    if (ref && dependent) {
      const object = await deps.store.get('MaasMachine', dependent);
      if (object) tell(ref, { type: 'observed', object });
    }
  }

  return {
    event(e) {
      if (e.kind === 'MaasMachine') return machineEvent(e);
      if (e.kind === 'MaasCluster') return clusterEvent(e);
      return dependentEvent(e);
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
