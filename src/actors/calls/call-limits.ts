/**
 * How many calls a node's actors may have in flight at one backend at once, when the call holds
 * no capacity slot (registration, power, reads, adopt, MAAS allocate and DNS...). A backend is
 * named as its capacity pool is (`ironic:http://ironic:6385`, `maas:http://maas:5240/MAAS`,
 * `fixture:default`); a limit is looked up by that whole name, then by its kind (the part before
 * the first `:`, `ironic`), then `defaultLimit`. Infinity: no bound.
 */
export interface CallLimits {
  readonly limits: Readonly<Record<string, number>>;
  readonly defaultLimit: number;
}

/**
 * 50 calls per backend and node: Ironic's guidance is about 50 operations in flight per conductor,
 * and Ironic 21.4's API serves 100 wsgi greenthreads with one SQLite writer: half of them leaves
 * room for the slot holders' calls (which bypass this bound) and for a second node. BMO's own
 * bound is its reconcile workers, min(NumCPU, 8) by default and 100 in Metal3's scale runs
 * (reference/bmo.md §7). The fixture is simulated in this process: bounding it would protect
 * nothing and make the benches measure the bound, so it is unbounded unless asked.
 */
export const DEFAULT_CALL_LIMITS: CallLimits = {
  limits: { fixture: Number.POSITIVE_INFINITY },
  defaultLimit: 50,
};

/** The limit of the backend `name` (a pool name): by its whole name, then its kind, then the default. */
export function callLimitOf(limits: CallLimits, name: string): number {
  // Own keys only: a backend named `constructor` finds no limit on Object's prototype.
  if (Object.hasOwn(limits.limits, name)) return limits.limits[name]!;
  const colon = name.indexOf(':');
  const kind = colon < 0 ? null : name.slice(0, colon);
  return kind !== null && Object.hasOwn(limits.limits, kind) ? limits.limits[kind]! : limits.defaultLimit;
}

/** Throws, naming the backend, when a limit is not a whole number >= 1 (or Infinity, no bound). */
export function checkCallLimits(limits: CallLimits): void {
  const bad = (n: number): boolean => n !== Number.POSITIVE_INFINITY && !(Number.isInteger(n) && n >= 1);
  for (const [backend, n] of Object.entries(limits.limits)) {
    if (bad(n)) throw new RangeError(`call limit of backend "${backend}": expected a whole number >= 1 (or no bound), got ${n}`);
  }
  if (bad(limits.defaultLimit)) throw new RangeError(`default call limit: expected a whole number >= 1 (or no bound), got ${limits.defaultLimit}`);
}
