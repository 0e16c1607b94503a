import type { Fence, HostEvent, HostStore, Logger, Provisioner } from '../ports/index.ts';
import { hostKey } from '../ports/index.ts';
import type { CapacityMsg } from '../actors/capacity/index.ts';
import type { HostMsg, HostSnapshot, SecretWatch } from '../actors/host/index.ts';
import type { ActorRef, ActorSystem, Clock } from '../actors/runtime/index.ts';
import { ask, startSystem, stop, systemClock, tell } from '../actors/runtime/index.ts';
import type { ShardMsg } from '../actors/shard/index.ts';
import { shardOf } from '../api/index.ts';
import type { NodeConfig } from './config.ts';
import { spawnShard } from './spawn-shard.ts';
import { FleetStats } from './fleet-stats.ts';
import { HostDetails } from './introspection-source.ts';
import { attachStores } from './attach.ts';

/** What the shard leases tell the node; the node answers by starting or stopping shard actors. */
export interface ShardOwnershipEvents {
  /** `held`: is the shard's lease still safely held right now (see ShardLeaseEvents)? */
  acquired(shard: number, fence: Fence, held?: () => boolean): void;
  /** The lease is gone (or about to be): stop at once, before anyone else may take the shard. */
  lost(shard: number, reason: string): void;
  /** Graceful hand-off: finish calls in flight, then stop; the lease is released afterwards. */
  release(shard: number): Promise<void>;
}

export interface ShardHostDeps {
  readonly store: HostStore;
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
}

export interface ShardHostOptions extends NodeConfig {
  /** How long a hand-off waits for calls in flight before giving the shard up anyway. */
  readonly drainTimeoutMs: number;
}

interface OwnedShard {
  readonly ref: ActorRef<ShardMsg>;
  readonly fence: Fence;
}

export interface ShardHost {
  readonly system: ActorSystem;
  readonly stats: FleetStats;
  readonly ownership: ShardOwnershipEvents;
  owned(): ReadonlyMap<number, Fence>;
  snapshot(key: string): Promise<HostSnapshot | null>;
  /** True when the host's shard is owned here (commands check it before applying). */
  owns(key: string): boolean;
  readonly shardCount: number;
  /** Per-host time in state and error message, for introspection (fed with `stats`). */
  readonly details: HostDetails;
  /** When this node took the shard (clock ms), or null when it does not own it. */
  acquiredAt(shard: number): number | null;
  stop(timeoutMs?: number): Promise<void>;
}

