import type { MaasMachineConfig, MaasMachineState } from '../../machines/maas-machine/index.ts';
import type { Fence, Logger, MaasDriver, ObjectEvent, ObjectStore, StoredObject } from '../../ports/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import type { ActorRef, ActorSystem, AnyActorRef, Behavior, Clock, Reply } from '../runtime/index.ts';
import { ask, spawn, stop, tell } from '../runtime/index.ts';
import { CLUSTER_LABEL, clusterNameOf } from './context.ts';
import type { MaasClusterMsg } from './maas-cluster-actor.ts';
import { maasClusterBehavior } from './maas-cluster-actor.ts';
import type { MaasMachineMsg } from './maas-machine-actor.ts';
import { maasMachineBehavior } from './maas-machine-actor.ts';

export type MaasSupervisorMsg =
  | { type: 'event'; event: ObjectEvent }
  | { type: 'machine'; key: string; reply: Reply<ActorRef<MaasMachineMsg> | null> }
  | { type: 'cluster'; key: string; reply: Reply<ActorRef<MaasClusterMsg> | null> }
  // A MaasCluster changed its DNS record: its control-plane machines read it again.
  | { type: 'dnsChanged'; clusterKey: string };

export interface MaasOptions {
  readonly store: ObjectStore;
  readonly driver: MaasDriver;
  readonly broker: ActorRef<CapacityMsg>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: MaasMachineConfig;
  readonly grantTtlMs: number;
  readonly clusterResyncMs: number;
  readonly onMachineChange?: (key: string, state: MaasMachineState) => void;
  /** The shard lease the actors run under (a sharded node): stamped on every write. */
  readonly fence?: Fence;
}

