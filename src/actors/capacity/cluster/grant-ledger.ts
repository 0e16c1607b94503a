// The broker's grant ledger: every decision of the cluster broker, as a reducer
// `step(ledger, event, now) -> effects`. No clock, no KV, no bus, no timer: the broker actor
// (cluster-broker.ts) reads and writes pool records, answers and publishes what the effects say,
// and feeds the outcome of each write back as an event. The ledger is the actor's own state and
// the reducer updates it in place (its queues are the O(1) WaitQueue, not copies per event).
import { isValidLimit } from '../limits.ts';
import { isLive } from './grant-record.ts';
import type { Versioned } from './grant-store.ts';
import { candidatesOf, freeInUse, grantIn, isDirty, newPoolMem, roomIn } from './pool-mem.ts';
import type { FailedWrite, PoolMem } from './pool-mem.ts';
import type { AcquireReply, AcquireRequest, ReleaseReply, ReleaseRequest, RenewReply, RenewRequest, RenewResult, SetLimitReply, SlotPush } from './messages.ts';
import type { Candidate, Change, Effect as ReconcileEffect } from './reconcile.ts';
import { reconcile } from './reconcile.ts';
import type { Waiter } from './wait-queue.ts';

/** The broker's timings, all derived from the grant TTL. */
export interface LedgerTimings {
  readonly ttlMs: number;
  /** How often pending renewals are written. */
  readonly flushEveryMs: number;
  /** A renewed grant whose KV expiry comes this close is written even before the flush is due. */
  readonly flushLeadMs: number;
  /** Steady renewals keep every grant durable for over a third of a TTL; less means write at once. */
  readonly urgentMs: number;
  /**
   * Waiters whose node stopped asking are passed over at once by every grant; dropping them from
   * the queue (and the figures) waits for this sweep, so no turn pays a walk of the whole queue.
   */
  readonly waiterSweepMs: number;
}

export function ledgerTimings(ttlMs: number): LedgerTimings {
  return {
    ttlMs,
    flushEveryMs: Math.max(1, Math.floor(ttlMs / 3)),
    flushLeadMs: Math.max(1, Math.floor(ttlMs / 4)),
    urgentMs: Math.floor(ttlMs / 3),
    waiterSweepMs: Math.max(1, Math.floor(ttlMs / 4)),
  };
}

export interface LedgerCounts {
  granted: number;
  released: number;
  expired: number;
  pushed: number;
  errors: number;
  conflicts: number;
  writes: number;
  batches: number;
}

export interface Ledger {
  readonly timings: LedgerTimings;
  /** The epoch being served; grant ids and notices carry it. */
  epoch: number;
  pools: Map<string, PoolMem>;
  seq: number;
  /** When the pending renewals must be written; null when there are none. */
  flushDueAt: number | null;
  /** When to look for lapsed in-memory grants; null while there are none. */
  sweepAt: number | null;
  /** When to drop waiters whose node stopped asking; null while nobody waits. */
  waiterSweepAt: number | null;
  /** Pools the request being served read or staged, with the write generation it rides on. */
  touched: Array<readonly [PoolMem, number]>;
  readonly counts: LedgerCounts;
}

export function newLedger(timings: LedgerTimings): Ledger {
  return {
    timings, epoch: 0, pools: new Map(), seq: 0, flushDueAt: null, sweepAt: null, waiterSweepAt: null, touched: [],
    counts: { granted: 0, released: 0, expired: 0, pushed: 0, errors: 0, conflicts: 0, writes: 0, batches: 0 },
  };
}

/** Everything staged on one pool since its last write, taken out for one compare-and-set. */
export interface PendingWrite {
  readonly pool: string;
  readonly gen: number;
  readonly base: Versioned;
  readonly record: Versioned['record'];
  readonly promoted: readonly Waiter[];
  readonly pushes: PoolMem['pushes'];
  readonly staged: number;
}

