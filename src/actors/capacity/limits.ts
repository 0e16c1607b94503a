/**
 * Pool limits. The operator-facing convention (PROVISIONING_LIMIT and friends) is that `0` means
 * "no limit"; the broker's records and wire keep 0, figures show Infinity.
 */
export const UNLIMITED = Number.POSITIVE_INFINITY;

/** BMO's PROVISIONING_LIMIT default (`factory.go` L349). */
export const IRONIC_DEFAULT_LIMIT = 20;

/** How long a grant lives without a renewal: long enough to ride out a GC pause or a NATS hiccup,
 * short enough that a slot of a crashed holder comes back within a minute. */
export const DEFAULT_TTL_MS = 30_000;

export function isValidLimit(limit: unknown): limit is number {
  return typeof limit === 'number' && (limit === UNLIMITED || (Number.isInteger(limit) && limit >= 0));
}
