/** Misbehaviour the simulator can be told to show (capmaas.md §4.4 fault knobs). */
export interface MaasFaults {
  /** These machines (system_id or hostname) go Deploying → Failed deployment. */
  failDeployment: string[] | ((systemId: string, hostname: string) => boolean);
  /** These machines turn themselves off (power_state 'off') once, shortly after each deployment. */
  powerOffAfterDeploy: string[];
  /**
   * These machines are Broken from the moment the fault is set. One that was Ready is still in
   * the allocator's stale view: the next allocate that picks it fails with 409
   * `Invalid transition: Broken -> Allocated.` (the race CAPMAAS handles as ErrBrokenMachine).
   */
  broken: string[];
  /**
   * A BMC outage: the machines named (system_id or hostname) read this power state (`error`, or
   * `unknown`) in MAAS's answers while they are listed; the machines themselves run on. Lift it
   * with setFaults({ bmcOutage: {} }).
   */
  bmcOutage: Readonly<Record<string, 'error' | 'unknown'>>;
  /** 0..1: the chance (drawn with `random`) that a request is answered 503. */
  serverErrorRate: number;
  /** Added to every response, on the simulator's clock. */
  latencyMs: number;
  random: () => number;
}

export const NO_FAULTS: Readonly<MaasFaults> = {
  failDeployment: [],
  powerOffAfterDeploy: [],
  broken: [],
  bmcOutage: {},
  serverErrorRate: 0,
  latencyMs: 0,
  random: Math.random,
};

export function mergeFaults(current: MaasFaults, change: Partial<MaasFaults>): MaasFaults {
  const next: MaasFaults = { ...current, ...change };
  if (!(next.serverErrorRate >= 0 && next.serverErrorRate <= 1)) throw new RangeError(`faults.serverErrorRate: expected a number from 0 to 1, got ${next.serverErrorRate}`);
  if (!(next.latencyMs >= 0 && Number.isFinite(next.latencyMs))) throw new RangeError(`faults.latencyMs: expected a finite number >= 0, got ${next.latencyMs}`);
  for (const [name, reads] of Object.entries(next.bmcOutage)) {
    if (reads !== 'error' && reads !== 'unknown') throw new RangeError(`faults.bmcOutage.${name}: expected 'error' or 'unknown', got ${JSON.stringify(reads)}`);
  }
  return next;
}

export function listNames(list: readonly string[], systemId: string, hostname: string): boolean {
  return list.includes(systemId) || list.includes(hostname);
}

export function failsDeployment(faults: MaasFaults, systemId: string, hostname: string): boolean {
  const f = faults.failDeployment;
  return typeof f === 'function' ? f(systemId, hostname) : listNames(f, systemId, hostname);
}
