import type { Fence, FenceRefusal, Logger, MaasDriver, Provisioner, ResourceStore } from '../ports/index.ts';
import type { BackendCalls } from '../actors/calls/index.ts';
import type { CapacityMsg } from '../actors/capacity/index.ts';
import type { HostMsg, HostSnapshot, SecretWatch } from '../actors/host/index.ts';
import { hostBinding } from '../actors/host/index.ts';
import type { MaasClusterMsg, MaasMachineMsg } from '../actors/maas/index.ts';
import { maasBinding } from '../actors/maas/index.ts';
import type { MaasRouter } from '../actors/maas/index.ts';
import type { ActorRef, ActorSystem, Clock } from '../actors/runtime/index.ts';
import { ask, startSystem, systemClock } from '../actors/runtime/index.ts';
import type { ShardBinding, ShardMsg } from '../actors/shard/index.ts';
import { askBinding } from '../actors/shard/index.ts';
import { MachineChanges } from '../actors/machine/index.ts';
import { errorMessage } from '../api/index.ts';
import { kindNamed } from '../machines/kinds.ts';
import type { MaasMachineConfig, MaasMachineState } from '../machines/maas-machine/index.ts';
import type { NodeConfig } from './config.ts';
import { FleetStats } from './fleet-stats.ts';
import { attachStores } from './attach.ts';
import type { ShardOwnershipEvents } from './kind-host.ts';
import { startKindHost } from './kind-host.ts';
import { leaseGuardedDriver } from './lease-guarded-driver.ts';
import { markCrashed } from './mark-crashed.ts';

export type { ShardOwnershipEvents };

/** The MAAS kinds on this node: MaasMachines and MaasClusters, on the node's one store. */
export interface ShardHostMaas {
  readonly driver: MaasDriver;
  readonly config: MaasMachineConfig;
  readonly clusterResyncMs: number;
}

export interface ShardHostDeps {
  /** Every kind's objects: the hosts' and, with `maas`, the MAAS kinds' and those they read. */
  readonly store: ResourceStore;
  readonly provisioner: Provisioner;
  /** The local proxy of the cluster's capacity broker (or a local broker in tests), spawned in the node's system. */
  readonly broker: (system: ActorSystem) => ActorRef<CapacityMsg>;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Called after a shard's actors started or stopped (commands subscribe/unsubscribe here). */
  readonly onShardStarted?: (shard: number, fence: Fence, leaseHeld?: () => boolean) => void;
  readonly onShardStopped?: (shard: number) => void;
  /** Changes of the Secrets hosts read, one Secret at a time (a host waiting for one subscribes). */
  readonly secrets?: SecretWatch;
  /** As NodeDeps.attach: starts a store that runs as an actor, before the node reads it. */
  readonly attach?: (system: ActorSystem) => Promise<void>;
  /** With a MAAS backend: its kinds are hosted in the same shards as the hosts. */
  readonly maas?: ShardHostMaas;
  /** As KindHostOptions.nodeLeaseHeld: the leader Lease of a Kubernetes-only node. */
  readonly nodeLeaseHeld?: () => boolean;
  /** Told when a MAAS owner record refuses a shard's fence (the store's and provisioner's come wrapped). */
  readonly onFenceRefused?: (refusal: FenceRefusal) => void;
  /** The node's per-backend bound on calls that hold no slot, shared by every kind's actors. */
  readonly calls?: BackendCalls;
}

export interface ShardHostOptions extends NodeConfig {
  /** How long a hand-off waits for calls in flight before giving the shard up anyway. */
  readonly drainTimeoutMs: number;
}

/** What the node shows of its MAAS kinds (the actors themselves are the kind host's). */
export interface MaasShards {
  machineState(key: string, timeoutMs: number): Promise<MaasMachineState | null>;
  dns(clusterKey: string, timeoutMs: number): Promise<{ dnsName: string | null; ips: readonly string[] } | null>;
}

export interface ShardHost {
  readonly system: ActorSystem;
  /** Every kind's objects driven here, fed by `changes`. */
  readonly stats: FleetStats;
  /** The node's one change stream: every kind's actors report each change of their view here. */
  readonly changes: MachineChanges;
  readonly ownership: ShardOwnershipEvents;
  owned(): ReadonlyMap<number, Fence>;
  snapshot(key: string): Promise<HostSnapshot | null>;
  /** True when the host's shard is owned here (commands check it before applying). */
  owns(key: string): boolean;
  readonly shardCount: number;
  /** The MAAS kinds, when the node has a MAAS backend. */
  readonly maas: MaasShards | null;
  /** When this node took the shard (clock ms), or null when it does not own it. */
  acquiredAt(shard: number): number | null;
  stop(timeoutMs?: number): Promise<void>;
}

