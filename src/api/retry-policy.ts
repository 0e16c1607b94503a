// One way to say how a retry loop backs off, as data (Temporal's RetryPolicy, nats.js's backoff()):
// every loop names a policy and asks nextDelay, so no place keeps a formula of its own that drifts.
import { z } from 'zod';

/**
 * `none`: the capped step itself. `full`: anywhere in [0, step). `equal`: half the step fixed and
 * half random, so callers that failed together spread out but every one still backs off.
 */
export const RetryJitter = z.enum(['none', 'full', 'equal']);
export type RetryJitter = z.infer<typeof RetryJitter>;

export const RetryPolicy = z
  .object({
    initialMs: z.number({ error: 'initialMs must be a number of milliseconds' }).min(0, 'initialMs must be 0 or more'),
    maxMs: z.number({ error: 'maxMs must be a number of milliseconds' }).min(0, 'maxMs must be 0 or more'),
    factor: z.number({ error: 'factor must be a number' }).min(1, 'factor must be 1 or more (a retry never waits less than the one before)').default(2),
    jitter: RetryJitter.default('none'),
  })
  .refine((p) => p.maxMs >= p.initialMs, { path: ['maxMs'], message: 'maxMs must be at least initialMs' });
export type RetryPolicy = z.infer<typeof RetryPolicy>;
/** What a caller may write: factor and jitter take their defaults. */
export type RetryPolicyInput = z.input<typeof RetryPolicy>;

/**
 * The wait before retry `attempt` (1 = the first retry): initialMs · factor^(attempt−1), capped at
 * maxMs, then jittered with `random()` (taken as [0, 1]; values outside are clamped). Pure: tests
 * pass a fixed random. Attempts below 1 count as 1.
 */
export function nextDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const step = cappedStep(policy, attempt);
  switch (policy.jitter) {
    case 'none':
      return step;
    case 'full':
      return clamp01(random()) * step;
    case 'equal':
      return step / 2 + clamp01(random()) * (step / 2);
  }
}

function cappedStep(policy: RetryPolicy, attempt: number): number {
  // A policy that starts at 0 stays at 0 (0 · Infinity would be NaN for a huge attempt).
  if (policy.initialMs <= 0) return 0;
  const exponent = Math.max(Math.floor(attempt), 1) - 1;
  return Math.min(policy.maxMs, policy.initialMs * policy.factor ** exponent);
}

function clamp01(x: number): number {
  return Number.isNaN(x) ? 0 : Math.min(Math.max(x, 0), 1);
}
