import { Nobody, dispatch, spawn, start, stop } from 'nact';
import type { Ref } from 'nact';

// The only file that touches nact. nact is used as a per-actor FIFO that awaits async handlers,
// nothing more: supervision, refs, asks and stats are ours (reference/runtime.md §0, §1.7).

// Typed start(name) is ignored at runtime (a random name); only start({ name }) is read.
const startNamed = start as unknown as (opts: { name: string }) => Ref<never>;

// dispatch without a sender allocates a fresh Nobody (three objects) per message; share one.
const sendWith = dispatch as unknown as (ref: Ref<unknown>, msg: unknown, sender: Nobody) => void;
const NOBODY = new Nobody();

export type NactHandler<S> = (state: S, msg: unknown) => S | Promise<S>;

export function startNactSystem(name: string): Ref<never> {
  return startNamed({ name });
}

/**
 * A top-level nact actor whose nact state is fixed (`state` is returned unchanged by handler).
 * No onCrash: handler never throws, so nact's handleFault (async, uncaught, and with
 * escalate/stopAll hitting every top-level actor) is never reached.
 */
export function spawnNact<S>(system: Ref<never>, name: string, handler: NactHandler<S>, state: S): Ref<unknown> {
  return spawn(system, handler, name, { initialState: state }) as Ref<unknown>;
}

export function send(ref: Ref<unknown>, msg: unknown): void {
  sendWith(ref, msg, NOBODY);
}

/** Stops an actor or a whole nact system; queued messages are discarded. */
export function stopNact(ref: Ref<unknown>): void {
  stop(ref);
}
