import type { SlotNotice } from '../capacity/index.ts';
import type { Reply } from '../runtime/index.ts';

/** A wake-up with nothing in it: the first one at start, a requeue's timer, a nudge from outside. */
export interface Tick {
  readonly type: 'tick';
}

export const TICK: Tick = Object.freeze({ type: 'tick' });

/** The answer of an effect the kind ran through `io.run` or `io.tell`: stepped as it is. */
export interface Answer<E> {
  readonly type: 'answer';
  readonly event: E;
}

/** Messages the generic actor handles itself, whatever the kind. */
export type ControlMsg<Snap> =
  | { readonly type: 'renewSlot' }
  | { readonly type: 'snapshot'; readonly reply: Reply<Snap> }
  // Hand-off: finish the calls in flight and the last write, start nothing new, then reply.
  | { readonly type: 'drain'; readonly reply: Reply<void> }
  // A call's promise rejected (the kind broke its contract to answer failures as values).
  | { readonly type: 'callFailed'; readonly error: unknown };

/**
 * A machine actor's mailbox: wake-ups (a tick, or the kind's own: `W`, say `{ type: 'observed',
 * host }`), answers of effects, slot notices, and the control messages. A kind's wake-ups must not
 * use the types taken here: tick, answer, renewSlot, snapshot, drain, callFailed, slot*.
 */
export type MachineMsg<W extends { readonly type: string }, E, Snap> = Tick | W | Answer<E> | SlotNotice | ControlMsg<Snap>;
