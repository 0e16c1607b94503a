// One step's scratchpad, the same for every kind (DESIGN "One skeleton, every kind"): a mutable
// copy of the state plus the effects the step produces. A kind's Turn extends it with its own
// handlers' helpers; finish() turns it back into an immutable step, with one status write when
// the status is dirty and one requeue (the soonest asked for).
import { deepEqual } from '../api/index.ts';
import type { CommonEffect, MachineStep } from './logic.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The effects the Turn itself adds, whatever the kind: its status write, its requeue, its events. */
export type TurnEffect<St> =
  | { readonly type: 'writeStatus'; readonly status: St }
  | Extract<CommonEffect, { readonly type: 'requeue' | 'event' }>;

/**
 * The one "dirty" rule of every kind, BMO's `Dirty()`: a status is written when it differs from
 * the stored one. Compared as data, whatever the order of keys and with undefined fields absent,
 * since a status read back through its schema comes reordered. The Turn asks it of the status the
 * machine held (what it last decided, which the store is to hold); the status writer asks it of
 * what the store was read holding.
 */
export function statusDiffers(next: unknown, stored: unknown): boolean {
  return !deepEqual(next, stored);
}

export abstract class MachineTurn<S extends object, F extends { readonly type: string }, St> {
  readonly s: Mutable<S>;
  readonly effects: Array<F | TurnEffect<St>> = [];
  private requeueMs: number | null = null;

  constructor(protected readonly before: S, readonly now: number) {
    this.s = { ...before };
  }

  /** Where the kind's state keeps the status it decides. */
  protected abstract statusOf(state: S): St;

  /** The status to write, now that the step is known to write it (a kind may stamp it first). */
  protected written(): St {
    return this.statusOf(this.s as S);
  }

  /** The status this step leaves differs from the one the machine held: it is written. */
  get dirty(): boolean {
    return statusDiffers(this.statusOf(this.s as S), this.statusOf(this.before));
  }

  /** Asks to be stepped again in `ms`; of several asks in one step, the soonest stands. */
  requeue(ms: number): void {
    const at = Math.max(0, Math.round(ms));
    this.requeueMs = this.requeueMs === null ? at : Math.min(this.requeueMs, at);
  }

  event(severity: 'Normal' | 'Warning', reason: string, message: string): void {
    this.effects.push({ type: 'event', severity, reason, message });
  }

  finish(): MachineStep<S, F | TurnEffect<St>> {
    if (this.dirty) this.effects.push({ type: 'writeStatus', status: this.written() });
    if (this.requeueMs !== null) this.effects.push({ type: 'requeue', afterMs: this.requeueMs });
    return { state: this.s as S, effects: this.effects };
  }
}
