import type { Fence } from '../../ports/index.ts';
import type { ActorRef, AnyActorRef, Behavior, Reply } from '../runtime/index.ts';
import { ask, spawn, stop, tell } from '../runtime/index.ts';
import type { DependentsReader, IndexChange, IndexedKind, Wakes } from './dependents-index.ts';
import { DependentsIndex, NO_WAKES } from './dependents-index.ts';

/** What every actor a shard hosts answers: hand-off finishes its call in flight, then replies. */
export type DrainMsg = { readonly type: 'drain'; readonly reply: Reply<void> };

/**
 * The actors of one kind in one shard, as a binding's router sees them. Spawned actors run under
 * the shard's supervision; one that gives up is forgotten here before the binding hears of it.
 */
export interface KindActors<M> {
  get(key: string): ActorRef<M> | undefined;
  /** The key's actor, spawned if it is not running. */
  ensure(key: string): ActorRef<M>;
  /** Stops and forgets the key's actor (its object was deleted). */
  stop(key: string): void;
  /** From outside the shard's turn (an actor reporting its own end): forgets it in order. */
  gone(key: string): void;
  entries(): IterableIterator<[string, ActorRef<M>]>;
  readonly size: number;
}

/** How a kind's actors are made and what a give-up does (marks the object, as BMO would). */
export interface KindActorsSpec<S, M> {
  /** Kind name, for actor names and logs; the shard attaches no meaning to it. */
  readonly kind: string;
  /** Actor names are `<prefix><namespace>~<name>`. */
  readonly prefix: string;
  behavior(key: string): Behavior<S, M>;
  /** Proof that the kind's actors take a drain: `(ref) => ref` typechecks only if they do. */
  drainable(ref: ActorRef<M>): ActorRef<DrainMsg>;
  /** The actor kept crashing and is stopped: record it on the object; nothing restarts it until its object changes. */
  gaveUp(key: string, error: unknown, restarts: number): void;
}

/** What a binding's router gets from the shard it runs in. */
export interface ShardScope {
  readonly shard: number;
  /** The shard's lease: stamped on every write of its actors. */
  readonly fence: Fence;
  /** Is that lease still safely held (asked before each backend call)? Absent: always. */
  readonly leaseHeld?: () => boolean;
  /** The actors of one kind; call once per kind when the router opens. */
  actors<S, M>(spec: KindActorsSpec<S, M>): KindActors<M>;
  /** Runs `work` as a turn of the shard, after what its mailbox holds (an actor's callback re-entering the router). */
  later(work: () => void | Promise<void>): void;
  /** The shard's dependents index, as every bound kind's events have fed it so far. */
  readonly index: DependentsReader;
}

/**
 * One store event, already routed to this shard, handed to the router of the binding it came
 * from. A router is the binding's per-shard state: which actors exist, which objects wake which.
 */
export interface KindRouter<E> {
  /** `wakes`: whom the change wakes, by kind, as the shard's dependents index answers it. */
  event(event: E, wakes: Wakes): void | Promise<void>;
}

/**
 * A kind family as the shard hosts it, declared beside its actor (actors/<kind>/binding.ts):
 * the shard itself knows no kind. `open` runs once per shard, inside the shard actor.
 */
export interface ShardBinding<E, R extends KindRouter<E> = KindRouter<E>> {
  readonly name: string;
  open(scope: ShardScope): R;
  /**
   * The node side: the binding's store events, each with the shard key it is routed by (null:
   * to every owned shard, as a Secret's). `owns` says whether a shard key's shard is held here,
   * so a store may leave the other shards' changes unparsed.
   */
  watch(emit: (shardKey: string | null, event: E) => void, owns: (shardKey: string) => boolean): () => void;
  /**
   * What the store holds now, for shards just acquired: one listing serves all of them.
   * `wanted`: the shard keys of those shards; a binding may leave the others out (unread).
   */
  list(wanted?: (shardKey: string) => boolean): Promise<ReadonlyArray<readonly [shardKey: string, event: E]>>;
  /** The event as the dependents index reads it; absent or null: it links nothing. */
  indexed?(event: E): IndexChange | null;
  /**
   * After a listing was handed to the shards just acquired: `found`, the listing itself;
   * `acquired`, whether a shard key's shard is one of them. A binding whose actors hold things in
   * other services (capacity grants) settles there what was left for objects no longer present.
   */
  listed?(found: ReadonlyArray<readonly [shardKey: string, event: E]>, acquired: (shardKey: string) => boolean): void;
}

