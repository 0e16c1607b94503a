import type { CommonEffect, MachineLogic, MachineView } from '../../machines/logic.ts';
import type { SlotLease } from '../capacity/index.ts';
import type { Tick } from './messages.ts';

/** The effects the generic actor performs itself; every other effect goes to the kind's adapter. */
export type ActorEffect = Extract<CommonEffect, { type: 'requeue' | 'requestSlot' | 'releaseSlot' | 'releaseGrant' | 'addFinalizer' | 'removeFinalizer' }>;
export type ActorEffectType = ActorEffect['type'];

/** The kind-specific effects of F: backend calls, writes, events, DNS, ... */
export type KindEffect<F extends { readonly type: string }> = Exclude<F, { readonly type: ActorEffectType }>;

/** How a call's answer reaches the mailbox: at once, or on the next event-loop iteration. */
export type Lane = 'mailbox' | 'nextIteration';

/**
 * A wake-up as the kind's adapter saw it: what it read, and the events the actor steps for it.
 * The adapter only reads; the actor builds the state and steps each event, performing its effects.
 */
export interface Observation<E, Obj = unknown, World = unknown> {
  /**
   * The object as read and its world. The actor's first state is built from them
   * (`logic.initial`, or `logic.restore` after a crash); without them it has nothing to start from.
   */
  readonly seen?: { readonly object: Obj; readonly world: World };
  /**
   * Stepped in order, each step's effects performed before the next step: a wake-up that needs
   * the object observed first (a DNS change before any state) lists the observation first.
   */
  readonly events: readonly E[];
}

/** What a kind's adapter may do from inside the actor. */
export interface MachineIO<E> {
  /** The resource's key, `namespace/name`. */
  readonly key: string;
  /** The actor's capacity slot; undefined for a kind run without slots. */
  readonly slot: SlotLease | undefined;
  /** Draining for a hand-off: `run` starts nothing. */
  readonly draining: boolean;
  /** Steps `event` in a later turn, through the mailbox. */
  tell(event: E): void;
  /**
   * Starts a call unless draining (then false). It counts as in flight, so a drain waits for it,
   * until its promise settles; its answer comes back through the mailbox as `answer(result)`, on the
   * lane `lane(result)` picks (called as the answer arrives, before it is delivered). `work` answers
   * failures as values: a rejection crashes the actor, which the supervisor restarts.
   */
  run<R>(work: () => Promise<R>, answer: (result: R) => E, lane?: (result: R) => Lane): boolean;
}

/**
 * One actor's side of a kind: what the generic machine actor cannot know. Built per actor (and
 * again after a restart), so it may keep the actor's own data (a status writer, recent events).
 * A hook that returns a promise is awaited within the turn.
 */
export interface MachineAdapter<S, E, F extends { readonly type: string }, W, Snap, Obj = unknown, World = unknown> {
  /**
   * Turns a wake-up into the events to step, reading the object and its world as the kind needs.
   * `current` is null before the first state: read the object and its world (`seen`), the actor
   * builds the state. `wake` is null when an answer or a slot notice arrives before any state
   * (after a restart): observe so it can be applied. Null: nothing to step (the object is gone or
   * does not parse).
   */
  observe(current: S | null, wake: W | Tick | null): Observation<E, Obj, World> | null | Promise<Observation<E, Obj, World> | null>;
  /** The actor built its first state from an observation, before stepping anything. */
  began?(state: S): void;
  /** Performs one kind-specific effect; an event returned is stepped next, in the same turn. */
  perform(effect: KindEffect<F>, state: S): void | E | Promise<void | E>;
  /** The pool a `requestSlot` asks in, and whether the grant is exempt from its limit. */
  slotClaim?(state: S, op: string): { readonly pool: string; readonly exempt: boolean };
  /** Adds or removes a finalizer on the object in its store, carrying the fence. */
  finalizer?(change: 'add' | 'remove', finalizer: string): void | Promise<void>;
  /** After each step and its effects: metrics, observers. */
  stepped?(before: S, after: S): void;
  /** After a step that left the object gone (`logic.isGone`). */
  gone?(state: S): void;
  /** What `snapshot` answers; `state` is null before the first observation. */
  snapshot(state: S | null): Snap;
  /** Kind details added to the view in introspection's summary of the actor. */
  describe?(state: S): Record<string, unknown>;
  /**
   * The turn is over: its message and every step that message caused have been performed. A
   * coalescing writer writes here what the turn's steps changed, once (issue 29.5).
   */
  turnEnded?(): void;
  /** Resolves once the last write is done (a coalescing writer): a drain waits for it. */
  whenIdle?(): Promise<void>;
  /** The actor stops (or restarts): nothing more is written. */
  close?(): void;
}

/** A kind on the one skeleton: its pure rules and how to build one actor's adapter. */
export interface MachineKind<S, E, F extends { readonly type: string }, W, Snap, Obj = unknown, World = unknown> {
  /** The actor kind introspection lists: 'host', 'maas-machine', 'maas-cluster'. */
  readonly actorKind: string;
  readonly logic: MachineLogic<S, E, F, MachineView, Obj, World>;
  /**
   * The name this kind's capacity grants are held under; the object's key when absent. Kinds whose
   * keys could equal another kind's (a MaasMachine and a BareMetalHost both `namespace/name`) name
   * theirs apart, so a release meant for one (a deleted host's, in every pool) never frees the other's.
   */
  readonly slotHolder?: (key: string) => string;
  adapter(io: MachineIO<E>): MachineAdapter<S, E, F, W, Snap, Obj, World>;
}
