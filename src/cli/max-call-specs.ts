import type { CallLimits } from '../node/index.ts';
import { CliError } from './cli-error.ts';

// The parsing of --max-calls alone, over limits the caller gives: it loads nothing of the node,
// so validate (whose plugin flags check --max-calls names) starts without it.

const USAGE = 'expected BACKEND=N (a backend kind such as "ironic", or a pool name such as "ironic:http://ironic:6385") or N for every backend, N a whole number >= 1, or 0 for no bound';

/**
 * `--max-calls` as given (repeated, or comma-separated): `ironic=100`, `maas=20`, `40` (every
 * backend without its own), `fixture=0` (no bound), over `base`. A bad value is a usage
 * error naming it.
 */
export function maxCallsOver(specs: readonly string[], base: CallLimits): CallLimits {
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
