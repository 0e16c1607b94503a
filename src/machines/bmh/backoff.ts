import type { MachineConfig } from './types.ts';

// BMO's calculateBackoff: 2^min(n, cap) units minus up to 50 % jitter, so attempt n waits between
// 2^n/2 and 2^n units (n = 1: 1–2 minutes; the cap of 9 gives 4h16m–8h32m).
export function errorBackoffMs(errorCount: number, jitter: number, config: MachineConfig): number {
  const exponent = Math.min(Math.max(errorCount, 1), config.backoffMaxExponent);
  const full = 2 ** exponent * config.backoffUnitMs;
  return Math.round(full - full * 0.5 * clamp01(jitter));
}

// Transient errors change no status and retry fast, doubling up to a cap, like a workqueue's
// per-item rate limiter.
export function transientBackoffMs(attempt: number, config: MachineConfig): number {
  return Math.min(config.transientBaseMs * 2 ** Math.min(attempt, 30), config.transientMaxMs);
}

// The least a retry the backend names (retryAfterMs) waits: the first step of the transient
// backoff, so no answer, not even a zero, can make a host call again at once.
export function atLeastMinimumMs(ms: number, config: MachineConfig): number {
  return Math.max(ms, config.transientBaseMs);
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(Math.max(x, 0), 1) : 0;
}
