import { nextDelay } from '../../../api/index.ts';
import type { Retries } from './options.ts';

/**
 * The wait before retry `retry` (1-based): doubling from baseMs, capped at maxMs, half of it
 * random so that clients that met the same outage do not come back together. A Retry-After
 * MAAS sent (seconds) is honoured up to maxMs.
 */
export function retryDelay(retry: number, o: Retries, retryAfterSeconds: number | null = null, random: () => number = Math.random): number {
  const jittered = nextDelay({ initialMs: o.baseMs, maxMs: o.maxMs, factor: 2, jitter: 'equal' }, retry, random);
  if (retryAfterSeconds === null) return jittered;
  return Math.max(jittered, Math.min(o.maxMs, retryAfterSeconds * 1000));
}

/** Retry-After as seconds, when it is a plain number (MAAS never sends the date form). */
export function parseRetryAfter(v: string | string[] | undefined): number | null {
  if (typeof v !== 'string' || !/^\d+$/.test(v.trim())) return null;
  return Number(v.trim());
}