export type LedgerEvent =
  | { readonly type: 'elected'; readonly epoch: number }
  | { readonly type: 'deposed' }
  /** A pool record read from KV the first time this session touches the pool. */
  | { readonly type: 'loaded'; readonly pool: string; readonly v: Versioned }
  /** A pool record read again (an overlapping broker may have written it): KV's copy replaces ours. */
  | { readonly type: 'reread'; readonly pool: string; readonly v: Versioned }
  /**
   * A new broker resumes a pool: every live grant extended to now + ttl, the record claimed.
   * `limit`: the limit this broker is configured with (--limit, PROVISIONING_LIMIT), replacing the
   * record's: records outlive the nodes, and an operator restarts them to change the limit.
   */
  | { readonly type: 'resume'; readonly pool: string; readonly limit?: number }
  /** `reread`: pools already read again for this very request (each at most once). */
  | { readonly type: 'acquire'; readonly req: AcquireRequest }
  | { readonly type: 'release'; readonly req: ReleaseRequest; readonly reread: ReadonlySet<string> }
  | { readonly type: 'renew'; readonly req: RenewRequest; readonly reread: ReadonlySet<string> }
  | { readonly type: 'setLimit'; readonly pool: string; readonly limit: number }
  | { readonly type: 'tick' }
  | { readonly type: 'written'; readonly write: PendingWrite; readonly v: Versioned }
  /** `durable`: the record as KV has it after a conflict, when it could be read. */
  | { readonly type: 'writeFailed'; readonly write: PendingWrite; readonly failed: FailedWrite; readonly durable?: Versioned };

export type LedgerEffect =
  | { readonly type: 'reply'; readonly value: AcquireReply | ReleaseReply | RenewReply | SetLimitReply }
  /** Publish a notice to a holder's node now. */
  | { readonly type: 'notify'; readonly node: string; readonly push: SlotPush }
  /** The request needs these pools read again from KV (after writing what is staged on them); then feed it again. */
  | { readonly type: 'reread'; readonly pools: readonly string[] };

const NONE: readonly LedgerEffect[] = [];
const reply = (value: Extract<LedgerEffect, { type: 'reply' }>['value']): readonly LedgerEffect[] => [{ type: 'reply', value }];

/**
 * One event applied to the ledger. Requests name only pools already loaded (the actor feeds
 * `loaded` first). Throws a RangeError for a limit that is not one (as the bus schema would).
 */
export function step(l: Ledger, event: LedgerEvent, now: number): readonly LedgerEffect[] {
  switch (event.type) {
    case 'elected':
      l.epoch = event.epoch;
      l.pools = new Map();
      l.flushDueAt = null;
      return NONE;
    case 'deposed':
      // Waiters live only here: their proxies re-send them to the next broker.
      l.pools = new Map();
      l.flushDueAt = null;
      return NONE;
    case 'loaded': {
      let p = l.pools.get(event.pool);
      if (!p) {
        p = newPoolMem(event.pool, event.v);
        l.pools.set(event.pool, p);
      }
      touch(l, p);
      return NONE;
    }
    case 'reread': {
      const p = pool(l, event.pool);
      p.durable = event.v;
      p.v = event.v;
      touch(l, p);
      return NONE;
    }
    case 'resume':
      if (event.limit !== undefined) checkLimit(event.pool, event.limit);
      stage(l, pool(l, event.pool), now, { extendTo: now + l.timings.ttlMs, ...(event.limit !== undefined ? { limit: event.limit } : {}) });
      return NONE;
    case 'acquire': return reply(acquire(l, event.req, now));
    case 'release': return release(l, event.req, event.reread, now);
    case 'renew': return renew(l, event.req, event.reread, now);
    case 'setLimit': return reply(setLimit(l, event.pool, event.limit, now));
    case 'tick': return tick(l, now);
    case 'written': return written(l, event.write, event.v, now);
    case 'writeFailed':
      writeFailed(l, event.write, event.failed, event.durable);
      return NONE;
  }
}

function pool(l: Ledger, name: string): PoolMem {
  const p = l.pools.get(name);
  if (!p) throw new Error(`capacity ledger: pool ${name} was not loaded before a request named it`);
  return p;
}

function touch(l: Ledger, p: PoolMem): void {
  l.touched.push([p, p.gen]);
}

const newGrantId = (l: Ledger) => (): string => `e${l.epoch}-${(++l.seq).toString(36)}`;

