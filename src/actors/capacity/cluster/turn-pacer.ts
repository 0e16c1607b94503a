// When the broker may take its next turn for requests that hand no slot over (an acquire of a pool
// with plenty of free slots, a release nobody waits for). On a busy node every host turn
// that asks or lets go is a task of its own (a parked turn that tells urgent ends the resume
// loop), so each one was a broker turn and a compare-and-set of the whole pool record: 0.5
// grants per write at 10,000 hosts. Such requests now wait until the node's actors have handled
// HOLD_MESSAGES messages since the broker's last turn (so a write carries the requests of that
// much work, however many neighbours share the machine), and go at once when the event loop sat
// idle meanwhile (nothing else is coming). A hand-off never waits: the caller decides that first.
import { performance } from 'node:perf_hooks';
import { messagesHandled } from '../../runtime/index.ts';

/** Messages the node's actors handle between two turns of held requests (a host's gated step is a handful). */
export const HOLD_MESSAGES = 64;
/** The longest a request is held, in wall time: a held acquire keeps a free slot idle meanwhile (capacity bench under load: 25 ms cost about half again on its ratio; 5 ms stayed within its run-to-run spread). */
export const HOLD_MAX_MS = 5;
/** Idle time of the event loop since the last turn that shows the node is not busy. */
const IDLE_MS = 0.2;
/** How often a hold looks again. */
const LOOK_MS = 1;

export class TurnPacer {
  private at = Number.NEGATIVE_INFINITY;
  private handledAt = 0;
  private idleAt = 0;

  /** A turn went out now. */
  mark(): void {
    this.at = performance.now();
    this.handledAt = messagesHandled();
    this.idleAt = performance.eventLoopUtilization().idle;
  }

  /** 0: the next turn may go now; otherwise how many ms to look again. */
  holdFor(): number {
    if (messagesHandled() - this.handledAt >= HOLD_MESSAGES) return 0;
    const wall = performance.now() - this.at;
    if (wall >= HOLD_MAX_MS) return 0;
    if (performance.eventLoopUtilization().idle - this.idleAt > IDLE_MS) return 0;
    return Math.min(LOOK_MS, HOLD_MAX_MS - wall);
  }
}
