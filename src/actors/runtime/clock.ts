/** Opaque timer handle: Node's Timeout, or whatever a test clock returns. */
export type TimerHandle = object | number;

/** Injected time, so tests can drive backoff and ask deadlines without sleeping. */
export interface Clock {
  now(): number;
  /** keepAlive false (default): the timer must not keep a finished process alive. */
  setTimeout(fn: () => void, ms: number, keepAlive?: boolean): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

// Node clamps larger delays to 1 ms, which would turn "wait very long" into "fire now".
const MAX_DELAY_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms, keepAlive = false) {
    const timer = setTimeout(fn, Math.min(Math.max(ms, 0), MAX_DELAY_MS));
    if (!keepAlive) timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