/** A waiter whose node has not asked for it for a TTL (its node died or gave it up). */
export const staleAt = (l: Ledger, now: number) => (w: Waiter): boolean => now - w.seenAt > l.timings.ttlMs;

const expiredReason = (ttlMs: number): string => `grant expired: not renewed within ${ttlMs} ms`;

/**
 * Stage one change on a pool's working record and note what it did: waiters promoted, notices to
 * send, counters. Nothing is written or announced here: the turn writes each pool once, then
 * answers and notifies from that write.
 */
function stage(l: Ledger, p: PoolMem, now: number, change: Omit<Change, 'renewed' | 'candidates'>, fresh?: Candidate): ReconcileEffect | null {
  touch(l, p);
  const { epoch } = l;
  const { ttlMs } = l.timings;
  // Waiters whose node stopped asking are passed over (and dropped) where the walk meets them.
  const stale = new Set<Waiter>();
  const candidates = candidatesOf(p.queue.live(staleAt(l, now), stale), fresh);
  const result = reconcile(p.v.record, now, { ...change, renewed: p.renewed, candidates, extraInUse: freeInUse(p, now) }, { epoch, ttlMs, newGrantId: newGrantId(l) });
  // Applied or moot: a renewal of a grant that lapsed in KV is not revived.
  p.renewed.clear();
  for (const w of stale) if (p.queue.get(w.holder) === w) p.queue.delete(w.holder);
  if (result === null) return null;
  p.v = { revision: p.durable.revision, record: { ...result.next, epoch } };
  const { effect } = result;
  p.staged += effect.granted.length;
  for (const { candidate, grant } of effect.granted) {
    l.counts.granted++;
    if (candidate === fresh) continue;
    p.queue.delete(candidate.holder);
    p.promoted.push(candidate as Waiter);
    p.pushes.push({
      node: grant.node,
      make: (at) => ({
        type: 'slotGranted', epoch, holder: grant.holder, pool: p.name, grantId: grant.grantId,
        operation: grant.operation, waitedMs: Math.max(0, grant.grantedAt - candidate.requestedAt), validForMs: Math.max(0, grant.expiresAt - at),
      }),
    });
  }
  for (const g of effect.lost) {
    l.counts.expired++;
    p.pushes.push({ node: g.node, make: () => ({ type: 'slotLost', epoch, holder: g.holder, pool: p.name, grantId: g.grantId, reason: expiredReason(ttlMs) }) });
  }
  if (effect.released) l.counts.released++;
  return effect;
}

/** Takes out what is staged on a pool for one compare-and-set; null when nothing is. */
export function beginWrite(l: Ledger, name: string): PendingWrite | null {
  const p = pool(l, name);
  if (!isDirty(p)) return null;
  const write: PendingWrite = { pool: name, gen: p.gen++, base: p.durable, record: p.v.record, promoted: p.promoted.splice(0), pushes: p.pushes.splice(0), staged: p.staged };
  p.staged = 0;
  return write;
}

/** Pools with staged changes, in the order they were first loaded. */
export function dirtyPools(l: Ledger): string[] {
  return [...l.pools.values()].filter(isDirty).map((p) => p.name);
}

/** Durable: the notices go out. */
function written(l: Ledger, write: PendingWrite, v: Versioned, now: number): readonly LedgerEffect[] {
  const p = l.pools.get(write.pool);
  if (!p) return NONE;
  p.durable = v;
  p.v = v;
  l.counts.writes++;
  p.granted += write.staged;
  return write.pushes.map(({ make, node }) => ({ type: 'notify', node, push: make(now) }));
}

/**
 * Refused or failed: the pool goes back to what KV has (as read after a conflict), promoted
 * waiters queue again, and every request that rode on this write is answered with the failure.
 */
function writeFailed(l: Ledger, write: PendingWrite, failed: FailedWrite, durable: Versioned | undefined): void {
  const p = l.pools.get(write.pool);
  if (!p) return;
  if (durable !== undefined) p.durable = durable;
  p.v = p.durable;
  for (const w of write.promoted) if (p.queue.get(w.holder) === undefined) p.queue.add(w);
  p.failed.set(write.gen, failed);
}

