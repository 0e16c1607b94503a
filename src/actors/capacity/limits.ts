/**
 * Pool limits. The operator-facing convention (PROVISIONING_LIMIT and friends) is that `0` means
 * "no limit", so both 0 and Infinity normalise to Infinity internally; the comparison
 * `inUse < limit` then needs no special case on the hot path.
 */
export const UNLIMITED = Number.POSITIVE_INFINITY;

/** BMO's PROVISIONING_LIMIT default (`factory.go` L349). */
export const IRONIC_DEFAULT_LIMIT = 20;

export function isValidLimit(limit: unknown): limit is number {
  return typeof limit === 'number' && (limit === UNLIMITED || (Number.isInteger(limit) && limit >= 0));
}

export function normaliseLimit(limit: number, what = 'limit'): number {
  if (!isValidLimit(limit)) {
    throw new RangeError(
      `capacity: ${what} is ${String(limit)}; use a non-negative integer, or 0 or Infinity for no limit`,
    );
  }
  return limit === 0 ? UNLIMITED : limit;
}
