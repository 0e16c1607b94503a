import { ExpiryList } from './expiry-list.ts';
import { poolFigures, totalsOf, type CapacityFigures } from './figures.ts';
import { grantOf, type Grant } from './grant.ts';
import { normaliseLimit } from './limits.ts';
import { SlotEntry, type PoolState } from './slot-entry.ts';
import { WaiterQueue } from './waiter-queue.ts';

/** How long a grant lives without a renewal: long enough to ride out a GC pause or a NATS hiccup,
 * short enough that a slot of a crashed holder comes back within a minute. */
export const DEFAULT_TTL_MS = 30_000;

export interface PoolBookOptions {
  /** Limits of known pools, keyed by backend endpoint (`ironic:http://…`, `fixture:default`). */
  readonly limits?: Readonly<Record<string, number>>;
  /** Limit of a pool first seen in an acquire. 0 or Infinity = unlimited. */
  readonly defaultLimit: number;
  readonly ttlMs?: number;
  /** Prefix of grant ids; the broker makes it unique per incarnation so ids are never reused. */
  readonly idPrefix?: string;
}

export type AcquireResult<T> =
  | { readonly status: 'granted'; readonly grant: Grant<T>; readonly repeated: boolean }
  | { readonly status: 'queued'; readonly position: number; readonly repeated: boolean };

export interface ReleaseResult<T> {
  /** 'cancelled': the holder was still waiting; 'unknown': it had nothing in this pool. */
  readonly outcome: 'released' | 'cancelled' | 'unknown';
  /** Grants handed to waiters, oldest waiter first, for the caller to notify. */
  readonly granted: readonly Grant<T>[];
}

export type RenewResult<T> =
  | { readonly status: 'renewed'; readonly grant: Grant<T> }
  | { readonly status: 'waiting' }
  | { readonly status: 'unknown' };

export interface ExpireResult<T> {
  /** Grants that ran past `expiresAt`; their holders must be told. */
  readonly lost: readonly Grant<T>[];
  /** Grants handed on to waiters from the freed slots. */
  readonly granted: readonly Grant<T>[];
}

const NO_GRANTS: readonly Grant<never>[] = Object.freeze([]);
const UNKNOWN: ReleaseResult<never> = Object.freeze({ outcome: 'unknown', granted: NO_GRANTS });
const CANCELLED: ReleaseResult<never> = Object.freeze({ outcome: 'cancelled', granted: NO_GRANTS });
const WAITING: RenewResult<never> = Object.freeze({ status: 'waiting' });
const NOT_HELD: RenewResult<never> = Object.freeze({ status: 'unknown' });

/**
 * The broker's ledger, pure: no timers, no I/O, the time comes in as `now`. Per pool, at most
 * `limit` non-exempt grants exist at any moment, each holder has at most one grant or one place in
 * a FIFO queue, and a waiter exists only while the pool is full — a freed slot is handed on in the
 * same call that frees it. Every operation is O(1) apart from `figures` and the rare `position` of
 * a repeated acquire by a waiter.
 *
 * Lowering a limit below the slots in use revokes nothing (a host mid-deploy cannot give a slot
 * back safely); the pool drains down to the new limit as holders release.
 */
export class PoolBook<T = undefined> {
  readonly ttlMs: number;
  private readonly defaultLimit: number;
  private readonly idPrefix: string;
  private readonly pools = new Map<string, PoolState<T>>();
  private readonly expiry = new ExpiryList<SlotEntry<T>>();
  private seq = 0;