/** The failure of the first write that failed among these pools, if any. */
export function firstFailure(l: Ledger, pools: readonly string[]): FailedWrite | null {
  for (const name of pools) for (const f of l.pools.get(name)?.failed.values() ?? []) return f;
  return null;
}

/** Forgets the turn's failed writes: every request of the turn has been answered. */
export function clearFailures(l: Ledger): void {
  for (const p of l.pools.values()) p.failed.clear();
}

function scheduleSweep(l: Ledger, at: number): void {
  if (l.sweepAt === null || at < l.sweepAt) l.sweepAt = at;
}

/**
 * The operation of an in-memory grant a broker learned from a renewal (made by a broker before
 * it): which node renews it first is no proof of where its host runs, so until an acquire adopts
 * it, a renewal from another node takes it over. Any other in-memory grant moves only with an
 * acquire, as a grant in the record does.
 */
const LEARNED = 'adopted';

/** A pool without a limit: granted at once, in memory (see PoolMem.free). */
function grantFree(l: Ledger, p: PoolMem, req: AcquireRequest, now: number): AcquireReply {
  const { ttlMs } = l.timings;
  let g = p.free.get(req.holder);
  const adopted = g !== undefined && isLive(g, now);
  if (g && adopted) {
    g = { ...g, node: req.node, expiresAt: now + ttlMs, ...(g.operation === LEARNED ? { operation: req.operation } : {}) };
  } else {
    g = {
      grantId: newGrantId(l)(), holder: req.holder, node: req.node, operation: req.operation, exempt: req.exempt,
      brokerEpoch: l.epoch, grantedAt: now, expiresAt: now + ttlMs,
    };
    l.counts.granted++;
    p.granted++;
  }
  p.free.set(req.holder, g);
  scheduleSweep(l, now + ttlMs);
  return { epoch: l.epoch, status: 'granted', grantId: g.grantId, waitedMs: 0, validForMs: ttlMs, adopted };
}

function acquire(l: Ledger, req: AcquireRequest, now: number): AcquireReply {
  const p = pool(l, req.pool);
  touch(l, p);
  const { epoch } = l;
  const w = p.queue.get(req.holder);
  if (w) {
    w.seenAt = now;
    w.node = req.node;
    w.operation = req.operation;
    if (!req.exempt) return { epoch, status: 'queued', position: p.queue.position(req.holder) };
    p.queue.delete(req.holder);
  }
  const held = grantIn(p, req.holder);
  // A live in-memory grant is adopted even after a limit was set on the pool (it counts against
  // that limit already): asked for again (its host's new owner), it must not queue behind itself
  // or be given a second slot.
  const heldFree = held ? undefined : p.free.get(req.holder);
  if (!held && (p.v.record.limit === 0 || (heldFree !== undefined && isLive(heldFree, now)))) return grantFree(l, p, req, now);
  if (held && isLive(held, now)) {
    // Asking again proves the holder alive: as good as a renew. The grant is written (renewed)
    // before it is confirmed: our copy may be stale if a broker of a later epoch overlapped
    // with us and released it, and only the compare-and-set can tell.
    p.renewed.set(held.grantId, now + l.timings.ttlMs);
    stage(l, p, now, { confirm: true, ...(held.node !== req.node ? { moveTo: { holder: req.holder, node: req.node } } : {}) });
    const g = grantIn(p, req.holder);
    if (g && isLive(g, now)) return { epoch, status: 'granted', grantId: g.grantId, waitedMs: 0, validForMs: Math.max(0, g.expiresAt - now), adopted: true };
  }
  const fresh: Waiter = { holder: req.holder, node: req.node, operation: req.operation, exempt: req.exempt, requestedAt: w?.requestedAt ?? now - (req.waitedMs ?? 0), seenAt: now };
  // FIFO: the queue's waiters come first; the write is skipped when nobody fits (no room, no change).
  const effect = stage(l, p, now, {}, fresh);
  const mine = effect?.granted.find((g) => g.candidate === fresh)?.grant ?? grantIn(p, req.holder);
  if (mine && isLive(mine, now)) {
    return { epoch, status: 'granted', grantId: mine.grantId, waitedMs: Math.max(0, mine.grantedAt - fresh.requestedAt), validForMs: Math.max(0, mine.expiresAt - now), adopted: false };
  }
  return { epoch, status: 'queued', position: p.queue.add(fresh) };
}

