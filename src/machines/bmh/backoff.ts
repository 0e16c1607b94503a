import { nextDelay, type RetryPolicy } from '../../api/index.ts';
import type { MachineConfig } from './types.ts';

// BMO's calculateBackoff: 2^min(n, cap) units minus up to 50 % jitter, so attempt n waits between
// 2^n/2 and 2^n units (n = 1: 1–2 minutes; the cap of 9 gives 4h16m–8h32m).
// As a RetryPolicy: 2 units first, doubling to 2^cap units, equal jitter; BMO takes its jitter off
// the top, so the random half is 1 - jitter.
export function errorBackoffMs(errorCount: number, jitter: number, config: MachineConfig): number {
  const policy: RetryPolicy = { initialMs: 2 * config.backoffUnitMs, maxMs: 2 ** config.backoffMaxExponent * config.backoffUnitMs, factor: 2, jitter: 'equal' };
  return Math.round(nextDelay(policy, errorCount, () => 1 - clamp01(jitter)));
}

// Transient errors change no status and retry fast, doubling up to a cap, like a workqueue's
// per-item rate limiter.
// `attempt` counts from 0 here (retry 1 under the policy); past 30 the step stops growing.
export function transientBackoffMs(attempt: number, config: MachineConfig): number {
  const policy: RetryPolicy = { initialMs: config.transientBaseMs, maxMs: config.transientMaxMs, factor: 2, jitter: 'none' };
  return nextDelay(policy, Math.min(attempt, 30) + 1, () => 0);
}

// The least a retry the backend names (retryAfterMs) waits: the first step of the transient
// backoff, so no answer, not even a zero, can make a host call again at once.
export function atLeastMinimumMs(ms: number, config: MachineConfig): number {
  return Math.max(ms, config.transientBaseMs);
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(Math.max(x, 0), 1) : 0;
}
