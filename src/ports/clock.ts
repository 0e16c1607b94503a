/** Opaque timer handle: Node's Timeout, or whatever a test clock returns. */
export type TimerHandle = object | number;

/**
 * Injected time, so tests can drive backoff and ask deadlines without sleeping. The one clock of
 * the engine: the actor runtime's `systemClock` and `createManualClock` implement it, and a
 * component that only reads the time takes `Pick<Clock, 'now'>`.
 */
export interface Clock {
  now(): number;
  /**
   * Milliseconds that never go backwards (the wall clock may, under NTP or by hand), for
   * deadlines that guard safety: a lease measured on it survives a clock step. Absent: now().
   */
  monotonic?(): number;
  /** keepAlive false (default): the timer must not keep a finished process alive. */
  setTimeout(fn: () => void, ms: number, keepAlive?: boolean): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}