function release(l: Ledger, req: ReleaseRequest, reread: ReadonlySet<string>, now: number): readonly LedgerEffect[] {
  if (req.pool === undefined) return releaseEverywhere(l, req.holder, now);
  const { holder, node } = req;
  const p = pool(l, req.pool);
  touch(l, p);
  const { epoch } = l;
  const answer = (outcome: ReleaseReply['outcome']): readonly LedgerEffect[] => reply({ epoch, outcome });
  // Taken over by another node (the host's shard moved and its new owner adopted the slot):
  // the old owner's release, however late, must not free a slot the backend work still uses.
  const elsewhere = (g: { node: string } | undefined): boolean => node !== undefined && g !== undefined && g.node !== node;
  const w = p.queue.get(holder);
  if (w) {
    if (elsewhere(w)) return answer('unknown');
    p.queue.delete(holder);
    return answer('cancelled');
  }
  if (elsewhere(p.free.get(holder))) return answer('unknown');
  if (p.free.delete(holder)) {
    l.counts.released++;
    // A limit set on this pool since counts these holders: the freed room goes to a waiter.
    if (p.queue.size > 0) stage(l, p, now, {});
    return answer('released');
  }
  if (!grantIn(p, holder)) {
    // Perhaps written by a broker that overlapped with us: look at KV before saying no.
    if (!reread.has(p.name) && req.inherited !== true) return [{ type: 'reread', pools: [p.name] }];
    return answer('unknown');
  }
  if (elsewhere(grantIn(p, holder))) return answer('unknown');
  const effect = stage(l, p, now, { release: holder, ...(node !== undefined ? { releasedBy: node } : {}) });
  return answer(effect?.released ? 'released' : 'unknown');
}

/**
 * A holder whose object is gone: its place in every queue and its grant in every pool go back,
 * whichever node holds them (nothing runs at the backend for an object that no longer exists). From
 * memory only, a few map lookups a pool: a grant this broker has not seen lapses at its TTL.
 */
function releaseEverywhere(l: Ledger, holder: string, now: number): readonly LedgerEffect[] {
  let outcome: ReleaseReply['outcome'] = 'unknown';
  for (const p of l.pools.values()) {
    if (p.queue.get(holder)) {
      touch(l, p);
      p.queue.delete(holder);
      if (outcome === 'unknown') outcome = 'cancelled';
    }
    if (p.free.delete(holder)) {
      touch(l, p);
      l.counts.released++;
      if (p.queue.size > 0) stage(l, p, now, {});
      outcome = 'released';
    } else if (grantIn(p, holder)) {
      touch(l, p);
      if (stage(l, p, now, { release: holder })?.released) outcome = 'released';
    }
  }
  return reply({ epoch: l.epoch, outcome });
}

/** Whether renewFree would keep this holder's grant in memory (its test, without the change). */
function keptFree(p: PoolMem, holder: string, grantId: string | undefined, now: number): boolean {
  const g = p.free.get(holder);
  if (g) return isLive(g, now);
  return grantId !== undefined && p.v.record.limit === 0 && !grantIn(p, holder);
}

/**
 * Renews an in-memory grant; a holder this broker has never seen keeps the grant it names when
 * the pool has no limit (it was made by a broker before us). False: not an in-memory grant.
 */
function renewFree(l: Ledger, p: PoolMem, holder: string, node: string, grantId: string | undefined, now: number): boolean {
  const expiresAt = now + l.timings.ttlMs;
  const g = p.free.get(holder);
  if (g) {
    if (!isLive(g, now)) return false;
    p.free.set(holder, { ...g, node, expiresAt });
    return true;
  }
  if (grantId === undefined || p.v.record.limit !== 0 || grantIn(p, holder)) return false;
  p.free.set(holder, { grantId, holder, node, operation: LEARNED, exempt: false, brokerEpoch: l.epoch, grantedAt: now, expiresAt });
  return true;
}

