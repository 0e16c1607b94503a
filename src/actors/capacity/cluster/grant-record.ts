import { z } from 'zod';
import { HolderKey, NodeName, Operation, PoolName, WireLimit } from './messages.ts';

// One KV key per pool, holding every grant of that pool. The record is the durable truth of who
// holds a slot; every grant and release replaces it by compare-and-set, so the limit check and the
// write are one atomic step against the revision they were computed from.

export const GrantRecord = z.object({
  grantId: z.string().min(1).max(128),
  holder: HolderKey,
  node: NodeName,
  operation: Operation,
  exempt: z.boolean(),
  /** The epoch of the broker that made the grant (kept across resumes: it says who granted). */
  brokerEpoch: z.number().int().nonnegative(),
  grantedAt: z.number().int(),
  /** Free for anyone once the clock passes this (no renew reached KV in time). */
  expiresAt: z.number().int(),
});
export type GrantRecord = z.infer<typeof GrantRecord>;

export const PoolRecord = z.object({
  v: z.literal(1),
  pool: PoolName,
  /** 0 = unlimited. */
  limit: WireLimit,
  /** Epoch of the broker that wrote this version: a broker seeing a higher one is deposed. */
  epoch: z.number().int().nonnegative(),
  grants: z.array(GrantRecord),
});
export type PoolRecord = z.infer<typeof PoolRecord>;

export const POOL_KEY_PREFIX = 'pool.';

/**
 * A pool name as one KV key token, reversibly: letters, digits and '-' stay, every other UTF-8
 * byte (':' '/' '.' '_' ...) becomes `_XX`. JetStream keys allow only `[-/_=.a-zA-Z0-9]`, and a
 * '.' would split the name into tokens that `pool.*` no longer matches.
 */
export function poolKey(pool: string): string {
  let out = POOL_KEY_PREFIX;
  for (const byte of new TextEncoder().encode(pool)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The pool a key names, or null for a key that poolKey cannot have made. */
export function poolOfKey(key: string): string | null {
  if (!key.startsWith(POOL_KEY_PREFIX)) return null;
  const token = key.slice(POOL_KEY_PREFIX.length);
  if (!/^(?:[A-Za-z0-9-]|_[0-9A-F]{2})+$/.test(token)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    if (token[i] === '_') {
      bytes.push(Number.parseInt(token.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(token.charCodeAt(i));
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

export function emptyRecord(pool: string, limit: number): PoolRecord {
  return { v: 1, pool, limit, epoch: 0, grants: [] };
}

/** A grant holds its slot while the clock is before its expiry. */
export function isLive(g: GrantRecord, now: number): boolean {
  return now < g.expiresAt;
}

/** Live non-exempt grants: the ones the limit bounds. */
export function inUse(record: PoolRecord, now: number): number {
  let n = 0;
  for (const g of record.grants) if (!g.exempt && isLive(g, now)) n++;
  return n;
}

export function hasRoom(record: PoolRecord, now: number, extraInUse = 0): boolean {
  return record.limit === 0 || inUse(record, now) + extraInUse < record.limit;
}

export function grantOf(record: PoolRecord, holder: string): GrantRecord | undefined {
  return record.grants.find((g) => g.holder === holder);
}

/**
 * Why `next` may not replace `base`, or null when it may. A write that adds live non-exempt grants
 * (ids not live in `base`: new, or revived after lapsing) must leave at most `limit` of them live;
 * one that adds none may keep more (a lowered limit revokes nothing: a host mid-deploy cannot give
 * a slot back). Every write of a pool record passes this against the revision it replaces, so the
 * check and the write are one compare-and-set.
 */
export function overGrant(base: PoolRecord, next: PoolRecord, now: number): string | null {
  const live = new Set(base.grants.filter((g) => isLive(g, now)).map((g) => g.grantId));
  let added = 0;
  for (const g of next.grants) if (!g.exempt && isLive(g, now) && !live.has(g.grantId)) added++;
  if (added === 0) return null;
  const limit = next.limit;
  if (limit === 0) return null;
  const used = inUse(next, now);
  return used > limit ? `${added} new grants would make ${used} in use over the limit of ${limit}` : null;
}

/** Holders in the record more than once would make the count lie: the record is refused. */
export function duplicateHolder(record: PoolRecord): string | null {
  const seen = new Set<string>();
  for (const g of record.grants) {
    if (seen.has(g.holder)) return g.holder;
    seen.add(g.holder);
  }
  return null;
}

/**
 * `base` with the renewals a broker holds in memory applied (never shortening an expiry). Only
 * grants still live in `base` are extended: one that lapsed in KV may already be someone else's
 * slot in another broker's eyes, so it is not revived.
 */
export function withRenewals(base: PoolRecord, renewed: ReadonlyMap<string, number>, now: number): PoolRecord {
  if (renewed.size === 0) return base;
  let changed = false;
  const grants = base.grants.map((g) => {
    const until = renewed.get(g.grantId);
    if (until === undefined || until <= g.expiresAt || !isLive(g, now)) return g;
    changed = true;
    return { ...g, expiresAt: until };
  });
  return changed ? { ...base, grants } : base;
}
