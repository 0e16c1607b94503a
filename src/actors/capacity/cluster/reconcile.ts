import type { GrantRecord, PoolRecord } from './grant-record.ts';
import { isLive, withRenewals } from './grant-record.ts';

/** Someone who may be granted in this write: a queued waiter or the acquire being answered. */
export interface Candidate {
  readonly holder: string;
  readonly node: string;
  readonly operation: string;
  readonly exempt: boolean;
  readonly requestedAt: number;
}

export interface Change {
  /** Pending renewals (grantId → expiresAt) to write. */
  readonly renewed?: ReadonlyMap<string, number>;
  readonly release?: string;
  /** The node releasing: a grant another node holds now (moved since) is not released. */
  readonly releasedBy?: string;
  readonly limit?: number;
  /** Move a live grant's notices to another node (its host moved). */
  readonly moveTo?: { readonly holder: string; readonly node: string };
  /** Extend every live grant to at least this and claim the record for this epoch (a new broker resuming). */
  readonly extendTo?: number;
  /** Write even if nothing changes: the compare-and-set then proves our copy of the record current. */
  readonly confirm?: boolean;
  /**
   * In grant order: exempt candidates first (no limit binds them), then the queue oldest first.
   * Taking stops at the first candidate that does not fit: FIFO lets nobody behind it pass, and a
   * write then costs what it grants, never the length of the queue. May be lazy; it is walked
   * afresh on every compare-and-set attempt.
   */
  readonly candidates?: Iterable<Candidate>;
  /** Slots in use outside the record (grants the broker keeps in memory), counted against the limit. */
  readonly extraInUse?: number;
}

export interface Effect {
  /** Candidates granted in this write, with their grants. */
  readonly granted: readonly { readonly candidate: Candidate; readonly grant: GrantRecord }[];
  /** Grants that had lapsed and were dropped. */
  readonly lost: readonly GrantRecord[];
  readonly released: GrantRecord | undefined;
}

export interface ReconcileContext {
  readonly epoch: number;
  readonly ttlMs: number;
  readonly newGrantId: () => string;
}

/**
 * The next version of a pool record: renewals applied, lapsed grants dropped, the change made and
 * freed room handed to candidates in order. Pure. Returns null when the record would not change.
 * Room is judged on the record being replaced, as the store's CAS check judges it.
 */
export function reconcile(base: PoolRecord, now: number, change: Change, ctx: ReconcileContext): { next: PoolRecord; effect: Effect } | null {
  const renewed = withRenewals(base, change.renewed ?? new Map(), now);
  let changed = renewed !== base || change.confirm === true;
  const lost: GrantRecord[] = [];
  let grants: GrantRecord[] = [];
  for (const g of renewed.grants) {
    if (isLive(g, now)) grants.push(g);
    else lost.push(g);
  }
  if (lost.length > 0) changed = true;
  let limit = base.limit;
  if (change.limit !== undefined && change.limit !== limit) {
    limit = change.limit;
    changed = true;
  }
  let released: GrantRecord | undefined;
  if (change.release !== undefined) {
    // Judged on the record being replaced, as every change is: a compare-and-set that lost to
    // another broker's write runs this again on the newer record, where the grant may have moved.
    released = grants.find((g) => g.holder === change.release && (change.releasedBy === undefined || g.node === change.releasedBy));
    if (released) {
      grants = grants.filter((g) => g !== released);
      changed = true;
    }
  }
  if (change.moveTo) {
    const { holder, node } = change.moveTo;
    grants = grants.map((g) => {
      if (g.holder !== holder || g.node === node) return g;
      changed = true;
      return { ...g, node };
    });
  }
  if (change.extendTo !== undefined) {
    // Resuming claims the record even when no expiry moves: the epoch written fences the old broker out.
    if (base.epoch < ctx.epoch) changed = true;
    const until = change.extendTo;
    grants = grants.map((g) => {
      if (g.expiresAt >= until) return g;
      changed = true;
      return { ...g, expiresAt: until };
    });
  }
  const granted: { candidate: Candidate; grant: GrantRecord }[] = [];
  if (change.candidates !== undefined) {
    const holding = new Set<string>();
    let used = change.extraInUse ?? 0;
    for (const g of grants) {
      holding.add(g.holder);
      if (!g.exempt) used++;
    }
    for (const candidate of change.candidates) {
      // Already granted (by an earlier write of this or another broker): nothing to add.
      if (holding.has(candidate.holder)) continue;
      if (!candidate.exempt && limit !== 0 && used >= limit) break;
      const grant: GrantRecord = {
        grantId: ctx.newGrantId(),
        holder: candidate.holder,
        node: candidate.node,
        operation: candidate.operation,
        exempt: candidate.exempt,
        brokerEpoch: ctx.epoch,
        grantedAt: now,
        expiresAt: now + ctx.ttlMs,
      };
      // `grants` is this call's own array (built above), so it grows in place.
      grants.push(grant);
      holding.add(candidate.holder);
      if (!candidate.exempt) used++;
      granted.push({ candidate, grant });
      changed = true;
    }
  }
  const record: PoolRecord = { ...base, limit, grants };
  if (!changed) return null;
  return { next: record, effect: { granted, lost, released } };
}