/**
 * Pools this renew must read again before it is answered: a grant held elsewhere or not at all
 * may have been written (or moved to this node) by a broker that overlapped with us, so KV's
 * copy is adopted before a holder is told its grant is gone. Each pool at most once a request.
 */
function rereadsFor(l: Ledger, req: RenewRequest, reread: ReadonlySet<string>, now: number): string[] {
  const need = new Set<string>();
  for (const { holder, pool: name, grantId } of req.holders) {
    if (reread.has(name) || need.has(name)) continue;
    const p = pool(l, name);
    if (p.queue.get(holder) || keptFree(p, holder, grantId, now)) continue;
    const mine = grantIn(p, holder);
    if (!mine || mine.node !== req.node) need.add(name);
  }
  return [...need];
}

function renew(l: Ledger, req: RenewRequest, reread: ReadonlySet<string>, now: number): readonly LedgerEffect[] {
  const need = rereadsFor(l, req, reread, now);
  if (need.length > 0) return [{ type: 'reread', pools: need }];
  const { ttlMs, flushEveryMs, urgentMs } = l.timings;
  const seen: { holder: string; pool: string; p: PoolMem; waiting: boolean; moved?: boolean }[] = [];
  const urgent = new Set<PoolMem>();
  for (const { holder, pool: name, grantId } of req.holders) {
    const p = pool(l, name);
    touch(l, p);
    const w = p.queue.get(holder);
    if (w) {
      // Only an acquire moves a waiter to another node: a renew from its old owner, sent before
      // that owner heard its hosts moved, must not take the notices back.
      if (w.node === req.node) w.seenAt = now;
      seen.push({ holder, pool: name, p, waiting: true });
      continue;
    }
    const free = p.free.get(holder);
    if (free !== undefined && free.node !== req.node && free.operation !== LEARNED && isLive(free, now)) {
      // Adopted by another node's acquire (its host moved): a renewal its old owner sent before
      // it stopped the host must not take it back, or the new owner's release is refused.
      seen.push({ holder, pool: name, p, waiting: false, moved: true });
      continue;
    }
    if (renewFree(l, p, holder, req.node, grantId, now)) {
      seen.push({ holder, pool: name, p, waiting: false });
      continue;
    }
    const g = grantIn(p, holder);
    if (g && g.node !== req.node) {
      // Adopted by another node (an acquire moved it): that node renews it now, not this one.
      seen.push({ holder, pool: name, p, waiting: false, moved: true });
      continue;
    }
    if (g && isLive(g, now)) {
      p.renewed.set(g.grantId, now + ttlMs);
      if (l.flushDueAt === null) l.flushDueAt = now + flushEveryMs;
      // Durable for less than a third of a TTL (after a failover, or renews running late): write now,
      // in this one batch, rather than let the holder's proxy give the slot up.
      if (g.expiresAt - now < urgentMs) urgent.add(p);
    }
    seen.push({ holder, pool: name, p, waiting: false });
  }
  for (const p of urgent) stage(l, p, now, {});
  // Positions of a pool's waiting holders in one walk of its queue, not one walk each.
  const asked = new Map<PoolMem, Set<string>>();
  for (const x of seen) if (x.waiting) asked.set(x.p, (asked.get(x.p) ?? new Set()).add(x.holder));
  const positions = new Map([...asked].map(([p, holders]) => [p, p.queue.positions(holders)]));
  const results: RenewResult[] = seen.map(({ holder, pool: name, p, waiting, moved }) => {
    if (moved) return { holder, pool: name, status: 'unknown' };
    if (waiting) return { holder, pool: name, status: 'waiting', position: Math.max(1, positions.get(p)?.get(holder) ?? 0) };
    const g = p.free.get(holder) ?? grantIn(p, holder);
    return g && isLive(g, now) ? { holder, pool: name, status: 'renewed', grantId: g.grantId, validForMs: g.expiresAt - now } : { holder, pool: name, status: 'unknown' };
  });
  return reply({ epoch: l.epoch, results });
}

