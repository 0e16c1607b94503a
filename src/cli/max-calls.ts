import type { CallLimits } from '../node/index.ts';
import { DEFAULT_CALL_LIMITS } from '../node/index.ts';
import { CliError } from './cli-error.ts';

const USAGE = 'expected BACKEND=N (a backend kind such as "ironic", or a pool name such as "ironic:http://ironic:6385") or N for every backend, N a whole number >= 1, or 0 for no bound';

/**
 * `--max-calls` as given (repeated, or comma-separated): `ironic=100`, `maas=20`, `40` (every
 * backend without its own), `fixture=0` (no bound), over DEFAULT_CALL_LIMITS. A bad value is a
 * usage error naming it.
 */
export function parseMaxCalls(specs: readonly string[], base: CallLimits = DEFAULT_CALL_LIMITS): CallLimits {
  const limits: Record<string, number> = { ...base.limits };
  let defaultLimit = base.defaultLimit;
  for (const spec of specs.flatMap((s) => s.split(','))) {
    const item = spec.trim();
    // The last '=': a pool name may hold one (a URL's query), a count never does.
    const eq = item.lastIndexOf('=');
    const name = eq < 0 ? null : item.slice(0, eq).trim();
    const count = limitOf(eq < 0 ? item : item.slice(eq + 1).trim());
    if (count === null || name === '') throw new CliError(`--max-calls: "${spec}": ${USAGE}`, 2);
    if (name === null) defaultLimit = count;
    else limits[name] = count;
  }
  return { limits, defaultLimit };
}

// 0 is "no bound", as `--limit 0` is for capacity slots.
function limitOf(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) return null;
  return n === 0 ? Number.POSITIVE_INFINITY : n;
}

/** The limits as a person reads them back: `ironic=50 fixture=none default=50`. */
export function describeMaxCalls(limits: CallLimits): string {
  const shown = (n: number): string => (Number.isFinite(n) ? String(n) : 'none');
  return [...Object.entries(limits.limits).map(([k, n]) => `${k}=${shown(n)}`), `default=${shown(limits.defaultLimit)}`].join(' ');
}

/** Commander's collector for the repeatable flag: each value checked as it is read. */
export function collectMaxCalls(value: string, previous: readonly string[]): string[] {
  parseMaxCalls([value]);
  return [...previous, value];
}

/** The flag's help, with the defaults it starts from. */
export const MAX_CALLS_HELP = `calls without a capacity slot (registration, power, reads) in flight at each backend from this node, the hosts that started first served first: BACKEND=N (a kind such as "ironic", or a pool name) or N for every backend, 0 = no bound; repeatable (default ${describeMaxCalls(DEFAULT_CALL_LIMITS)})`;
