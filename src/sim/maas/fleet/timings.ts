import type { MaasSimOptions } from '../options.ts';

/** How long each lifecycle step of a simulated machine takes, on the simulator's clock. */
export interface LifecycleTimings {
  readonly commissionMs: number;
  readonly deployMs: number;
  readonly releaseMs: number;
  readonly eraseMs: number;
}

// What a real MAAS on bare metal takes, roughly: commissioning boots an ephemeral image and runs
// its scripts (minutes), deployment installs the OS (minutes), a release powers off (seconds),
// erasing (quick erase) boots the ephemeral image again. Divided by `speed`.
export const BELIEVABLE: LifecycleTimings = { commissionMs: 180_000, deployMs: 300_000, releaseMs: 10_000, eraseMs: 60_000 };

function finite(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`startMaasSim: ${name}: expected a finite number >= 0, got ${value}`);
  return value;
}

// Without `speed` the simulator keeps its quick historic timings (1 s deploy, 200 ms release),
// which callers and tests written before `speed` rely on.
const QUICK: LifecycleTimings = { commissionMs: 1000, deployMs: 1000, releaseMs: 200, eraseMs: 200 };

/**
 * The timings a simulator runs with: an explicit deployMs/releaseMs wins (tests keep them short);
 * with `speed`, MAAS's own durations divided by it; with neither, the quick defaults. Commissioning
 * and erasing follow deploying and releasing when those were given, so a fast test stays fast.
 */
export function lifecycleTimings(o: Pick<MaasSimOptions, 'deployMs' | 'releaseMs' | 'speed'>): LifecycleTimings {
  const speed = o.speed;
  if (speed !== undefined && !(Number.isFinite(speed) && speed > 0)) throw new RangeError(`startMaasSim: speed: expected a finite number > 0, got ${speed}`);
  const base = speed === undefined ? QUICK : scaled(speed);
  const deployMs = o.deployMs === undefined ? base.deployMs : finite('deployMs', o.deployMs);
  const releaseMs = o.releaseMs === undefined ? base.releaseMs : finite('releaseMs', o.releaseMs);
  return {
    deployMs,
    releaseMs,
    commissionMs: o.deployMs === undefined ? base.commissionMs : deployMs,
    eraseMs: o.releaseMs === undefined ? base.eraseMs : releaseMs,
  };
}

function scaled(speed: number): LifecycleTimings {
  return {
    commissionMs: BELIEVABLE.commissionMs / speed,
    deployMs: BELIEVABLE.deployMs / speed,
    releaseMs: BELIEVABLE.releaseMs / speed,
    eraseMs: BELIEVABLE.eraseMs / speed,
  };
}