/** A limit as the record keeps it (0: no limit), or a RangeError naming the pool. */
function checkLimit(name: string, limit: number): void {
  if (!isValidLimit(limit) || limit === Number.POSITIVE_INFINITY) throw new RangeError(`capacity broker: limit of pool ${name} is ${String(limit)}; use a non-negative integer, or 0 for no limit`);
}

function setLimit(l: Ledger, name: string, limit: number, now: number): SetLimitReply {
  // Asked in process, the request was not parsed as a bus request is: the same rule here.
  checkLimit(name, limit);
  const p = pool(l, name);
  touch(l, p);
  stage(l, p, now, { limit });
  return { epoch: l.epoch, pool: name, limit: p.v.record.limit };
}

/**
 * Drops lapsed in-memory grants and tells their holders, as a lapsed record grant is told.
 * Returns the pools where a lapsed grant freed room a waiter may take (a limit set since).
 */
function sweepFree(l: Ledger, now: number, notices: LedgerEffect[]): Set<PoolMem> {
  l.sweepAt = null;
  const freed = new Set<PoolMem>();
  for (const p of l.pools.values()) {
    for (const [holder, g] of p.free) {
      if (isLive(g, now)) {
        scheduleSweep(l, g.expiresAt);
        continue;
      }
      p.free.delete(holder);
      l.counts.expired++;
      if (p.queue.size > 0) freed.add(p);
      notices.push({ type: 'notify', node: g.node, push: { type: 'slotLost', epoch: l.epoch, holder, pool: p.name, grantId: g.grantId, reason: expiredReason(l.timings.ttlMs) } });
    }
  }
  return freed;
}

/**
 * Stages what must be written now: lapsed grants, a due flush, a renewal about to lapse in KV, or
 * room beside a waiter (never expected: every release and lapse grants in its own write; this is
 * the net under that rule, and the stall watch counts it if it ever catches one).
 */
function tick(l: Ledger, now: number): readonly LedgerEffect[] {
  const { flushLeadMs, flushEveryMs } = l.timings;
  const notices: LedgerEffect[] = [];
  const flushDue = l.flushDueAt !== null && l.flushDueAt <= now;
  if (l.sweepAt !== null && l.sweepAt <= now) {
    for (const p of sweepFree(l, now, notices)) stage(l, p, now, {});
  }
  const sweepWaiters = l.waiterSweepAt !== null && l.waiterSweepAt <= now;
  if (sweepWaiters) {
    l.waiterSweepAt = null;
    for (const p of l.pools.values()) p.queue.dropStale(staleAt(l, now));
  }
  for (const p of [...l.pools.values()]) {
    const due = (flushDue && p.renewed.size > 0)
      || p.v.record.grants.some((g) => g.expiresAt <= now || (p.renewed.has(g.grantId) && g.expiresAt - flushLeadMs <= now))
      || (sweepWaiters && p.queue.size > 0 && roomIn(p, now) > 0);
    if (due) stage(l, p, now, {});
  }
  const pending = [...l.pools.values()].some((p) => p.renewed.size > 0);
  if (!pending) l.flushDueAt = null;
  else if (flushDue) l.flushDueAt = now + flushEveryMs;
  return notices;
}

/**
 * The earliest moment something must be written, or null for never. Starts the waiter sweep's
 * clock when someone waits (the one change a query makes: it is when the sweep becomes due).
 */
export function wakeAt(l: Ledger, now: number): number | null {
  const { flushLeadMs, waiterSweepMs } = l.timings;
  let next = Math.min(l.flushDueAt ?? Number.POSITIVE_INFINITY, l.sweepAt ?? Number.POSITIVE_INFINITY);
  for (const p of l.pools.values()) {
    for (const g of p.v.record.grants) next = Math.min(next, p.renewed.has(g.grantId) ? g.expiresAt - flushLeadMs : g.expiresAt);
    if (p.queue.size > 0 && l.waiterSweepAt === null) l.waiterSweepAt = now + waiterSweepMs;
  }
  if (l.waiterSweepAt !== null) next = Math.min(next, l.waiterSweepAt);
  return next === Number.POSITIVE_INFINITY ? null : next;
}
