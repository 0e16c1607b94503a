import type { CallLimits } from './call-limits.ts';
import { callLimitOf, checkCallLimits } from './call-limits.ts';

/** One backend's calls on this node, as introspection and the metrics show them. */
export interface BackendCallFigures {
  /** The backend, named as its capacity pool is. */
  readonly backend: string;
  /** At most this many ungated calls at once; null: no bound. */
  readonly limit: number | null;
  /** Ungated calls running now (they count against the limit). */
  readonly inFlight: number;
  /** Ungated calls waiting for one of the backend's places, oldest first. */
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

interface Waiter {
  readonly since: number;
  readonly start: () => void;
}

// A backend's FIFO: a place passes from a finished call straight to the oldest waiter, so no
// caller can overtake one that waits (no starvation) and `running` never counts a freed place.
class Lane {
  running = 0;
  slotHolders = 0;
  high = 0;
  waitedTotal = 0;
  private queue: Waiter[] = [];
  private head = 0;

  constructor(readonly backend: string, readonly limit: number) {}

  get waiting(): number {
    return this.queue.length - this.head;
  }

  oldest(): Waiter | undefined {
    return this.queue[this.head];
  }

  enqueue(waiter: Waiter): void {
    this.waitedTotal += 1;
    this.queue.push(waiter);
  }

  // The next waiter, the queue compacted once its dead head outgrows what is left: ten thousand
  // hosts registering at once shift no array ten thousand times.
  next(): Waiter | undefined {
    const w = this.queue[this.head];
    if (w === undefined) return undefined;
    this.queue[this.head] = undefined as unknown as Waiter;
    this.head += 1;
    if (this.head > 1_024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return w;
  }
}

/**
 * A per-backend bound on the calls of one node's actors (issue 30): the calls that hold no
 * capacity slot wait here, first come first served, for one of the backend's places. Enrollment
 * takes no slot (BMO's capacity check gates only inspecting, provisioning and deprovisioning), so
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

  constructor(private readonly limits: CallLimits, private readonly now: () => number = Date.now) {
    checkCallLimits(limits);
  }

  /** Runs `call` once one of `backend`'s places is free, after every call that waited before it. */
  async run<T>(backend: string, call: () => Promise<T>): Promise<T> {
    const lane = this.lane(backend);
    if (lane.running < lane.limit && lane.waiting === 0) lane.running += 1;
    else await new Promise<void>((start) => lane.enqueue({ since: this.now(), start }));
    if (lane.running > lane.high) lane.high = lane.running;
    try {
      return await call();
    } finally {
      const next = lane.next();
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
      const oldest = lane.oldest();
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
    if (lane === undefined) this.lanes.set(backend, (lane = new Lane(backend, callLimitOf(this.limits, backend))));
    return lane;
  }
}
