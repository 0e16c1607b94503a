import type { CallLimits } from './call-limits.ts';
import { callLimitOf, checkCallLimits } from './call-limits.ts';
import type { Waiter } from './wait-queue.ts';
import { WaitQueue } from './wait-queue.ts';

/** One backend's calls on this node, as introspection and the metrics show them. */
export interface BackendCallFigures {
  /** The backend, named as its capacity pool is. */
  readonly backend: string;
  /** At most this many ungated calls at once; null: no bound. */
  readonly limit: number | null;
  /** Ungated calls running now (they count against the limit). */
  readonly inFlight: number;
  /** Ungated calls waiting for one of the backend's places. */
  readonly waiting: number;
  /** How long the oldest waiter has waited (0 when none waits). */
  readonly longestWaitMs: number;
  /** Calls of hosts holding a capacity slot, running now: beside the limit, never behind it. */
  readonly slotHolderInFlight: number;
  /** The most ungated calls ever running at once here. */
  readonly maxInFlight: number;
  /** Ungated calls that had to wait, since the node started. */
  readonly waitedTotal: number;
}

// One backend's places: calls running, slot holders beside them, and the calls waiting.
class Lane {
  running = 0;
  slotHolders = 0;
  high = 0;
  waitedTotal = 0;
  readonly queue: WaitQueue;

  constructor(readonly backend: string, readonly limit: number, agedMs: number) {
    this.queue = new WaitQueue(agedMs);
  }

  get waiting(): number {
    return this.queue.waiting;
  }

  enqueue(waiter: Waiter): void {
    this.waitedTotal += 1;
    this.queue.enqueue(waiter);
  }
}

/**
 * How long a call may wait behind the calls of callers that started before it, before it is
 * served in arrival order. Long enough that a fleet starting at once (thousands of hosts behind
 * a bound of 50, each call a second or more at Ironic) keeps finishing its first hosts first;
 * short enough that hosts already running, calling again and again at a saturated backend, keep
 * a new host waiting no longer than this.
 */
export const AGED_MS = 120_000;

/**
 * A per-backend bound on the calls of one node's actors (issue 30): the calls that hold no
 * capacity slot wait here for one of the backend's places, the callers that started first served
 * first (a host that has registered goes on before another registers: see run), none starved.
 * Enrollment takes no slot (BMO's capacity check gates only inspecting, provisioning and deprovisioning), so
 * without it 800 hosts registering at once sent 800 requests to one Ironic, which answered none
 * in time. BMO is bounded the same way by its reconcile workers.
 *
 * A call of a host that holds a slot runs at once, beside the bound (`runHoldingSlot`): the slot
 * already bounds it (the broker's limit), and a holder queued behind ungated calls would keep its
 * slot idle while others wait for it. A node's calls at one backend are thus at most its limit
 * plus the slots its hosts hold.
 */
export class BackendCalls {
  private readonly lanes = new Map<string, Lane>();
  private started = 0;

  /**
   * `agedMs`: a call that has waited this long is served before any call of an older caller, in
   * arrival order, so none starves (default AGED_MS).
   */
  constructor(private readonly limits: CallLimits, private readonly now: () => number = Date.now, private readonly agedMs: number = AGED_MS) {
    checkCallLimits(limits);
  }

  /**
   * A new caller's start number (node-wide, increasing), for `run`'s `order`: a caller draws one
   * at its first call and passes it with every call after, so the calls of the callers that
   * started first are served first, and a fleet starting at once finishes its first hosts early
   * instead of registering every host before any goes on (issue 30).
   */
  startNumber(): number {
    return this.started++;
  }

  /**
   * Runs `call` once one of `backend`'s places is free: after every waiting call of a lesser
   * `order` (a caller's startNumber()), and of the same order that waited before it; a call that
   * waited `agedMs` goes first, oldest first. Without `order` the call ranks as a caller starting
   * now does.
   */
  async run<T>(backend: string, call: () => Promise<T>, order: number = this.startNumber()): Promise<T> {
    const lane = this.lane(backend);
    if (lane.running < lane.limit && lane.waiting === 0) lane.running += 1;
    else await new Promise<void>((start) => lane.enqueue({ order, arrival: lane.queue.nextArrival(), since: this.now(), start, served: false }));
    if (lane.running > lane.high) lane.high = lane.running;
    try {
      return await call();
    } finally {
      const next = lane.queue.next(this.now());
      if (next) next.start();
      else lane.running -= 1;
    }
  }

  /** Runs `call` now: its host holds a capacity slot, which bounds it already. Counted apart. */
  async runHoldingSlot<T>(backend: string, call: () => Promise<T>): Promise<T> {
    const lane = this.lane(backend);
    lane.slotHolders += 1;
    try {
      return await call();
    } finally {
      lane.slotHolders -= 1;
    }
  }

  /** The limit `backend` runs under; Infinity: none. */
  limitOf(backend: string): number {
    return this.lane(backend).limit;
  }

  /** Every backend called so far, by name. */
  figures(): BackendCallFigures[] {
    const now = this.now();
    return [...this.lanes.values()].map((lane) => {
      const oldest = lane.queue.oldest();
      return {
        // A pool names its endpoint, whose URL may carry userinfo: never shown.
        backend: lane.backend.replace(/\/\/[^/@]*@/, '//'),
        limit: Number.isFinite(lane.limit) ? lane.limit : null,
        inFlight: lane.running,
        waiting: lane.waiting,
        longestWaitMs: oldest ? Math.max(0, now - oldest.since) : 0,
        slotHolderInFlight: lane.slotHolders,
        maxInFlight: lane.high,
        waitedTotal: lane.waitedTotal,
      };
    }).sort((a, b) => a.backend.localeCompare(b.backend));
  }

  private lane(backend: string): Lane {
    let lane = this.lanes.get(backend);
    if (lane === undefined) this.lanes.set(backend, (lane = new Lane(backend, callLimitOf(this.limits, backend), this.agedMs)));
    return lane;
  }
}
