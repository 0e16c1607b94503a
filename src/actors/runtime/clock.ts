import type { Clock } from '../../ports/index.ts';

export type { Clock, TimerHandle } from '../../ports/index.ts';

// Node clamps larger delays to 1 ms, which would turn "wait very long" into "fire now".
const MAX_DELAY_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout(fn, ms, keepAlive = false) {
    const timer = setTimeout(fn, Math.min(Math.max(ms, 0), MAX_DELAY_MS));
    if (!keepAlive) timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
