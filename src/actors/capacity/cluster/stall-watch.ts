/** What one look at a pool saw. */
export interface PoolLook {
  /** Free slots (Infinity without a limit). */
  readonly room: number;
  /** Requests that want a slot now: queued, or sent and not yet served by the broker's turn. */
  readonly waiting: number;
  /** Grants made in the pool so far (a counter: any change means something was granted). */
  readonly granted: number;
}

/**
 * Stall time of one pool: time during which it had a free slot and a waiting request and granted
 * nothing. Every broker turn grants whatever fits, so a stall means the broker is not getting to
 * its requests (starved turns, a hanging KV write) or has a bug; this is the figure that shows it.
 * Looks come from a timer apart from the broker's turns, so a busy broker cannot hide its own
 * stall; a stretch counts between two looks that both saw room beside a waiter with no grant in
 * between. Pure: the caller passes the time.
 */
export class StallWatch {
  private last: { readonly at: number; readonly stalled: boolean; readonly granted: number } | null = null;
  private stalledMs = 0;

  look(now: number, seen: PoolLook): void {
    const stalled = seen.room > 0 && seen.waiting > 0;
    const last = this.last;
    if (last !== null && last.stalled && stalled && seen.granted === last.granted && now > last.at) this.stalledMs += now - last.at;
    this.last = { at: now, stalled, granted: seen.granted };
  }

  /** Stalled time so far, in seconds. */
  get seconds(): number {
    return this.stalledMs / 1000;
  }
}
