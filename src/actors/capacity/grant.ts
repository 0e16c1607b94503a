import type { SlotEntry } from './slot-entry.ts';

/**
 * A slot held by one holder in one pool until `expiresAt` unless renewed. `tag` is whatever the
 * caller attached at acquire time (the broker keeps the holder's notify callback there, so a
 * hand-off needs no second lookup).
 */
export interface Grant<T = unknown> {
  readonly grantId: string;
  readonly holder: string;
  readonly pool: string;
  readonly operation: string;
  /** Virtual-media hosts, as BMO exempts them: listed, but not counted against the limit. */
  readonly exempt: boolean;
  /** When the holder first asked; `grantedAt - requestedAt` is how long it waited. */
  readonly requestedAt: number;
  readonly grantedAt: number;
  readonly expiresAt: number;
  readonly tag: T | undefined;
}

/** A snapshot, so a caller never sees a later renewal or hand-off mutate what it was given. */
export function grantOf<T>(entry: SlotEntry<T>): Grant<T> {
  return {
    grantId: entry.grantId,
    holder: entry.holder,
    pool: entry.pool.name,
    operation: entry.operation,
    exempt: entry.exempt,
    requestedAt: entry.requestedAt,
    grantedAt: entry.grantedAt,
    expiresAt: entry.expiresAt,
    tag: entry.tag,
  };
}
