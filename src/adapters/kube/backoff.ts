// Restart delays for informers and conflict retries: exponential, capped, with jitter so that
// several informers (or nodes) failing together do not come back in lockstep.
import { nextDelay, type RetryPolicy } from '../../api/index.ts';

export const INFORMER_BACKOFF: RetryPolicy = { initialMs: 200, maxMs: 30_000, factor: 2, jitter: 'equal' };
export const CONFLICT_BACKOFF: RetryPolicy = { initialMs: 5, maxMs: 500, factor: 2, jitter: 'equal' };

/** Delay before retry number `attempt` (0-based): between half and all of initial·2^attempt, capped, in whole ms. */
export function backoffMs(attempt: number, random: number, policy: RetryPolicy): number {
  return Math.round(nextDelay(policy, Math.min(Math.max(attempt, 0), 30) + 1, () => random));
}