// Bindings are held type-erased: the message pairs a binding with an event or a question of its
// own type, built only by shardEvent / askBinding below.
type Erased = ShardBinding<unknown, KindRouter<unknown>>;

export type ShardMsg =
  | { readonly type: 'event'; readonly binding: Erased; readonly event: unknown }
  | { readonly type: 'query'; readonly binding: Erased; run(router: KindRouter<unknown>): void }
  | { readonly type: 'later'; work(): void | Promise<void> }
  | { readonly type: 'gone'; readonly kind: string; readonly key: string; readonly ref: AnyActorRef }
  | { readonly type: 'count'; readonly reply: Reply<number> }
  // Hand-off: every actor finishes its call in flight and stops issuing new ones.
  | { readonly type: 'drain'; readonly timeoutMs: number; readonly reply: Reply<{ drained: number; stuck: string[] }> };

/** A store event for the binding's router in one shard. */
export function shardEvent<E, R extends KindRouter<E>>(binding: ShardBinding<E, R>, event: E): ShardMsg {
  return { type: 'event', binding: binding as unknown as Erased, event };
}

/** Asks the binding's router in that shard, in mailbox order (after the events sent before). */
export function askBinding<E, R extends KindRouter<E>, T>(shard: ActorRef<ShardMsg>, binding: ShardBinding<E, R>, question: (router: R) => T, timeoutMs: number): Promise<T> {
  return ask<ShardMsg, T>(shard, (reply) => ({
    type: 'query',
    binding: binding as unknown as Erased,
    run(router) {
      reply(question(router as unknown as R));
    },
  }), timeoutMs);
}

export interface ShardOptions {
  readonly shard: number;
  readonly fence: Fence;
  readonly leaseHeld?: () => boolean;
  readonly bindings: readonly ShardBinding<unknown>[];
  /** What each kind declares wakes it: the shard's dependents index is built from these. */
  readonly kinds?: readonly IndexedKind[];
  readonly supervision: { maxRestarts: number; windowMs: number; backoff: { initialMs: number; maxMs: number } };
}

interface Hosted {
  readonly kind: string;
  readonly actors: ReadonlyMap<string, ActorRef<DrainMsg>>;
  /** Stops and forgets the key's actor if it still is `ref`. */
  forget(key: string, ref: AnyActorRef): void;
}

interface ShardState {
  readonly routers: Map<Erased, KindRouter<unknown>>;
  readonly hosted: Map<string, Hosted>;
  readonly index: DependentsIndex;
}

