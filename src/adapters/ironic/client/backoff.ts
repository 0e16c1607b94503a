import type { LockedRetries } from './options.ts';

/**
 * The wait before retry `retry` (1-based) of a locked node: doubling from baseMs, capped at
 * maxMs, with half of it random so that clients that met the same lock do not return together.
 */
export function lockedRetryDelay(retry: number, o: LockedRetries, random: () => number = Math.random): number {
  const full = Math.min(o.maxMs, o.baseMs * 2 ** (retry - 1));
  return full / 2 + random() * (full / 2);
}
