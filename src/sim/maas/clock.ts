/**
 * Injected time for the simulator: deploy/release timers and added latency run on it. Its own
 * tiny clock, not ports' Clock: src/sim imports nothing of ours (eslint.config.js), so it shares
 * no code with the clients it answers. Any clock with these three methods fits it.
 */
export interface SimClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

// Node clamps larger delays to 1 ms, which would turn "very long" into "now".
const MAX_DELAY_MS = 2_147_483_647;

export const systemClock: SimClock = {
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.min(Math.max(ms, 0), MAX_DELAY_MS));
    // The HTTP server keeps a running simulator alive; a pending timer alone must not.
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
  now: () => Date.now(),
};