// Supervises the actors of one shard, for every kind a binding brings, and spawns them on
// demand. An actor's failure stays with that actor: the shard forgets it and its binding records
// the reason on the object.
export function shardBehavior(opts: ShardOptions): Behavior<ShardState, ShardMsg> {
  return {
    kind: 'shard',
    init: (ctx) => {
      const state: ShardState = { routers: new Map(), hosted: new Map(), index: new DependentsIndex(opts.kinds ?? []) };
      const self = ctx.self;
      const scope: ShardScope = {
        shard: opts.shard,
        fence: opts.fence,
        ...(opts.leaseHeld ? { leaseHeld: opts.leaseHeld } : {}),
        actors: (spec) => kindActors(state, self, opts, spec),
        later: (work) => void tell(self, { type: 'later', work }),
        index: state.index,
      };
      for (const binding of opts.bindings) state.routers.set(binding, binding.open(scope));
      return state;
    },
    receive: (s, msg) => {
      switch (msg.type) {
        case 'event': {
          const router = s.routers.get(msg.binding);
          // Every event feeds the index before its router hears it, so the router's lookups see it.
          const change = msg.binding.indexed?.(msg.event);
          const wakes = change ? s.index.apply(change) : NO_WAKES;
          const work = router?.event(msg.event, wakes);
          return work instanceof Promise ? work.then(() => s) : s;
        }
        case 'query': {
          const router = s.routers.get(msg.binding);
          if (router) msg.run(router);
          return s;
        }
        case 'later': {
          const work = msg.work();
          return work instanceof Promise ? work.then(() => s) : s;
        }
        case 'gone': {
          // Only the ref that ended: a newer actor of the same key (its object changed since) stays.
          s.hosted.get(msg.kind)?.forget(msg.key, msg.ref);
          return s;
        }
        case 'count':
          msg.reply([...s.hosted.values()].reduce((n, h) => n + h.actors.size, 0));
          return s;
        case 'drain':
          return drainAll(s, msg.timeoutMs).then((result) => {
            msg.reply(result);
            return s;
          });
      }
    },
    onStop: (s) => {
      s.hosted.clear();
      s.routers.clear();
    },
    describe: (s) => ({ shard: opts.shard, ...Object.fromEntries([...s.hosted].map(([kind, h]) => [kind, h.actors.size])) }),
  };
}

function kindActors<S, M>(state: ShardState, self: ActorRef<ShardMsg>, opts: ShardOptions, spec: KindActorsSpec<S, M>): KindActors<M> {
  if (state.hosted.has(spec.kind)) throw new Error(`shard ${opts.shard}: the actors of ${spec.kind} are bound twice`);
  // One map per kind, typed for the router; the shard sees the same actors as drainable.
  const actors = new Map<string, ActorRef<M>>();
  const drainable = new Map<string, ActorRef<DrainMsg>>();
  const forget = (key: string): void => {
    actors.delete(key);
    drainable.delete(key);
  };
  state.hosted.set(spec.kind, {
    kind: spec.kind,
    actors: drainable,
    forget(key, ref) {
      const current = actors.get(key);
      if (current === undefined || (current as unknown) !== (ref as unknown)) return;
      stop(current);
      forget(key);
    },
  });
  return {
    get: (key) => actors.get(key),
    ensure(key) {
      let ref = actors.get(key);
      if (ref) return ref;
      const spawned: ActorRef<M> = spawn(self, `${spec.prefix}${actorName(key)}`, spec.behavior(key), {
        supervision: {
          ...opts.supervision,
          onGiveUp: (error, info) => {
            tell(self, { type: 'gone', kind: spec.kind, key, ref: spawned as AnyActorRef });
            spec.gaveUp(key, error, info.restarts);
          },
        },
      });
      ref = spawned;
      actors.set(key, ref);
      drainable.set(key, spec.drainable(ref));
      return ref;
    },
    stop(key) {
      const ref = actors.get(key);
      if (ref) stop(ref);
      forget(key);
    },
    gone(key) {
      const ref = actors.get(key);
      if (ref) tell(self, { type: 'gone', kind: spec.kind, key, ref: ref as AnyActorRef });
    },
    entries: () => actors.entries(),
    get size() {
      return actors.size;
    },
  };
}

// Actors that do not settle in time (a backend call hanging) are reported: the caller decides
// whether to hand the shard over anyway (the backend's fence refuses the late call).
async function drainAll(s: ShardState, timeoutMs: number): Promise<{ drained: number; stuck: string[] }> {
  const stuck: string[] = [];
  let total = 0;
  const waits: Array<Promise<void>> = [];
  for (const { kind, actors } of s.hosted.values()) {
    for (const [key, ref] of actors) {
      total++;
      waits.push(ask<DrainMsg, void>(ref, (reply) => ({ type: 'drain', reply }), timeoutMs).catch(() => {
        stuck.push(`${kind} ${key}`);
      }));
    }
  }
  await Promise.all(waits);
  return { drained: total - stuck.length, stuck };
}

// Actor names are path segments: keep namespace and name readable, without the slash.
function actorName(key: string): string {
  return key.replace('/', '~');
}
