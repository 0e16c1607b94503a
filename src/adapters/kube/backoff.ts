// Restart delays for informers and conflict retries: exponential, capped, with jitter so that
// several informers (or nodes) failing together do not come back in lockstep.
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const INFORMER_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 30_000 };
export const CONFLICT_BACKOFF: BackoffPolicy = { initialMs: 5, maxMs: 500 };

/** Delay before retry number `attempt` (0-based): between half and all of initial·2^attempt, capped. */
export function backoffMs(attempt: number, random: number, policy: BackoffPolicy): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}
