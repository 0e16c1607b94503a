import type { Fence, Logger } from '../ports/index.ts';
import type { ActorRef, ActorSystem, Clock } from '../actors/runtime/index.ts';
import { ask, spawn, stop, tell } from '../actors/runtime/index.ts';
import type { IndexedKind, ShardBinding, ShardMsg } from '../actors/shard/index.ts';
import { shardBehavior, shardEvent } from '../actors/shard/index.ts';
import { shardOf, errorMessage } from '../api/index.ts';
import { KINDS } from '../machines/kinds.ts';
import type { NodeConfig } from './config.ts';

/** What the shard leases tell the node; the node answers by starting or stopping shard actors. */
export interface ShardOwnershipEvents {
  /** `held`: is the shard's lease still safely held right now (see ShardLeaseEvents)? */
  acquired(shard: number, fence: Fence, held?: () => boolean): void;
  /** The lease is gone (or about to be): stop at once, before anyone else may take the shard. */
  lost(shard: number, reason: string): void;
  /** Graceful hand-off: finish calls in flight, then stop; the lease is released afterwards. */
  release(shard: number): Promise<void>;
}

// Held type-erased: each binding is paired only with its own events (watch, list, shardEvent).
type AnyBinding = ShardBinding<unknown>;

export interface KindHostOptions {
  readonly shardCount: number;
  readonly supervision: NodeConfig['supervision'];
  /** How long a hand-off waits for calls in flight before giving the shard up anyway. */
  readonly drainTimeoutMs: number;
  readonly system: ActorSystem;
  readonly clock: Clock;
  readonly log: Logger;
  /** Every kind family the shards host, each with its own store events and actors. */
  readonly bindings: readonly AnyBinding[];
  /** What each kind declares wakes it (its kind.ts); default: every registered kind's. Each shard keeps one dependents index of these. */
  readonly kinds?: readonly IndexedKind[];
  /** Called after a shard's actors started, and as soon as the shard is lost or handed off. */
  readonly onShardStarted?: (shard: number, fence: Fence, leaseHeld?: () => boolean) => void;
  readonly onShardStopped?: (shard: number) => void;
  /** Called once a lost or handed-off shard's actors are stopped (drained first on a hand-off). */
  readonly onShardDropped?: (shard: number) => void;
  /**
   * A lease the node drives under besides each shard's own (the Kubernetes leader Lease of a
   * Kubernetes-only node): every kind's backend calls leave only while both are held, asked by the
   * one check each actor makes right before a call.
   */
  readonly nodeLeaseHeld?: () => boolean;
}

export interface KindHost {
  readonly ownership: ShardOwnershipEvents;
  owned(): ReadonlyMap<number, Fence>;
  /** The shard actor of a shard key (`namespace/name`, `namespace/cluster`), or undefined when not owned here. */
  shardRef(shardKey: string): ActorRef<ShardMsg> | undefined;
  /** When this node took the shard (clock ms), or null when it does not own it. */
  acquiredAt(shard: number): number | null;
  /** Stops watching the stores (the actors stop with the system). */
  close(): void;
}

interface OwnedShard {
  readonly ref: ActorRef<ShardMsg>;
  readonly fence: Fence;
}

