import type { ActorRef, Clock, TimerHandle } from '../runtime/index.ts';
import { tell, tellFirst, tellUrgent } from '../runtime/index.ts';
import type { CapacityMsg, SlotNotice } from './messages.ts';

// Request counts, process-wide: the proxy drops an acquire that a release overtook by comparing
// them per holder key, and a holder's next incarnation (its actor restarted, its shard back on
// this node) must count on from there, not from 1 below a release of its predecessor.
let lastGen = 0;

/**
 * Gives back whatever `holder` holds or waits for in any pool, on any node: its object is gone, so
 * no spec says which pool it asked in and no next owner will adopt it. Sent after the holder's
 * actor stopped (its abandon goes first, in mailbox order); a request count of its own, so an
 * acquire of the stopped incarnation that is still on its way is dropped rather than granted.
 */
export function releaseGone(broker: ActorRef<CapacityMsg>, holder: string): void {
  tell(broker, { type: 'releaseGone', holder, gen: ++lastGen });
}

// A holder's side of a capacity slot: ask once, renew well within the grant's TTL while held or
// waited for (a dead holder's grant then expires and cannot leak), give it back once. Used by the
// actors that run gated backend work; they hold one of these each.
export class SlotLease {
  private pool: string | null = null;
  private renewTimer: TimerHandle | null = null;
  private gen = 0;
  private operation = '';
  private exempt = false;
  private notify: ((n: SlotNotice) => void) | null = null;

  constructor(
    private readonly broker: ActorRef<CapacityMsg>,
    private readonly holder: string,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    // Renewals go through the holder's own mailbox, so they stop when the holder does.
    private readonly renewViaSelf: () => void,
  ) {}

  get held(): boolean {
    return this.pool !== null;
  }

  request(pool: string, operation: string, exempt: boolean, notify: (n: SlotNotice) => void, since?: number): void {
    this.pool = pool;
    this.gen = ++lastGen;
    this.operation = operation;
    this.exempt = exempt;
    this.notify = notify;
    // Urgent: a slot may be free right now, and this host is the one it waits for.
    tellUrgent(this.broker, { type: 'acquire', holder: this.holder, pool, operation, exempt, notify, gen: this.gen, ...(since !== undefined ? { since } : {}) });
    if (this.renewTimer) return;
    const every = Math.max(1, Math.floor(this.ttlMs / 3));
    const again = (): void => {
      if (this.pool === null) {
        this.renewTimer = null;
        return;
      }
      this.renewViaSelf();
      this.renewTimer = this.clock.setTimeout(again, every);
    };
    this.renewTimer = this.clock.setTimeout(again, every);
  }

  renew(): void {
    if (this.pool === null) return;
    tell(this.broker, {
      type: 'renew', holder: this.holder, pool: this.pool, operation: this.operation, exempt: this.exempt, gen: this.gen,
      ...(this.notify ? { notify: this.notify } : {}),
    });
  }

  /** Stops holding without freeing the slot (CapacityMsg 'abandon'): for work that outlives this holder. */
  abandon(): void {
    if (this.pool) tell(this.broker, { type: 'abandon', holder: this.holder, pool: this.pool });
    this.stop();
  }

  /**
   * Gives back a grant an earlier incarnation of this holder left (a previous owner of its shard,
   * the actor before a restart), on whichever node: its work is known to be over. Only while this
   * incarnation asks for nothing itself (its own acquire adopts such a grant instead). A request
   * count of its own, first in the mailbox: an acquire of the earlier incarnation still queued
   * behind it (sent just before that one stopped) is dropped rather than granted to nobody.
   */
  releaseInherited(pool: string): void {
    if (this.pool !== null) return;
    this.gen = ++lastGen;
    tellFirst(this.broker, { type: 'release', holder: this.holder, pool, gen: this.gen, inherited: true });
  }

  // First in the broker's mailbox, and express: the slot goes to the next waiter in the instant it
  // frees, not after every request queued meanwhile.
  release(): void {
    if (this.pool) tellFirst(this.broker, { type: 'release', holder: this.holder, pool: this.pool, gen: this.gen });
    this.stop();
  }

  private stop(): void {
    this.pool = null;
    if (this.renewTimer) this.clock.clearTimeout(this.renewTimer);
    this.renewTimer = null;
  }
}
