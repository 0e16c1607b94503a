// Flag parsers for `metalfleet sim maas` beyond the machines: the speed, the fault knobs and a
// fixed API key. Each throws a CliError (exit 2) that names the flag; none echoes a key.
import type { MaasFaults, SeedBootResource } from '../../sim/maas/index.ts';
import { CliError } from '../cli-error.ts';
import { MAX_TIMER_MS } from '../config.ts';

/** --speed N: lifecycle timings are divided by N (10 = ten times faster than a real MAAS). */
export function speedFlag(value: string): number {
  const n = Number(value);
  if (!(Number.isFinite(n) && n > 0)) throw new CliError(`--speed: expected a number > 0 (e.g. 10 for ten times faster), got "${value}"`, 2);
  return n;
}

/** --error-rate R: the share of requests answered 503. */
export function rateFlag(value: string): number {
  const n = Number(value);
  if (!(value.trim() !== '' && n >= 0 && n <= 1)) throw new CliError(`--error-rate: expected a number from 0 to 1 (the share of requests answered 503), got "${value}"`, 2);
  return n;
}

/** --latency-ms MS: added to every response. */
export function latencyFlag(value: string): number {
  const n = Number(value);
  if (!(value.trim() !== '' && Number.isFinite(n) && n >= 0)) throw new CliError(`--latency-ms: expected a number of milliseconds >= 0, got "${value}"`, 2);
  if (n > MAX_TIMER_MS) throw new CliError(`--latency-ms: expected a number of milliseconds from 0 to ${MAX_TIMER_MS}, got "${value}"`, 2);
  return n;
}

// Hostnames and system_ids are DNS labels; anything else in a list is a typo worth refusing.
const MACHINE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** A comma-separated list of machines (hostname or system_id); repeating the flag adds to it. */
export function machineListFlag(flag: string): (value: string, previous: string[] | undefined) => string[] {
  return (value, previous) => {
    const names = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const bad = names.find((n) => !MACHINE_NAME.test(n));
    if (bad !== undefined || names.length === 0) throw new CliError(`${flag}: expected hostnames or system_ids separated by commas, got "${bad ?? value}"`, 2);
    return [...(previous ?? []), ...names];
  };
}

// MAAS makes keys of letters and digits (18:18:32); a client splits on ':', so no part may hold one.
const KEY_PART = /^[A-Za-z0-9]{1,64}$/;

/** --api-key: the admin key to serve instead of a random one. Never echoed: it is a credential. */
export function apiKeyFlag(value: string): string {
  const parts = value.split(':');
  if (parts.length !== 3 || !parts.every((p) => KEY_PART.test(p))) {
    throw new CliError('--api-key: expected CONSUMER_KEY:TOKEN_KEY:TOKEN_SECRET, three parts of letters and digits (MAAS makes them 18:18:32 characters long); the value given is not shown', 2);
  }
  return value;
}

export interface FaultFlags {
  failDeploy?: string[];
  broken?: string[];
  powerOffAfterDeploy?: string[];
  latencyMs?: number;
  errorRate?: number;
}

/** The faults the flags ask for; only those given, so the simulator's defaults stay for the rest. */
export function faultsFrom(flags: FaultFlags): Partial<MaasFaults> {
  const faults: Partial<MaasFaults> = {};
  if (flags.failDeploy) faults.failDeployment = flags.failDeploy;
  if (flags.broken) faults.broken = flags.broken;
  if (flags.powerOffAfterDeploy) faults.powerOffAfterDeploy = flags.powerOffAfterDeploy;
  if (flags.latencyMs !== undefined) faults.latencyMs = flags.latencyMs;
  if (flags.errorRate !== undefined) faults.serverErrorRate = flags.errorRate;
  return faults;
}

/** The first fault flag naming a machine the fleet does not have, as an error; a typo would otherwise do nothing. */
export function unknownFaultMachine(flags: FaultFlags, fleet: ReadonlyArray<{ system_id: string; hostname: string }>): CliError | undefined {
  const known = new Set(fleet.flatMap((m) => [m.system_id, m.hostname]));
  const lists: Array<[string, string[] | undefined]> = [['--fail-deploy', flags.failDeploy], ['--broken', flags.broken], ['--power-off-after-deploy', flags.powerOffAfterDeploy]];
  for (const [flag, names] of lists) {
    const unknown = names?.find((n) => !known.has(n));
    if (unknown !== undefined) return new CliError(`${flag}: no machine "${unknown}" in the fleet (hostnames: ${fleet.map((m) => m.hostname).join(', ')})`, 2);
  }
  return undefined;
}

// A custom image's name as MAAS takes it (BootResourceForm): osystem/release or a bare name.
const IMAGE_NAME = /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/;
const ARCHITECTURE = /^[a-z0-9]+\/[a-z0-9.-]+$/;

/** --image NAME[@ARCH]: an uploaded custom image the simulated MAAS has (repeatable). */
export function imageFlag(value: string, previous: SeedBootResource[] | undefined): SeedBootResource[] {
  const [name = '', architecture] = value.split('@');
  if (!IMAGE_NAME.test(name) || (architecture !== undefined && !ARCHITECTURE.test(architecture))) {
    throw new CliError(`--image: expected a custom image name with an optional architecture, e.g. custom/my-image or my-image@arm64/generic, got "${value}"`, 2);
  }
  return [...(previous ?? []), { name, ...(architecture ? { architecture } : {}) }];
}