// The actor system of a node and its one kind host, binding BareMetalHosts and (with a MAAS
// backend) the MAAS kinds: both run in the same shards, under the same supervision, drain and
// seeding; only their bindings differ.
export async function startShardHost(config: ShardHostOptions, deps: ShardHostDeps): Promise<ShardHost> {
  const clock = deps.clock ?? systemClock;
  const system = startSystem({
    name: config.name,
    clock,
    onError: (failure) => deps.log.error({ actor: failure.path, phase: failure.phase, err: describe(failure.error) }, 'actor failure'),
  });
  await attachStores(system, deps.attach);
  const changes = new MachineChanges();
  const stats = new FleetStats(() => clock.now());
  changes.subscribe((change, shard) => stats.changed(change, shard));
  const broker = deps.broker(system);

  const hosts = hostBinding({
    store: deps.store, provisioner: deps.provisioner, broker, clock, config: config.machine,
    log: deps.log, random: deps.random ?? Math.random, grantTtlMs: config.capacity.ttlMs, observer: stats, changes,
    ...(deps.secrets ? { secrets: deps.secrets } : {}),
    ...(deps.calls ? { calls: deps.calls } : {}),
    gaveUp: (key, error, restarts) => void markCrashed(deps.store, deps.log, key, error, restarts),
  });
  const maas = deps.maas ? maasShards(deps.maas, { store: deps.store, broker, clock, log: deps.log, grantTtlMs: config.capacity.ttlMs, changes, ...(deps.onFenceRefused ? { onFenceRefused: deps.onFenceRefused } : {}), ...(deps.calls ? { calls: deps.calls } : {}) }) : null;
  const bindings: Array<ShardBinding<unknown>> = [hosts];
  if (maas) bindings.push(maas.binding);

  const host = startKindHost({
    shardCount: config.shardCount, supervision: config.supervision, drainTimeoutMs: config.drainTimeoutMs,
    system, clock, log: deps.log, bindings,
    ...(deps.onShardStarted ? { onShardStarted: deps.onShardStarted } : {}),
    ...(deps.onShardStopped ? { onShardStopped: deps.onShardStopped } : {}),
    ...(deps.nodeLeaseHeld ? { nodeLeaseHeld: deps.nodeLeaseHeld } : {}),
    // Its objects are the next owner's to report.
    onShardDropped: (shard) => stats.forgetShard(shard),
  });

  const hostRef = async (key: string): Promise<ActorRef<HostMsg> | null> => {
    const shard = host.shardRef(key);
    if (!shard) return null;
    return (await askBinding(shard, hosts, (router) => router.ref(key), config.askTimeoutMs)) ?? null;
  };

  return {
    system,
    stats,
    changes,
    ownership: host.ownership,
    owned: () => host.owned(),
    owns: (key) => host.shardRef(key) !== undefined,
    shardCount: config.shardCount,
    maas: maas ? maas.view(host.shardRef, config.askTimeoutMs) : null,
    acquiredAt: (shard) => host.acquiredAt(shard),
    async snapshot(key) {
      const ref = await hostRef(key);
      if (!ref) return null;
      return ask<HostMsg, HostSnapshot | null>(ref, (reply) => ({ type: 'snapshot', reply }), config.askTimeoutMs);
    },
    async stop(timeoutMs = 5_000) {
      host.close();
      await system.drain(timeoutMs);
    },
  };
}

// The MAAS binding of a node, and what the node asks its actors (a machine's whole state for
// inspect, a cluster's DNS record); what they report goes to the node's change stream.
function maasShards(o: ShardHostMaas, c: { store: ResourceStore; broker: ActorRef<CapacityMsg>; clock: Clock; log: Logger; grantTtlMs: number; changes: MachineChanges; onFenceRefused?: (refusal: FenceRefusal) => void; calls?: BackendCalls }) {
  const binding = maasBinding({
    store: c.store, broker: c.broker, clock: c.clock, log: c.log, config: o.config, grantTtlMs: c.grantTtlMs, clusterResyncMs: o.clusterResyncMs,
    driverFor: (fence, leaseHeld) => (leaseHeld ? leaseGuardedDriver(o.driver, leaseHeld, fence, c.onFenceRefused) : o.driver),
    changes: c.changes,
    ...(c.calls ? { calls: c.calls } : {}),
  });
  // Where an object's actor runs: its shard key as its kind declares it, from the stored object.
  const clusterKeyOfStored = async (kind: 'MaasMachine' | 'MaasCluster', key: string): Promise<string | null> => {
    const object = await c.store.get(kind, key);
    const declared = kindNamed(kind);
    return object && declared ? declared.shardKey(object) : null;
  };
  return {
    binding,
    view(shardRef: (shardKey: string) => ActorRef<ShardMsg> | undefined, askTimeoutMs: number): MaasShards {
      const routerAsk = async <T>(kind: 'MaasMachine' | 'MaasCluster', key: string, question: (router: MaasRouter) => T, timeoutMs: number): Promise<T | null> => {
        const home = await clusterKeyOfStored(kind, key);
        const shard = home === null ? undefined : shardRef(home);
        return shard ? askBinding(shard, binding, question, timeoutMs) : null;
      };
      return {
        async machineState(key, timeoutMs = askTimeoutMs) {
          const ref = await routerAsk('MaasMachine', key, (r) => r.machine(key), timeoutMs);
          return ref ? ask<MaasMachineMsg, MaasMachineState | null>(ref, (reply) => ({ type: 'snapshot', reply }), timeoutMs) : null;
        },
        async dns(key, timeoutMs = askTimeoutMs) {
          const ref = await routerAsk('MaasCluster', key, (r) => r.cluster(key), timeoutMs);
          return ref ? ask<MaasClusterMsg, { dnsName: string | null; ips: readonly string[] }>(ref, (reply) => ({ type: 'snapshot', reply }), timeoutMs) : null;
        },
      };
    },
  };
}

function describe(err: unknown): string {
  return errorMessage(err);
}
