// Time on a manual clock for tests of timers (leases, heartbeats): advanced in small steps, with
// the promises each step wakes settled before the next, as real time would let them.
import type { ManualClock } from '../../src/actors/runtime/index.ts';

/** One turn of the event loop: what the last step woke has run. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Advances `clock` by `ms` in steps of `stepMs`, flushing after each. */
export async function run(clock: ManualClock, ms: number, stepMs = 50): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    clock.advance(Math.min(stepMs, ms - done));
    await flush();
  }
}
