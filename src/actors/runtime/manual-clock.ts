import type { Clock, TimerHandle } from './clock.ts';

/** A clock that moves only when told to: `advance(ms)` fires every timer due by then, in order. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  /** Timers not yet fired or cleared. */
  readonly pending: number;
}

interface ManualTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

export function createManualClock(start = 0): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, ManualTimer>();
  return {
    now: () => now,
    setTimeout(fn, ms): TimerHandle {
      const id = nextId++;
      timers.set(id, { id, at: now + Math.max(ms, 0), fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const end = now + ms;
      // Step through due timers one by one so a timer set by a firing timer also fires if due.
      for (;;) {
        let next: ManualTimer | undefined;
        for (const t of timers.values()) {
          if (t.at <= end && (next === undefined || t.at < next.at)) next = t;
        }
        if (next === undefined) break;
        now = Math.max(now, next.at);
        timers.delete(next.id);
        next.fn();
      }
      now = end;
    },
    get pending() {
      return timers.size;
    },
  };
}
