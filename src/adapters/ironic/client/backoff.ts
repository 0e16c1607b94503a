import { nextDelay } from '../../../api/index.ts';
import type { LockedRetries } from './options.ts';

/**
 * The wait before retry `retry` (1-based) of a locked node: doubling from baseMs, capped at
 * maxMs, with half of it random so that clients that met the same lock do not return together.
 */
export function lockedRetryDelay(retry: number, o: LockedRetries, random: () => number = Math.random): number {
  return nextDelay({ initialMs: o.baseMs, maxMs: o.maxMs, factor: 2, jitter: 'equal' }, retry, random);
}