interface SupervisorState {
  readonly machines: Map<string, ActorRef<MaasMachineMsg>>;
  readonly clusters: Map<string, ActorRef<MaasClusterMsg>>;
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
export function maasSupervisorBehavior(o: MaasOptions): Behavior<SupervisorState, MaasSupervisorMsg> {
  return {
    kind: 'maas-supervisor',
    init: () => ({ machines: new Map(), clusters: new Map(), byMachine: new Map(), bySecret: new Map(), clusterOf: new Map() }),
    receive: async (s, msg, ctx) => {
      if (msg.type === 'machine') {
        msg.reply(s.machines.get(msg.key) ?? null);
        return s;
      }
      if (msg.type === 'cluster') {
        msg.reply(s.clusters.get(msg.key) ?? null);
        return s;
      }
      if (msg.type === 'dnsChanged') {
        const mc = await o.store.get('MaasCluster', msg.clusterKey);
        if (mc) wakeMachines(s, namespaceOf(msg.clusterKey), clusterNameOf(mc), { type: 'dnsChanged' });
        return s;
      }
      const e = msg.event;
      const name = (key: string) => key.replace('/', '~');
      if (e.kind === 'MaasMachine') {
        if (e.type === 'deleted') {
          const ref = s.machines.get(e.key);
          if (ref) stop(ref);
          s.machines.delete(e.key);
          s.clusterOf.delete(e.key);
          await wakeCluster(s, e.key, undefined);
          return s;
        }
        if (e.change === 'status') {
          await wakeCluster(s, e.key, e.object.metadata.labels?.[CLUSTER_LABEL]);
          return s;
        }
        const clusterName = e.object.metadata.labels?.[CLUSTER_LABEL];
        if (clusterName) s.clusterOf.set(e.key, clusterName);
        let ref = s.machines.get(e.key);
        if (!ref) {
          ref = spawn(ctx.self, `mm-${name(e.key)}`, maasMachineBehavior(e.key, { store: o.store, driver: o.driver, broker: o.broker, clock: o.clock, config: o.config, log: o.log, grantTtlMs: o.grantTtlMs, ...(o.onMachineChange ? { onChange: o.onMachineChange } : {}), ...(o.fence ? { fence: o.fence } : {}) }));
          s.machines.set(e.key, ref);
        }
        tell(ref, { type: 'observed', object: e.object });
        await wakeCluster(s, e.key, e.object.metadata.labels?.[CLUSTER_LABEL]);
        return s;
      }
      if (e.kind === 'MaasCluster') {
        if (e.type === 'deleted') {
          const ref = s.clusters.get(e.key);
          if (ref) stop(ref);
          s.clusters.delete(e.key);
          return s;
        }
        // Its status says whether the infrastructure is ready and names the DNS record.
        wakeMachines(s, namespaceOf(e.key), clusterNameOf(e.object), { type: 'tick' });
        if (e.change === 'status') return s;
        let ref = s.clusters.get(e.key);
        if (!ref) {
          const self = ctx.self;
          const clusterKey = e.key;
          ref = spawn(ctx.self, `mc-${name(e.key)}`, maasClusterBehavior(e.key, {
            store: o.store, driver: o.driver, clock: o.clock, log: o.log, resyncMs: o.clusterResyncMs,
            onDnsChanged: () => tell(self, { type: 'dnsChanged', clusterKey }),
            ...(o.fence ? { fence: o.fence } : {}),
          }));
          s.clusters.set(e.key, ref);
        }
        tell(ref, { type: 'tick' });
        return s;
      }
      const ns = namespaceOf(e.key);
      // A Cluster changed (paused, infrastructure ready, endpoint): wake its MaasClusters and machines.
      if (e.kind === 'Cluster') {
        const clusterName = e.key.slice(ns.length + 1);
        for (const [key, ref] of s.clusters) if (key.startsWith(`${ns}/`)) tell(ref, { type: 'tick' });
        wakeMachines(s, ns, clusterName, { type: 'tick' });
        return s;
      }
      // A CAPI Machine or a Secret changed: wake the MaasMachine that depends on it (its
      // bootstrap data may just have appeared).
      if (e.kind === 'Machine' && e.type === 'upsert') {
        const spec = (e.object.spec ?? {}) as { infrastructureRef?: { name?: string }; bootstrap?: { dataSecretName?: string }; clusterName?: string };
        const target = spec.infrastructureRef?.name;
        if (target) {
          s.byMachine.set(e.key, `${ns}/${target}`);
          if (spec.clusterName && !s.clusterOf.has(`${ns}/${target}`)) s.clusterOf.set(`${ns}/${target}`, spec.clusterName);
          if (spec.bootstrap?.dataSecretName) s.bySecret.set(`${ns}/${spec.bootstrap.dataSecretName}`, `${ns}/${target}`);
        }
      }
      const dependent = e.kind === 'Machine' ? s.byMachine.get(e.key) : e.kind === 'Secret' ? s.bySecret.get(e.key) : undefined;
      const ref = dependent ? s.machines.get(dependent) : undefined;
      if (ref && dependent) {
        const object = await o.store.get('MaasMachine', dependent);
        if (object) tell(ref, { type: 'observed', object });
      }
      return s;
    },
  };

  function wakeMachines(s: SupervisorState, ns: string, cluster: string, msg: MaasMachineMsg): void {
    for (const [key, ref] of s.machines) if (key.startsWith(`${ns}/`) && s.clusterOf.get(key) === cluster) tell(ref, msg);
  }

  async function wakeCluster(s: SupervisorState, machineKey: string, cluster: string | undefined): Promise<void> {
    const ns = machineKey.split('/')[0];
    for (const [key, ref] of s.clusters) {
      if (!key.startsWith(`${ns}/`)) continue;
      const obj = cluster === undefined ? undefined : await o.store.get('MaasCluster', key);
      const name = obj ? clusterNameOf(obj) : undefined;
      if (cluster === undefined || name === cluster) tell(ref, { type: 'tick' });
    }
  }
}

function namespaceOf(key: string): string {
  return key.split('/')[0] ?? 'default';
}

export interface MaasRuntime {
  readonly supervisor: ActorRef<MaasSupervisorMsg>;
  machineState(key: string, timeoutMs: number): Promise<MaasMachineState | null>;
  dns(clusterKey: string, timeoutMs: number): Promise<{ dnsName: string | null; ips: readonly string[] } | null>;
  stop(): void;
}

export async function startMaas(system: ActorSystem, o: MaasOptions): Promise<MaasRuntime> {
  const supervisor = spawn(system, 'maas', maasSupervisorBehavior(o), { mailbox: { capacity: 1_000_000 } });
  const unwatch = o.store.watch((event) => tell(supervisor, { type: 'event', event }));
  for (const kind of ['MaasCluster', 'MaasMachine'] as const) {
    for (const object of await o.store.list(kind)) tell(supervisor, { type: 'event', event: { type: 'upsert', kind, key: `${object.metadata.namespace}/${object.metadata.name}`, object, change: 'spec' } });
  }
  return {
    supervisor,
    async machineState(key, timeoutMs) {
      const ref = await ask<MaasSupervisorMsg, ActorRef<MaasMachineMsg> | null>(supervisor, (reply) => ({ type: 'machine', key, reply }), timeoutMs);
      return ref ? ask<MaasMachineMsg, MaasMachineState | null>(ref, (reply) => ({ type: 'snapshot', reply }), timeoutMs) : null;
    },
    async dns(key, timeoutMs) {
      const ref = await ask<MaasSupervisorMsg, ActorRef<MaasClusterMsg> | null>(supervisor, (reply) => ({ type: 'cluster', key, reply }), timeoutMs);
      return ref ? ask<MaasClusterMsg, { dnsName: string | null; ips: readonly string[] }>(ref, (reply) => ({ type: 'snapshot', reply }), timeoutMs) : null;
    },
    stop: unwatch,
  };
}

/**
 * The MAAS actors of one shard (a sharded node): the supervisor alone, fed by the node's router
 * with the events of the clusters whose shard this is; `seed` gives it what the store holds now.
 */
export function spawnMaasShard(parent: ActorSystem | AnyActorRef, name: string, o: MaasOptions): { readonly ref: ActorRef<MaasSupervisorMsg>; seed(objects: ReadonlyArray<{ kind: 'MaasCluster' | 'MaasMachine' | 'Machine' | 'Cluster'; object: StoredObject }>): void } {
  const ref = spawn(parent, name, maasSupervisorBehavior(o), { mailbox: { capacity: 1_000_000 } });
  return {
    ref,
    seed(objects) {
      for (const { kind, object } of objects) tell(ref, { type: 'event', event: { type: 'upsert', kind, key: `${object.metadata.namespace}/${object.metadata.name}`, object, change: 'spec' } });
    },
  };
}

/** Asks a supervisor for one MaasMachine's state, or one MaasCluster's DNS record. */
export async function machineStateOf(supervisor: ActorRef<MaasSupervisorMsg>, key: string, timeoutMs: number): Promise<MaasMachineState | null> {
  const ref = await ask<MaasSupervisorMsg, ActorRef<MaasMachineMsg> | null>(supervisor, (reply) => ({ type: 'machine', key, reply }), timeoutMs);
  return ref ? ask<MaasMachineMsg, MaasMachineState | null>(ref, (reply) => ({ type: 'snapshot', reply }), timeoutMs) : null;
}

export async function dnsOf(supervisor: ActorRef<MaasSupervisorMsg>, key: string, timeoutMs: number): Promise<{ dnsName: string | null; ips: readonly string[] } | null> {
  const ref = await ask<MaasSupervisorMsg, ActorRef<MaasClusterMsg> | null>(supervisor, (reply) => ({ type: 'cluster', key, reply }), timeoutMs);
  return ref ? ask<MaasClusterMsg, { dnsName: string | null; ips: readonly string[] }>(ref, (reply) => ({ type: 'snapshot', reply }), timeoutMs) : null;
}
