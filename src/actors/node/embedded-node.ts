import type { MachineConfig } from '../../machines/bmh/index.ts';
import type { HostEvent, HostStore, Logger, MaasDriver, ObjectStore, Provisioner } from '../../ports/index.ts';
import type { MaasMachineConfig, MaasMachineState } from '../../machines/maas-machine/index.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG } from '../../machines/maas-machine/index.ts';
import type { MaasRuntime } from '../maas/index.ts';
import { startMaas } from '../maas/index.ts';
import { hostKey } from '../../ports/index.ts';
import type { CapacityFigures, CapacityMsg } from '../capacity/index.ts';
import { spawnCapacityBroker } from '../capacity/index.ts';
import type { HostMsg, HostSnapshot } from '../host/index.ts';
import type { ActorRef, ActorSystem, Clock } from '../runtime/index.ts';
import { ask, startSystem, systemClock, tell } from '../runtime/index.ts';
import type { ShardMsg } from '../shard/index.ts';
import { shardOf } from '../shard/index.ts';
import { spawnShard } from './spawn-shard.ts';
import { FleetStats } from './fleet-stats.ts';
import { HostDetails } from './introspection-source.ts';
import { attachStores } from './attach.ts';

export interface NodeConfig {
  readonly name: string;
  readonly shardCount: number;
  readonly machine: MachineConfig;
  readonly capacity: { readonly limits: Readonly<Record<string, number>>; readonly defaultLimit: number; readonly ttlMs: number };
  readonly supervision: { maxRestarts: number; windowMs: number; backoff: { initialMs: number; maxMs: number } };
  readonly askTimeoutMs: number;
}

export interface NodeDeps {
  readonly store: HostStore;
  readonly provisioner: Provisioner;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
  // The MAAS side (MaasMachines, MaasClusters), when this node drives a MAAS.
  readonly maas?: { readonly store: ObjectStore; readonly driver: MaasDriver; readonly config?: Partial<MaasMachineConfig>; readonly clusterResyncMs?: number };
  /**
   * Runs in the node's actor system before anything reads the stores: a store that is itself an
   * actor (the Kubernetes adapter's informers) starts here and resolves once it has its data.
   */
  readonly attach?: (system: ActorSystem) => Promise<void>;
}

export interface EmbeddedNode {
  readonly system: ActorSystem;
  readonly broker: ActorRef<CapacityMsg>;
  readonly stats: FleetStats;
  readonly maas: MaasRuntime | null;
  readonly shardCount: number;
  /** Per-host time in state and error message, for introspection (fed with `stats`). */
  readonly details: HostDetails;
  /** Shards with actors, and when each was started (clock ms). */
  shards(): ReadonlyMap<number, number>;
  /** The newest state of each MaasMachine, and since when (clock ms) its MAAS state is what it is. */
  maasMachines(): ReadonlyMap<string, { readonly state: MaasMachineState; readonly since: number }>;
  snapshot(key: string): Promise<HostSnapshot | null>;
  capacity(): Promise<CapacityFigures>;
  stop(timeoutMs?: number): Promise<void>;
}

// One node owning every shard: the embedded default (memory store, no NATS). The cluster node
// of the NATS mode owns a subset of shards through leases and reuses the same shard actors.
export async function startEmbeddedNode(config: NodeConfig, deps: NodeDeps): Promise<EmbeddedNode> {
  const clock = deps.clock ?? systemClock;
  const system = startSystem({
    name: config.name,
    clock,
    onError: (failure) => deps.log.error({ actor: failure.path, phase: failure.phase, err: describe(failure.error) }, 'actor failure'),
  });
  await attachStores(system, deps.attach);
  const stats = new FleetStats();
  const details = new HostDetails(stats, clock);
  const broker = spawnCapacityBroker(system, { limits: config.capacity.limits, defaultLimit: config.capacity.defaultLimit, ttlMs: config.capacity.ttlMs, clock });
  const shards = new Map<number, ActorRef<ShardMsg>>();
  const shardStarted = new Map<number, number>();
  const hostDeps = {
    store: deps.store,
    provisioner: deps.provisioner,
    broker,
    clock,
    config: config.machine,
    log: deps.log,
    random: deps.random ?? Math.random,
    grantTtlMs: config.capacity.ttlMs,
    observer: details,
  };

  const shardFor = (key: string): ActorRef<ShardMsg> => {
    const n = shardOf(key, config.shardCount);
    let ref = shards.get(n);
    if (!ref) {
      ref = spawnShard(system, `shard-${n}`, n, hostDeps, config.supervision);
      shards.set(n, ref);
      shardStarted.set(n, clock.now());
    }
    return ref;
  };

  const machines = new Map<string, { state: MaasMachineState; since: number }>();
  const machineChanged = (key: string, state: MaasMachineState): void => {
    const before = machines.get(key);
    if (state.gone) {
      machines.delete(key);
      return;
    }
    const same = before !== undefined && before.state.status.machineState === state.status.machineState;
    machines.set(key, { state, since: same ? before.since : clock.now() });
  };
  const maas = deps.maas
    ? await startMaas(system, {
      store: deps.maas.store, driver: deps.maas.driver, broker, clock, log: deps.log,
      config: { ...DEFAULT_MAAS_MACHINE_CONFIG, ...deps.maas.config }, grantTtlMs: config.capacity.ttlMs,
      clusterResyncMs: deps.maas.clusterResyncMs ?? 30_000, random: deps.random ?? Math.random, onMachineChange: machineChanged,
    })
    : null;

  const route = (event: HostEvent): void => {
    if (event.type === 'upsert') tell(shardFor(hostKey(event.host)), { type: 'upsert', host: event.host });
    else tell(shardFor(event.key), { type: 'deleted', key: event.key });
  };
  // Subscribe before listing so nothing falls between; a duplicate is harmless (level-triggered).
  const unwatch = deps.store.watch(route);
  for (const host of await deps.store.list()) route({ type: 'upsert', host });

  return {
    system,
    broker,
    stats,
    maas,
    shardCount: config.shardCount,
    details,
    shards: () => shardStarted,
    maasMachines: () => machines,
    async snapshot(key) {
      const ref = await ask<ShardMsg, ActorRef<HostMsg> | null>(shardFor(key), (reply) => ({ type: 'hostRef', key, reply }), config.askTimeoutMs);
      if (!ref) return null;
      return ask<HostMsg, HostSnapshot | null>(ref, (reply) => ({ type: 'snapshot', reply }), config.askTimeoutMs);
    },
    capacity: () => ask<CapacityMsg, CapacityFigures>(broker, (reply) => ({ type: 'figures', reply }), config.askTimeoutMs),
    async stop(timeoutMs = 5_000) {
      unwatch();
      maas?.stop();
      await system.drain(timeoutMs);
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
