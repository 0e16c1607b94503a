import type { CallLimits } from '../node/index.ts';
import { DEFAULT_CALL_LIMITS } from '../node/index.ts';
import { maxCallsOver } from './max-call-specs.ts';

/** `--max-calls` as given, over DEFAULT_CALL_LIMITS (max-call-specs.ts). */
export function parseMaxCalls(specs: readonly string[], base: CallLimits = DEFAULT_CALL_LIMITS): CallLimits {
  return maxCallsOver(specs, base);
}

/** The limits as a person reads them back: `ironic=50 fixture=none default=50`. */
export function describeMaxCalls(limits: CallLimits): string {
  const shown = (n: number): string => (Number.isFinite(n) ? String(n) : 'none');
  return [...Object.entries(limits.limits).map(([k, n]) => `${k}=${shown(n)}`), `default=${shown(limits.defaultLimit)}`].join(' ');
}

/** Commander's collector for the repeatable flag: each value checked as it is read. */
export function collectMaxCalls(value: string, previous: readonly string[] = []): string[] {
  parseMaxCalls([value]);
  return [...previous, value];
}

/** The flag's help, with the defaults it starts from. */
export const MAX_CALLS_HELP = `calls without a capacity slot (registration, power, reads) in flight at each backend from this node, the hosts that started first served first: BACKEND=N (a kind such as "ironic", or a pool name) or N for every backend, 0 = no bound; repeatable (default ${describeMaxCalls(DEFAULT_CALL_LIMITS)})`;