  constructor(options: PoolBookOptions) {
    this.defaultLimit = normaliseLimit(options.defaultLimit, 'defaultLimit');
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!(ttlMs > 0 && Number.isFinite(ttlMs))) {
      throw new RangeError(`capacity: ttlMs is ${String(ttlMs)}; use a positive number of milliseconds`);
    }
    this.ttlMs = ttlMs;
    this.idPrefix = options.idPrefix ?? 'g-';
    for (const [pool, limit] of Object.entries(options.limits ?? {})) {
      this.poolNamed(pool).limit = normaliseLimit(limit, `limit of pool ${pool}`);
    }
  }

  /**
   * Grant a slot now, or queue the holder behind earlier waiters. A repeated acquire returns the
   * same grant (renewed: asking again proves the holder alive) or the same queue place, and takes
   * the newest operation and tag, since the latest caller is the one listening. An exempt acquire
   * by a waiter takes it out of the queue and grants it at once.
   */
  acquire(holder: string, pool: string, operation: string, exempt: boolean, now: number, tag?: T): AcquireResult<T> {
    const p = this.poolNamed(pool);
    const existing = p.entries.get(holder);
    if (existing) {
      existing.operation = operation;
      if (tag !== undefined) existing.tag = tag;
      if (existing.state === 'granted') {
        // A grant already past its expiry is not revived: the next expire() takes it, as renew() says.
        if (now < existing.expiresAt) this.extend(existing, now);
        return { status: 'granted', grant: grantOf(existing), repeated: true };
      }
      if (!exempt) return { status: 'queued', position: p.queue.positionOf(existing), repeated: true };
      p.queue.remove(existing);
      existing.exempt = true;
      this.grant(existing, now);
      return { status: 'granted', grant: grantOf(existing), repeated: true };
    }
    const entry = new SlotEntry<T>(holder, p, operation, exempt, now, tag);
    p.entries.set(holder, entry);
    // Nobody jumps the queue: a free slot with waiters cannot exist, but FIFO must not hang on that.
    if (exempt || (p.queue.size === 0 && p.inUse < p.limit)) {
      this.grant(entry, now);
      return { status: 'granted', grant: grantOf(entry), repeated: false };
    }
    p.queue.push(entry);
    return { status: 'queued', position: p.queue.size, repeated: false };
  }

  /** Free the holder's grant (handing the slot to the oldest waiter) or cancel its wait. */
  release(holder: string, pool: string, now: number): ReleaseResult<T> {
    const p = this.pools.get(pool);
    const entry = p?.entries.get(holder);
    if (!p || !entry) return UNKNOWN;
    p.entries.delete(holder);
    if (entry.state === 'waiting') {
      p.queue.remove(entry);
      return CANCELLED;
    }
    this.drop(entry);
    return { outcome: 'released', granted: this.promote(p, now) };
  }

  /** Extend a live grant by the TTL. A grant already past `expiresAt` is lost, not renewed. */
  renew(holder: string, pool: string, now: number): RenewResult<T> {
    const entry = this.pools.get(pool)?.entries.get(holder);
    if (!entry) return NOT_HELD;
    if (entry.state === 'waiting') return WAITING;
    if (now >= entry.expiresAt) return NOT_HELD;
    this.extend(entry, now);
    return { status: 'renewed', grant: grantOf(entry) };
  }

  /** Drop every grant whose `expiresAt` is at or before `now` and hand the freed slots on. */
  expire(now: number): ExpireResult<T> {
    let lost: Grant<T>[] | undefined;
    let granted: Grant<T>[] | undefined;
    for (let entry = this.expiry.head; entry && entry.expiresAt <= now; entry = this.expiry.head) {
      const p = entry.pool;
      p.entries.delete(entry.holder);
      this.drop(entry);
      (lost ??= []).push(grantOf(entry));
      // New grants expire at now + ttl > now, so handing on inside the loop cannot feed it.
      for (const g of this.promote(p, now)) (granted ??= []).push(g);
    }
    return { lost: lost ?? NO_GRANTS, granted: granted ?? NO_GRANTS };
  }

  /** Set a pool's limit (0 or Infinity = unlimited); a raised limit wakes waiters at once. */
  setLimit(pool: string, limit: number, now: number): readonly Grant<T>[] {
    const p = this.poolNamed(pool);
    p.limit = normaliseLimit(limit, `limit of pool ${pool}`);
    return this.promote(p, now);
  }

  /** The earliest `expiresAt` of any grant, for the one timer the broker keeps. */
  nextExpiry(): number | undefined {
    return this.expiry.head?.expiresAt;
  }

  /** What `holder` has in `pool` right now. */
  stateOf(holder: string, pool: string): 'granted' | 'waiting' | 'none' {
    return this.pools.get(pool)?.entries.get(holder)?.state ?? 'none';
  }

  /** The limit a pool has, or would get on its first acquire (Infinity = unlimited). */
  limitOf(pool: string): number {
    return this.pools.get(pool)?.limit ?? this.defaultLimit;
  }

  /** Sums over all pools without building per-holder lists; cheap enough for every describe. */
  summary(): { pools: number; inUse: number; exempt: number; waiting: number } {
    let inUse = 0;
    let exempt = 0;
    let waiting = 0;
    for (const p of this.pools.values()) {
      inUse += p.inUse;
      exempt += p.exemptInUse;
      waiting += p.queue.size;
    }
    return { pools: this.pools.size, inUse, exempt, waiting };
  }

  figures(now: number): CapacityFigures {
    const pools = [...this.pools.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((p) => poolFigures(p, now));
    return { pools, totals: totalsOf(pools) };
  }

  private poolNamed(name: string): PoolState<T> {
    let p = this.pools.get(name);
    if (!p) {
      p = { name, limit: this.defaultLimit, inUse: 0, exemptInUse: 0, entries: new Map(), queue: new WaiterQueue() };
      this.pools.set(name, p);
    }
    return p;
  }

  private grant(entry: SlotEntry<T>, now: number): void {
    entry.state = 'granted';
    entry.grantId = `${this.idPrefix}${++this.seq}`;
    entry.grantedAt = now;
    entry.expiresAt = now + this.ttlMs;
    this.expiry.insert(entry);
    if (entry.exempt) entry.pool.exemptInUse++;
    else entry.pool.inUse++;
  }

  private extend(entry: SlotEntry<T>, now: number): void {
    this.expiry.remove(entry);
    entry.expiresAt = now + this.ttlMs;
    this.expiry.insert(entry);
  }

  /** Unlink a granted entry and give back its slot; the caller removes it from the pool's map. */
  private drop(entry: SlotEntry<T>): void {
    this.expiry.remove(entry);
    if (entry.exempt) entry.pool.exemptInUse--;
    else entry.pool.inUse--;
  }

  private promote(p: PoolState<T>, now: number): readonly Grant<T>[] {
    let granted: Grant<T>[] | undefined;
    while (p.queue.head && p.inUse < p.limit) {
      const next = p.queue.shift() as SlotEntry<T>;
      this.grant(next, now);
      (granted ??= []).push(grantOf(next));
    }
    return granted ?? NO_GRANTS;
  }
}
