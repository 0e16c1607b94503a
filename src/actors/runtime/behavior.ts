import type { ActorRef } from './ref.ts';
import type { ActorSystem } from './system.ts';

/** What a handler knows about itself. The same object for the actor's whole life. */
export interface ActorContext<M> {
  readonly self: ActorRef<M>;
  readonly path: string;
  readonly name: string;
  readonly system: ActorSystem;
}

/** An actor's code. Keep one Behavior object per kind (module level): actors share it. */
export interface Behavior<S, M> {
  /** e.g. 'host', 'shard', 'capacity-broker'; shown by introspection. */
  kind: string;
  /** Builds the state at start and again after each crash: re-read, never trust memory. */
  init: (ctx: ActorContext<M>) => S;
  /** Returns the next state; returning undefined is treated as a crash (a missing return). */
  receive: (state: S, msg: M, ctx: ActorContext<M>) => S | Promise<S>;
  /** Cleanup (timers) when the actor stops, and for the old state before a restart. */
  onStop?: (state: S, ctx: ActorContext<M>) => void;
  /** A small summary for introspection, computed only when someone asks. */
  describe?: (state: S) => Record<string, unknown>;
}

/** Behavior with its types erased, as the runtime stores it. */
export type AnyBehavior = Behavior<unknown, unknown>;