// The actor system of a node and the shard actors it runs: only for the shards whose leases it
// holds (on a one-node memory substrate, that is every shard). Store events for other shards are
// ignored here; their owners see the same events through their own watch.
export async function startShardHost(config: ShardHostOptions, deps: ShardHostDeps): Promise<ShardHost> {
  const clock = deps.clock ?? systemClock;
  const system = startSystem({
    name: config.name,
    clock,
    onError: (failure) => deps.log.error({ actor: failure.path, phase: failure.phase, err: describe(failure.error) }, 'actor failure'),
  });
  await attachStores(system, deps.attach);
  const stats = new FleetStats();
  const details = new HostDetails(stats, clock);
  const broker = deps.broker(system);
  const shards = new Map<number, OwnedShard>();
  const fences = new Map<number, Fence>();
  const acquiredAt = new Map<number, number>();

  // Shards won together (a node starting, or taking over a dead node's) share one listing of
  // the store: a listing per shard would read every host once per shard.
  let seeding: Map<number, ActorRef<ShardMsg>> | null = null;
  const seed = (shard: number, ref: ActorRef<ShardMsg>): void => {
    if (seeding) {
      seeding.set(shard, ref);
      return;
    }
    const batch = new Map([[shard, ref]]);
    seeding = batch;
    setImmediate(() => {
      seeding = null;
      // The new owner re-reads its hosts: status in the store is the truth, not anyone's memory.
      deps.store.list().then((hosts) => {
        for (const host of hosts) {
          const n = shardOf(hostKey(host), config.shardCount);
          const target = batch.get(n);
          if (target && shards.get(n)?.ref === target) tell(target, { type: 'upsert', host });
        }
      }, (err: unknown) => deps.log.error({ shards: [...batch.keys()], err: describe(err) }, 'listing the hosts of acquired shards failed'));
    });
  };

  const startShard = (shard: number, fence: Fence, leaseHeld?: () => boolean): void => {
    // An epoch in the name: a shard lost and won again never collides with its stopping self.
    const ref = spawnShard(system, `shard-${shard}-e${fence.epoch}`, shard, {
      store: deps.store, provisioner: deps.provisioner, broker, clock, config: config.machine,
      log: deps.log, random: deps.random ?? Math.random, grantTtlMs: config.capacity.ttlMs, observer: details, fence,
      ...(leaseHeld ? { leaseHeld } : {}),
      ...(deps.secrets ? { secrets: deps.secrets } : {}),
    }, config.supervision);
    shards.set(shard, { ref, fence });
    fences.set(shard, fence);
    acquiredAt.set(shard, clock.now());
    deps.log.info({ shard, epoch: fence.epoch }, 'shard actors started');
    deps.onShardStarted?.(shard, fence, leaseHeld);
    seed(shard, ref);
  };

  const forget = (shard: number): OwnedShard | undefined => {
    const owned = shards.get(shard);
    if (!owned) return undefined;
    shards.delete(shard);
    fences.delete(shard);
    acquiredAt.delete(shard);
    deps.onShardStopped?.(shard);
    return owned;
  };

  const dropHostsOf = (shard: number): void => {
    for (const key of [...stats.hosts.keys()]) if (shardOf(key, config.shardCount) === shard) details.gone(key);
  };

  const ownership: ShardOwnershipEvents = {
    acquired(shard, fence, held) {
      if (shards.has(shard)) return;
      startShard(shard, fence, held);
    },
    lost(shard, reason) {
      const owned = forget(shard);
      if (!owned) return;
      stop(owned.ref);
      dropHostsOf(shard);
      deps.log.warn({ shard, epoch: owned.fence.epoch, reason }, 'shard lost: its actors stopped');
    },
    async release(shard) {
      const owned = forget(shard);
      if (!owned) return;
      try {
        const result = await ask<ShardMsg, { drained: number; stuck: string[] }>(owned.ref, (reply) => ({ type: 'drain', timeoutMs: config.drainTimeoutMs, reply }), config.drainTimeoutMs + 1_000);
        if (result.stuck.length > 0) deps.log.warn({ shard, stuck: result.stuck.slice(0, 10) }, 'hand-off: hosts still busy at the drain deadline');
      } catch (err) {
        deps.log.warn({ shard, err: describe(err) }, 'hand-off: drain did not answer');
      }
      stop(owned.ref);
      dropHostsOf(shard);
      deps.log.info({ shard, epoch: owned.fence.epoch }, 'shard handed off');
    },
  };

  const route = (event: HostEvent): void => {
    const key = event.type === 'upsert' ? hostKey(event.host) : event.key;
    const owned = shards.get(shardOf(key, config.shardCount));
    if (!owned) return;
    tell(owned.ref, event.type === 'upsert' ? { type: 'upsert', host: event.host } : { type: 'deleted', key });
  };
  // Only this node's hosts: a store may then leave the others' changes unparsed.
  const unwatch = deps.store.watch(route, { keys: (key) => shards.has(shardOf(key, config.shardCount)) });

  const hostRef = async (key: string): Promise<ActorRef<HostMsg> | null> => {
    const owned = shards.get(shardOf(key, config.shardCount));
    if (!owned) return null;
    return ask<ShardMsg, ActorRef<HostMsg> | null>(owned.ref, (reply) => ({ type: 'hostRef', key, reply }), config.askTimeoutMs);
  };

  return {
    system,
    stats,
    ownership,
    owned: () => fences,
    owns: (key) => shards.has(shardOf(key, config.shardCount)),
    shardCount: config.shardCount,
    details,
    acquiredAt: (shard) => acquiredAt.get(shard) ?? null,
    async snapshot(key) {
      const ref = await hostRef(key);
      if (!ref) return null;
      return ask<HostMsg, HostSnapshot | null>(ref, (reply) => ({ type: 'snapshot', reply }), config.askTimeoutMs);
    },
    async stop(timeoutMs = 5_000) {
      unwatch();
      await system.drain(timeoutMs);
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