// The one kind host of a node: a shard actor for every shard whose lease it holds (on a one-node
// memory substrate, every shard), each hosting the actors of every bound kind. Store events of
// the other shards are ignored here; their owners see them through their own watch. It names no
// kind: what a kind's actors are, and which events reach them, is its binding's.
export function startKindHost(o: KindHostOptions): KindHost {
  const shards = new Map<number, OwnedShard>();
  const fences = new Map<number, Fence>();
  const acquiredAt = new Map<number, number>();
  const shardOfKey = (key: string): number => shardOf(key, o.shardCount);

  // Shards won together (a node starting, or taking over a dead node's) share one listing of
  // each store: a listing per shard would read every object once per shard.
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
      // The new owner re-reads its objects: status in the store is the truth, not anyone's memory.
      for (const binding of o.bindings) {
        // Only the batch's objects: a node taking its shards one lease at a time (as a starting
        // node does) listed, and decoded, the whole fleet once per batch (48% of a starting
        // node's CPU at 3,000 hosts, its event loop lagging seconds and its leases lapsing).
        binding.list((key) => batch.has(shardOfKey(key))).then((found) => {
          for (const [key, event] of found) {
            const n = shardOfKey(key);
            const target = batch.get(n);
            if (target && shards.get(n)?.ref === target) tell(target, shardEvent(binding, event));
          }
          binding.listed?.(found, (key) => {
            const n = shardOfKey(key);
            const target = batch.get(n);
            return target !== undefined && shards.get(n)?.ref === target;
          });
        }, (err: unknown) => o.log.error({ kinds: binding.name, shards: [...batch.keys()], err: describe(err) }, 'listing the objects of acquired shards failed'));
      }
    });
  };

  const startShard = (shard: number, fence: Fence, leaseHeld?: () => boolean): void => {
    // An epoch in the name: a shard lost and won again never collides with its stopping self.
    const ref = spawn(o.system, `shard-${shard}-e${fence.epoch}`, shardBehavior({
      shard, fence, bindings: o.bindings, supervision: o.supervision,
      kinds: o.kinds ?? KINDS,
      ...(leaseHeld ? { leaseHeld } : {}),
    }), { mailbox: { capacity: 1_000_000 } }); // takes a whole store listing at once
    shards.set(shard, { ref, fence });
    fences.set(shard, fence);
    acquiredAt.set(shard, o.clock.now());
    o.log.info({ shard, epoch: fence.epoch }, 'shard actors started');
    o.onShardStarted?.(shard, fence, leaseHeld);
    seed(shard, ref);
  };

  const forget = (shard: number): OwnedShard | undefined => {
    const owned = shards.get(shard);
    if (!owned) return undefined;
    shards.delete(shard);
    fences.delete(shard);
    acquiredAt.delete(shard);
    o.onShardStopped?.(shard);
    return owned;
  };

  const ownership: ShardOwnershipEvents = {
    acquired(shard, fence, held) {
      if (shards.has(shard)) return;
      startShard(shard, fence, bothHeld(held, o.nodeLeaseHeld));
    },
    lost(shard, reason) {
      const owned = forget(shard);
      if (!owned) return;
      stop(owned.ref);
      o.onShardDropped?.(shard);
      o.log.warn({ shard, epoch: owned.fence.epoch, reason }, 'shard lost: its actors stopped');
    },
    async release(shard) {
      const owned = forget(shard);
      if (!owned) return;
      try {
        const result = await ask<ShardMsg, { drained: number; stuck: string[] }>(owned.ref, (reply) => ({ type: 'drain', timeoutMs: o.drainTimeoutMs, reply }), o.drainTimeoutMs + 1_000);
        if (result.stuck.length > 0) o.log.warn({ shard, stuck: result.stuck.slice(0, 10) }, 'hand-off: actors still busy at the drain deadline');
      } catch (err) {
        o.log.warn({ shard, err: describe(err) }, 'hand-off: drain did not answer');
      }
      stop(owned.ref);
      o.onShardDropped?.(shard);
      o.log.info({ shard, epoch: owned.fence.epoch }, 'shard handed off');
    },
  };

  const owns = (key: string): boolean => shards.has(shardOfKey(key));
  const unwatch = o.bindings.map((binding) => binding.watch((key, event) => {
    if (key !== null) {
      const owned = shards.get(shardOfKey(key));
      if (owned) tell(owned.ref, shardEvent(binding, event));
      return;
    }
    for (const owned of shards.values()) tell(owned.ref, shardEvent(binding, event));
  }, owns));

  return {
    ownership,
    owned: () => fences,
    shardRef: (key) => shards.get(shardOfKey(key))?.ref,
    acquiredAt: (shard) => acquiredAt.get(shard) ?? null,
    close() {
      for (const fn of unwatch) fn();
    },
  };
}

function describe(err: unknown): string {
  return errorMessage(err);
}

// One lease check for the shard's lease and the node's, so no kind can be guarded by one and not the other.
function bothHeld(shard: (() => boolean) | undefined, node: (() => boolean) | undefined): (() => boolean) | undefined {
  if (!node) return shard;
  if (!shard) return node;
  return () => node() && shard();
}
