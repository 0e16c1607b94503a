// The one capacity broker, on every node (the embedded default too). It keeps the design of the
// old in-process ledger: a FIFO queue per pool with an index by holder, exempt holders listed but
// not counted, and a pool without a limit granted at once (here: in memory, never written to KV).
import { encode, fail, ok, serve, subjects as defaultSubjects } from '../../../bus/index.ts';
import type { Reply as RpcReply, RpcService, Subjects } from '../../../bus/index.ts';
import type { KvBucket, Logger, Transport } from '../../../ports/index.ts';
import { KvConflict, KvUnavailable, silentLogger } from '../../../ports/index.ts';
import {
  spawn, stop, tell, tellExpress, tellFirst,
  type ActorContext, type ActorRef, type ActorSystem, type AnyActorRef, type Behavior, type Clock, type TimerHandle,
} from '../../runtime/index.ts';
import { DEFAULT_TTL_MS, isValidLimit } from '../limits.ts';
import { inUse, isLive } from './grant-record.ts';
import { BrokerDeposed, CorruptRecord, GrantStore, OverGrant } from './grant-store.ts';
import { candidatesOf, freeInUse, grantIn, isDirty, newPoolMem, roomIn } from './pool-mem.ts';
import type { FailedWrite, PoolMem } from './pool-mem.ts';
import type { Leadership } from './leadership.ts';
import type { AcquireReply, AcquireRequest, BrokerRequest as BrokerRequestT, ReleaseReply, RenewReply, RenewRequest, RenewResult, SetLimitReply, SlotPush, WireFigures } from './messages.ts';
import { BrokerRequest } from './messages.ts';
import type { Candidate, Change, Effect } from './reconcile.ts';
import { reconcile } from './reconcile.ts';
import type { Waiter } from './wait-queue.ts';

export interface ClusterBrokerOptions {
  readonly transport: Transport;
  /** The bucket of pool records (`pool.<encoded pool>`); every broker of the cluster uses the same. */
  readonly kv: KvBucket;
  readonly leadership: Leadership;
  /** Limit of a pool whose record does not exist yet; 0 or Infinity = unlimited. */
  readonly defaultLimit: number;
  /** Limits of known pools, used when their record is first created (a record's limit then stands). */
  readonly limits?: Readonly<Record<string, number>>;
  /** Grant lifetime without a renew reaching KV; default 30 s. Same on every node. */
  readonly ttlMs?: number;
  readonly clock?: Clock;
  readonly subjects?: Subjects;
  /** Actor name; default 'capacity-broker'. */
  readonly name?: string;
  readonly logger?: Logger;
  /** Delivers a notice to a holder's proxy in this process; false when `node` is another node. */
  readonly localPush?: (node: string, push: SlotPush) => boolean;
  /** How long a request may wait for the broker actor before the caller is told to retry; default 5 s. */
  readonly requestTimeoutMs?: number;
}

export interface ClusterBroker {
  readonly ref: AnyActorRef;
  /** The epoch this node serves, or null while it is not (or not yet) serving. */
  readonly epoch: number | null;
  /**
   * A request answered by this broker in process, while it serves; null otherwise (ask the
   * cluster's broker over the bus). The same turn a bus request gets, without the encoding.
   */
  request(req: BrokerRequestT): Promise<RpcReply<unknown>> | null;
  /** Stop serving and stop the actor (the lease is the caller's to release). */
  stop(): void;
}

/** The queue group on the capacity subject: if two brokers overlap for a moment, one answers each request. */
export const BROKER_QUEUE = 'capacity-broker';

interface Session {
  readonly epoch: number;
  readonly store: GrantStore;
  active: boolean;
  service: RpcService | null;
  /** Loaded and answering. */
  serving: boolean;
}

type BrokerMsg =
  | { type: 'elected'; session: Session }
  | { type: 'deposed'; session: Session; reason: string }
  // Everything the inbox holds, in one turn and one write per pool.
  | { type: 'requests' }
  | { type: 'tick' };

/** A request waiting for the broker's next turn. */
interface Pending {
  readonly session: Session;
  readonly req: BrokerRequestT;
  readonly reply: (r: RpcReply<unknown>) => void;
}

interface State {
  session: Session | null;
  pools: Map<string, PoolMem>;
  seq: number;
  /** When the pending renewals must be written; null when there are none. */
  flushDueAt: number | null;
  /** When to look for lapsed in-memory grants; null while there are none. */
  sweepAt: number | null;
  /** When to drop waiters whose node stopped asking; null while nobody waits. */
  waiterSweepAt: number | null;
  timer: TimerHandle | null;
  timerAt: number;
  /** Pools the request being served read or staged, with the write generation it rides on. */
  touched: Array<readonly [PoolMem, number]>;
  readonly counts: { granted: number; released: number; expired: number; pushed: number; errors: number; conflicts: number; writes: number; batches: number };
}

interface Control {
  current: Session | null;
  stopped: boolean;
  /** Releases first (a freed slot must not wait behind acquires), then everything else in order. */
  readonly releases: Pending[];
  readonly requests: Pending[];
  /** A 'requests' message is on its way: later requests join it. */
  drainSent: boolean;
  /** The batch a turn is serving: its acquires still wait until the turn's write lands. */
  serving: readonly Pending[];
}

const RETRY_MS = 1_000;
/** How often the stall watch looks at the pools. */
const STALL_LOOK_MS = 1_000;
/** Most holders and waiters a pool's figures list (counts stay exact). */
const FIGURES_LIST = 200;

/**
 * Start the cluster's capacity broker on this node. It does nothing until `leadership` elects it;
 * then it loads every pool record (resuming the grants of the previous broker, extended to
 * now + ttl), serves `subjects().capacity` in a queue group, and stops serving the moment it is
 * deposed — or the moment it finds a record written by a later epoch.
 */
// eslint-disable-next-line max-lines-per-function -- issue 29: being split into a pure ledger and a thin actor
export function startClusterBroker(parent: ActorSystem | AnyActorRef, options: ClusterBrokerOptions): ClusterBroker {
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0 && Number.isFinite(ttlMs))) throw new RangeError(`capacity broker: ttlMs is ${String(ttlMs)}; use a positive number of milliseconds`);
  const wire = (limit: number, what: string): number => {
    if (!isValidLimit(limit)) throw new RangeError(`capacity broker: ${what} is ${String(limit)}; use a non-negative integer, or 0 or Infinity for no limit`);
    return limit === Number.POSITIVE_INFINITY ? 0 : limit;
  };
  const defaultLimit = wire(options.defaultLimit, 'defaultLimit');
  const limits = new Map(Object.entries(options.limits ?? {}).map(([pool, l]) => [pool, wire(l, `limit of pool ${pool}`)]));
  const subs = options.subjects ?? defaultSubjects();
  const log = options.logger ?? silentLogger;
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const flushEveryMs = Math.max(1, Math.floor(ttlMs / 3));
  // A renewed grant whose KV expiry comes this close is written even before the flush is due.
  const flushLeadMs = Math.max(1, Math.floor(ttlMs / 4));
  // Steady renewals keep every grant durable for over a third of a TTL; less means write at once.
  const urgentMs = Math.floor(ttlMs / 3);
  // Waiters whose node stopped asking are passed over at once by every grant; dropping them from
  // the queue (and the figures) waits for this sweep, so no turn pays a walk of the whole queue.
  const waiterSweepMs = Math.max(1, Math.floor(ttlMs / 4));
  /** A waiter whose node has not asked for it for a TTL (its node died or gave it up). */
  const staleAt = (now: number) => (w: Waiter): boolean => now - w.seenAt > ttlMs;
  const control: Control = { current: null, stopped: false, releases: [], requests: [], drainSent: false, serving: [] };
  let clock: Clock;
  // The actor's state, for what must not wait behind the turn it describes: the stall watch and
  // the figures (a turn stuck on a KV write is exactly the stall they have to show).
  let live: State | null = null;
  let lookTimer: TimerHandle | null = null;

  const lookForStalls = (): void => {
    lookTimer = clock.setTimeout(lookForStalls, STALL_LOOK_MS);
    const state = live;
    if (!state?.session?.serving) return;
    const now = clock.now();
    const asking = new Map<string, number>();
    for (const { req } of [...control.serving, ...control.requests]) if (req.type === 'acquire') asking.set(req.pool, (asking.get(req.pool) ?? 0) + 1);
    // As KV has it: a grant staged behind a write that has not landed has not happened yet.
    for (const p of state.pools.values()) {
      const queued = p.queue.anyLive(staleAt(now)) ? 1 : 0;
      p.stall.look(now, { room: roomIn(p, now, 'durable'), waiting: queued + (asking.get(p.name) ?? 0), granted: p.granted });
    }
  };

  /** Figures from the state as it is, at once; null when this broker does not serve `session`. */
  const figuresNow = (session: Session): RpcReply<unknown> | null => {
    const state = live;
    if (state === null || state.session !== session || !session.serving) return null;
    return ok(figures(state, session));
  };

  const endSession = (session: Session, reason: string): void => {
    if (!session.active) return;
    session.active = false;
    session.serving = false;
    session.service?.unsubscribe();
    session.service = null;
    if (control.current === session) control.current = null;
    log.info({ epoch: session.epoch, reason }, 'capacity broker stopped serving');
    tell(self, { type: 'deposed', session, reason });
  };

  const publish = (state: State, push: SlotPush, node: string): void => {
    try {
      // A holder of this very node hears it in process, in the instant the slot frees.
      if (options.localPush?.(node, push)) {
        state.counts.pushed++;
        return;
      }
      options.transport.publish(subs.capacityNotify(node), encode(push));
      state.counts.pushed++;
    } catch (error) {
      // The holder's proxy still learns it from its next renew: nothing is lost but latency.
      state.counts.errors++;
      log.warn({ node, pool: push.pool, err: String(error) }, 'capacity notice not published');
    }
  };

  const limitFor = (pool: string): number => limits.get(pool) ?? defaultLimit;

  /** The pool's memory, read from KV the first time this session touches it. */
  const poolMem = async (state: State, session: Session, pool: string): Promise<PoolMem> => {
    let p = state.pools.get(pool);
    if (!p) {
      const v = await session.store.read(pool, limitFor(pool));
      p = state.pools.get(pool);
      if (!p) {
        p = newPoolMem(pool, v);
        state.pools.set(pool, p);
      }
    }
    touch(state, p);
    return p;
  };

  const touch = (state: State, p: PoolMem): void => {
    state.touched.push([p, p.gen]);
  };

  const newGrantId = (state: State, session: Session) => (): string => `e${session.epoch}-${(++state.seq).toString(36)}`;

  /**
   * Stage one change on a pool's working record and note what it did: waiters promoted, notices to
   * send, counters. Nothing is written or announced here: the turn writes each pool once (flush),
   * then answers and notifies from that write.
   */
  const stage = (state: State, session: Session, p: PoolMem, change: Omit<Change, 'renewed' | 'candidates'>, fresh?: Candidate): Effect | null => {
    touch(state, p);
    const now = clock.now();
    // Waiters whose node stopped asking are passed over (and dropped) where the walk meets them.
    const stale = new Set<Waiter>();
    const isStale = staleAt(now);
    const ctx = { epoch: session.epoch, ttlMs, newGrantId: newGrantId(state, session) };
    const candidates = candidatesOf(p.queue.live(isStale, stale), fresh);
    const result = reconcile(p.v.record, now, { ...change, renewed: p.renewed, candidates, extraInUse: freeInUse(p, now) }, ctx);
    // Applied or moot: a renewal of a grant that lapsed in KV is not revived.
    p.renewed.clear();
    for (const w of stale) if (p.queue.get(w.holder) === w) p.queue.delete(w.holder);
    if (result === null) return null;
    p.v = { revision: p.durable.revision, record: { ...result.next, epoch: session.epoch } };
    const { effect } = result;
    p.staged += effect.granted.length;
    for (const { candidate, grant } of effect.granted) {
      state.counts.granted++;
      if (candidate === fresh) continue;
      p.queue.delete(candidate.holder);
      p.promoted.push(candidate as Waiter);
      p.pushes.push({
        node: grant.node,
        make: () => ({
          type: 'slotGranted', epoch: session.epoch, holder: grant.holder, pool: p.name, grantId: grant.grantId,
          operation: grant.operation, waitedMs: Math.max(0, grant.grantedAt - candidate.requestedAt), validForMs: Math.max(0, grant.expiresAt - clock.now()),
        }),
      });
    }
    for (const g of effect.lost) {
      state.counts.expired++;
      p.pushes.push({ node: g.node, make: () => ({ type: 'slotLost', epoch: session.epoch, holder: g.holder, pool: p.name, grantId: g.grantId, reason: `grant expired: not renewed within ${ttlMs} ms` }) });
    }
    if (effect.released) state.counts.released++;
    return effect;
  };

  /**
   * One compare-and-set of everything staged on the pool since its last write. Durable: the
   * notices go out. Refused or failed: the pool goes back to what KV has (read again after a
   * conflict), promoted waiters queue again, and every request that rode on this write is answered
   * with the failure (retryable: its proxy asks again).
   */
  const flush = async (state: State, session: Session, p: PoolMem): Promise<void> => {
    const gen = p.gen++;
    const promoted = p.promoted.splice(0);
    const pushes = p.pushes.splice(0);
    const staged = p.staged;
    p.staged = 0;
    if (!isDirty(p)) return;
    try {
      const written = await session.store.put(p.name, p.durable, p.v.record, clock.now());
      p.durable = written;
      p.v = written;
      state.counts.writes++;
      p.granted += staged;
      for (const { make, node } of pushes) publish(state, make(), node);
    } catch (error) {
      p.v = p.durable;
      for (const w of promoted) if (p.queue.get(w.holder) === undefined) p.queue.add(w);
      let cause = error;
      if (error instanceof KvConflict) {
        try {
          p.durable = await session.store.read(p.name, p.durable.record.limit);
          p.v = p.durable;
        } catch (readError) {
          cause = readError;
        }
      }
      const failed: FailedWrite = { error: cause, reply: failure(state, session, cause) };
      p.failed.set(gen, failed);
    }
  };

  /** Writes every pool with staged changes, each once, side by side. */
  const flushAll = async (state: State, session: Session): Promise<FailedWrite | null> => {
    const dirty = [...state.pools.values()].filter(isDirty);
    await Promise.all(dirty.map((p) => flush(state, session, p)));
    for (const p of dirty) for (const f of p.failed.values()) return f;
    return null;
  };

  const scheduleSweep = (state: State, at: number): void => {
    if (state.sweepAt === null || at < state.sweepAt) state.sweepAt = at;
  };

  /** A pool without a limit: granted at once, in memory (see PoolMem.free). */
  const grantFree = (state: State, session: Session, p: PoolMem, req: AcquireRequest, now: number): AcquireReply => {
    let g = p.free.get(req.holder);
    if (g && isLive(g, now)) {
      g = { ...g, node: req.node, expiresAt: now + ttlMs };
    } else {
      g = {
        grantId: newGrantId(state, session)(), holder: req.holder, node: req.node, operation: req.operation, exempt: req.exempt,
        brokerEpoch: session.epoch, grantedAt: now, expiresAt: now + ttlMs,
      };
      state.counts.granted++;
      p.granted++;
    }
    p.free.set(req.holder, g);
    scheduleSweep(state, now + ttlMs);
    return { epoch: session.epoch, status: 'granted', grantId: g.grantId, waitedMs: 0, validForMs: ttlMs };
  };

  /**
   * Renews an in-memory grant; a holder this broker has never seen keeps the grant it names when
   * the pool has no limit (it was made by a broker before us). False: not an in-memory grant.
   */
  const renewFree = (p: PoolMem, holder: string, node: string, grantId: string | undefined, session: Session): boolean => {
    const now = clock.now();
    const g = p.free.get(holder);
    if (g) {
      if (!isLive(g, now)) return false;
      p.free.set(holder, { ...g, node, expiresAt: now + ttlMs });
      return true;
    }
    if (grantId === undefined || p.v.record.limit !== 0 || grantIn(p, holder)) return false;
    p.free.set(holder, { grantId, holder, node, operation: 'adopted', exempt: false, brokerEpoch: session.epoch, grantedAt: now, expiresAt: now + ttlMs });
    return true;
  };

  /** Drops lapsed in-memory grants and tells their holders, as a lapsed record grant is told. */
  /** Returns the pools where a lapsed grant freed room a waiter may take (a limit set since). */
  const sweepFree = (state: State, session: Session, now: number): Set<PoolMem> => {
    state.sweepAt = null;
    const freed = new Set<PoolMem>();
    for (const p of state.pools.values()) {
      for (const [holder, g] of p.free) {
        if (isLive(g, now)) {
          scheduleSweep(state, g.expiresAt);
          continue;
        }
        p.free.delete(holder);
        state.counts.expired++;
        if (p.queue.size > 0) freed.add(p);
        publish(state, { type: 'slotLost', epoch: session.epoch, holder, pool: p.name, grantId: g.grantId, reason: `grant expired: not renewed within ${ttlMs} ms` }, g.node);
      }
    }
    return freed;
  };

  const acquire = async (state: State, session: Session, req: AcquireRequest): Promise<AcquireReply> => {
    const p = await poolMem(state, session, req.pool);
    const now = clock.now();
    const w = p.queue.get(req.holder);
    if (w) {
      w.seenAt = now;
      w.node = req.node;
      w.operation = req.operation;
      if (!req.exempt) return { epoch: session.epoch, status: 'queued', position: p.queue.position(req.holder) };
      p.queue.delete(req.holder);
    }
    const held = grantIn(p, req.holder);
    if (!held && p.v.record.limit === 0) return grantFree(state, session, p, req, now);
    if (held && isLive(held, now)) {
      // Asking again proves the holder alive: as good as a renew. The grant is written (renewed)
      // before it is confirmed: our copy may be stale if a broker of a later epoch overlapped
      // with us and released it, and only the compare-and-set can tell.
      p.renewed.set(held.grantId, now + ttlMs);
      stage(state, session, p, { confirm: true, ...(held.node !== req.node ? { moveTo: { holder: req.holder, node: req.node } } : {}) });
      const g = grantIn(p, req.holder);
      if (g && isLive(g, clock.now())) {
        return { epoch: session.epoch, status: 'granted', grantId: g.grantId, waitedMs: 0, validForMs: Math.max(0, g.expiresAt - clock.now()) };
      }
    }
    const fresh: Waiter = { holder: req.holder, node: req.node, operation: req.operation, exempt: req.exempt, requestedAt: w?.requestedAt ?? now - (req.waitedMs ?? 0), seenAt: now };
    // FIFO: the queue's waiters come first; the write is skipped when nobody fits (no room, no change).
    const effect = stage(state, session, p, {}, fresh);
    const mine = effect?.granted.find((g) => g.candidate === fresh)?.grant ?? grantIn(p, req.holder);
    if (mine && isLive(mine, clock.now())) {
      return { epoch: session.epoch, status: 'granted', grantId: mine.grantId, waitedMs: Math.max(0, mine.grantedAt - fresh.requestedAt), validForMs: Math.max(0, mine.expiresAt - clock.now()) };
    }
    return { epoch: session.epoch, status: 'queued', position: p.queue.add(fresh) };
  };

  const release = async (state: State, session: Session, holder: string, pool: string, node: string | undefined): Promise<ReleaseReply> => {
    let p = await poolMem(state, session, pool);
    // Taken over by another node (the host's shard moved and its new owner adopted the slot):
    // the old owner's release, however late, must not free a slot the backend work still uses.
    const elsewhere = (g: { node: string } | undefined): boolean => node !== undefined && g !== undefined && g.node !== node;
    const w = p.queue.get(holder);
    if (w) {
      if (elsewhere(w)) return { epoch: session.epoch, outcome: 'unknown' };
      p.queue.delete(holder);
      return { epoch: session.epoch, outcome: 'cancelled' };
    }
    if (elsewhere(p.free.get(holder))) return { epoch: session.epoch, outcome: 'unknown' };
    if (p.free.delete(holder)) {
      state.counts.released++;
      // A limit set on this pool since counts these holders: the freed room goes to a waiter.
      if (p.queue.size > 0) stage(state, session, p, {});
      return { epoch: session.epoch, outcome: 'released' };
    }
    if (!grantIn(p, holder)) {
      // Perhaps written by a broker that overlapped with us: look at KV before saying no.
      p = await reread(state, session, p);
      if (!grantIn(p, holder)) return { epoch: session.epoch, outcome: 'unknown' };
    }
    if (elsewhere(grantIn(p, holder))) return { epoch: session.epoch, outcome: 'unknown' };
    const effect = stage(state, session, p, { release: holder, ...(node !== undefined ? { releasedBy: node } : {}) });
    return { epoch: session.epoch, outcome: effect?.released ? 'released' : 'unknown' };
  };

  /** What KV has now; anything staged is written first, so a read never drops it. */
  const reread = async (state: State, session: Session, p: PoolMem): Promise<PoolMem> => {
    if (isDirty(p)) await flush(state, session, p);
    p.durable = await session.store.read(p.name, p.durable.record.limit);
    p.v = p.durable;
    touch(state, p);
    return p;
  };

  const renew = async (state: State, session: Session, req: RenewRequest): Promise<RenewReply> => {
    const seen: { holder: string; pool: string; p: PoolMem; waiting: boolean; moved?: boolean }[] = [];
    const reread_ = new Set<string>();
    const urgent = new Set<PoolMem>();
    for (const { holder, pool, grantId } of req.holders) {
      let p = await poolMem(state, session, pool);
      const w = p.queue.get(holder);
      if (w) {
        // Only an acquire moves a waiter to another node: a renew from its old owner, sent before
        // that owner heard its hosts moved, must not take the notices back.
        if (w.node === req.node) w.seenAt = clock.now();
        seen.push({ holder, pool, p, waiting: true });
        continue;
      }
      if (renewFree(p, holder, req.node, grantId, session)) {
        seen.push({ holder, pool, p, waiting: false });
        continue;
      }
      const mine = grantIn(p, holder);
      if ((!mine || mine.node !== req.node) && !reread_.has(pool)) {
        // Perhaps written (or moved to this node) by a broker that overlapped with us: adopt what
        // KV has before telling a holder its grant is gone.
        reread_.add(pool);
        p = await reread(state, session, p);
      }
      const g = grantIn(p, holder);
      const now = clock.now();
      if (g && g.node !== req.node) {
        // Adopted by another node (an acquire moved it): that node renews it now, not this one.
        seen.push({ holder, pool, p, waiting: false, moved: true });
        continue;
      }
      if (g && isLive(g, now)) {
        p.renewed.set(g.grantId, now + ttlMs);
        if (state.flushDueAt === null) state.flushDueAt = now + flushEveryMs;
        // Durable for less than a third of a TTL (after a failover, or renews running late): write now,
        // in this one batch, rather than let the holder's proxy give the slot up.
        if (g.expiresAt - now < urgentMs) urgent.add(p);
      }
      seen.push({ holder, pool, p, waiting: false });
    }
    for (const p of urgent) stage(state, session, p, {});
    const now = clock.now();
    // Positions of a pool's waiting holders in one walk of its queue, not one walk each.
    const asked = new Map<PoolMem, Set<string>>();
    for (const x of seen) if (x.waiting) asked.set(x.p, (asked.get(x.p) ?? new Set()).add(x.holder));
    const positions = new Map([...asked].map(([p, holders]) => [p, p.queue.positions(holders)]));
    const results: RenewResult[] = seen.map(({ holder, pool, p, waiting, moved }) => {
      if (moved) return { holder, pool, status: 'unknown' };
      if (waiting) return { holder, pool, status: 'waiting', position: Math.max(1, positions.get(p)?.get(holder) ?? 0) };
      const g = p.free.get(holder) ?? grantIn(p, holder);
      return g && isLive(g, now) ? { holder, pool, status: 'renewed', grantId: g.grantId, validForMs: g.expiresAt - now } : { holder, pool, status: 'unknown' };
    });
    return { epoch: session.epoch, results };
  };

  const setLimit = async (state: State, session: Session, pool: string, limit: number): Promise<SetLimitReply> => {
    // Asked in process, the request was not parsed as a bus request is: the same rule here.
    if (!isValidLimit(limit) || limit === Number.POSITIVE_INFINITY) throw new RangeError(`capacity broker: limit of pool ${pool} is ${String(limit)}; use a non-negative integer, or 0 for no limit`);
    const p = await poolMem(state, session, pool);
    stage(state, session, p, { limit });
    return { epoch: session.epoch, pool, limit: p.v.record.limit };
  };

  // Counts are exact; the lists stop at FIGURES_LIST entries each. A pool without a limit may
  // have every host of a large fleet as holder, and the demo asks for figures four times a second:
  // listing them all kept the broker busy enough to starve the acquires it exists for.
  const figures = (state: State, session: Session): WireFigures => {
    const now = clock.now();
    const pools = [...state.pools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((p) => {
      const r = p.v.record;
      let exempt = 0;
      const holders: WireFigures['pools'][number]['holders'] = [];
      for (const source of [r.grants, p.free.values()]) {
        for (const g of source) {
          if (!isLive(g, now)) continue;
          if (g.exempt) exempt++;
          if (holders.length < FIGURES_LIST) holders.push({ holder: g.holder, node: g.node, operation: g.operation, grantId: g.grantId, exempt: g.exempt, sinceMs: Math.max(0, now - g.grantedAt) });
        }
      }
      const first = p.queue.first();
      const queue = p.queue.head(FIGURES_LIST).map((w) => ({ holder: w.holder, node: w.node, operation: w.operation, waitingMs: Math.max(0, now - w.requestedAt) }));
      return {
        pool: p.name,
        limit: r.limit,
        inUse: inUse(r, now) + freeInUse(p, now),
        exempt,
        waiting: p.queue.size,
        // The queue is in request order: its head has waited longest.
        longestWaitMs: first ? Math.max(0, now - first.requestedAt) : 0,
        stallSeconds: Math.round(p.stall.seconds * 1000) / 1000,
        holders,
        queue,
      };
    });
    return { epoch: session.epoch, pools };
  };

  const handle = async (state: State, session: Session, req: BrokerRequestT): Promise<RpcReply<unknown>> => {
    switch (req.type) {
      case 'acquire': return ok(await acquire(state, session, req));
      case 'release': return ok(await release(state, session, req.holder, req.pool, req.node));
      case 'renew': return ok(await renew(state, session, req));
      case 'setLimit': return ok(await setLimit(state, session, req.pool, req.limit));
      case 'figures': return ok(figures(state, session));
    }
  };

  /** Why a request or a write failed, as the caller should see it; ends the session if we were deposed. */
  const failure = (state: State, session: Session, error: unknown): RpcReply<never> => {
    if (error instanceof BrokerDeposed) {
      endSession(session, error.message);
      return fail('notLeader', error.message, true);
    }
    if (error instanceof KvConflict) state.counts.conflicts++;
    state.counts.errors++;
    if (error instanceof CorruptRecord) return fail('corruptRecord', error.message, false);
    if (error instanceof KvConflict || error instanceof KvUnavailable) return fail('unavailable', `capacity broker: ${error.message}`, true);
    if (error instanceof OverGrant) log.error({ epoch: session.epoch, err: error.message }, 'capacity broker refused an over-grant');
    return fail('internal', `capacity broker: ${error instanceof Error ? error.message : String(error)}`, true);
  };

  /** Resume the previous broker's grants: every live one extended to now + ttl, lapsed ones dropped. */
  const load = async (state: State, session: Session): Promise<void> => {
    for (const pool of await session.store.pools()) {
      if (!session.active) return;
      let p: PoolMem;
      try {
        p = await poolMem(state, session, pool);
      } catch (error) {
        if (error instanceof CorruptRecord) {
          // Refused per request (with this message) until repaired; the other pools carry on.
          log.error({ epoch: session.epoch, pool, err: error.message }, 'capacity pool record unreadable');
          continue;
        }
        throw error;
      }
      stage(state, session, p, { extendTo: clock.now() + ttlMs });
    }
    const failed = await flushAll(state, session);
    if (failed !== null) throw failed.error;
  };

  /**
   * Queues a request for the broker's next turn and answers once that turn's write of its pool is
   * durable (or failed), or with 'busy' after requestTimeoutMs. While one turn writes, the next
   * turn's requests gather here: under load a write carries many changes, never one each.
   */
  const submit = (session: Session, req: BrokerRequestT, send: typeof tell): Promise<RpcReply<unknown>> => new Promise((resolve) => {
    let answered = false;
    const timer = clock.setTimeout(() => reply(fail('busy', `capacity broker did not answer within ${requestTimeoutMs} ms`, true)), requestTimeoutMs);
    function reply(r: RpcReply<unknown>): void {
      if (answered) return;
      answered = true;
      clock.clearTimeout(timer);
      resolve(r);
    }
    (req.type === 'release' ? control.releases : control.requests).push({ session, req, reply });
    if (control.drainSent) return;
    control.drainSent = true;
    // The turn starts once the task that sent this request is done: requests sent together (a
    // proxy's turn of releases, a burst of acquires) then share one write even where the write
    // itself is instant (the memory KV), and one waiting the broker's turn joins it too.
    queueMicrotask(() => {
      // A release goes first: the slot it frees must not wait behind queued messages.
      const first = control.releases.length > 0;
      if ((first ? tellFirst : send)(self as ActorRef<BrokerMsg>, { type: 'requests' }) === 'delivered') return;
      control.drainSent = false;
      for (const p of [...control.releases.splice(0), ...control.requests.splice(0)]) p.reply(fail('notLeader', `capacity broker of epoch ${p.session.epoch} is not running`, true));
    });
  });

  /** Serves every queued request against staged pools, writes each touched pool once, then answers. */
  const serveBatch = async (state: State): Promise<void> => {
    control.drainSent = false;
    const batch = [...control.releases.splice(0), ...control.requests.splice(0)];
    if (batch.length === 0) return;
    control.serving = batch;
    state.counts.batches++;
    const answers: Array<{ readonly pending: Pending; readonly reply: RpcReply<unknown>; readonly touched: ReadonlyArray<readonly [PoolMem, number]> }> = [];
    for (const pending of batch) {
      const { session } = pending;
      state.touched = [];
      let reply: RpcReply<unknown>;
      if (!session.active || state.session !== session || !session.serving) {
        reply = fail('notLeader', `capacity broker of epoch ${session.epoch} is not serving`, true);
      } else {
        try {
          reply = await handle(state, session, pending.req);
        } catch (error) {
          reply = failure(state, session, error);
        }
      }
      answers.push({ pending, reply, touched: state.touched });
    }
    state.touched = [];
    if (state.session !== null) await flushAll(state, state.session);
    for (const { pending, reply, touched } of answers) {
      let answer = reply;
      for (const [p, gen] of touched) {
        const failed = p.failed.get(gen);
        if (failed) {
          answer = failed.reply;
          break;
        }
      }
      pending.reply(answer);
    }
    control.serving = [];
    for (const p of state.pools.values()) p.failed.clear();
  };

  const startServing = (state: State, session: Session): void => {
    session.serving = true;
    session.service = serve(options.transport, subs.capacity, BrokerRequest, (req) => {
      if (!session.active) return Promise.resolve(fail('notLeader', `capacity broker of epoch ${session.epoch} is no longer serving`, true));
      const now = req.type === 'figures' ? figuresNow(session) : null;
      return now !== null ? Promise.resolve(now) : submit(session, req, tell);
    }, { queue: BROKER_QUEUE });
    log.info({ epoch: session.epoch, pools: state.pools.size }, 'capacity broker serving');
  };

  /**
   * Pools whose record must be written now: lapsed grants, a due flush, a renewal about to lapse in
   * KV, or room beside a waiter (never expected: every release and lapse grants in its own write;
   * this is the net under that rule, and the stall detector counts it if it ever catches one).
   */
  const tick = async (state: State, session: Session): Promise<void> => {
    const now = clock.now();
    const flushDue = state.flushDueAt !== null && state.flushDueAt <= now;
    if (state.sweepAt !== null && state.sweepAt <= now) {
      for (const p of sweepFree(state, session, now)) stage(state, session, p, {});
    }
    const sweepWaiters = state.waiterSweepAt !== null && state.waiterSweepAt <= now;
    if (sweepWaiters) {
      state.waiterSweepAt = null;
      for (const p of state.pools.values()) p.queue.dropStale(staleAt(now));
    }
    for (const p of [...state.pools.values()]) {
      const due = (flushDue && p.renewed.size > 0)
        || p.v.record.grants.some((g) => g.expiresAt <= now || (p.renewed.has(g.grantId) && g.expiresAt - flushLeadMs <= now))
        || (sweepWaiters && p.queue.size > 0 && roomIn(p, now) > 0);
      if (!due) continue;
      stage(state, session, p, {});
      if (state.session !== session) return;
    }
    const pending = [...state.pools.values()].some((p) => p.renewed.size > 0);
    if (!pending) state.flushDueAt = null;
    else if (flushDue) state.flushDueAt = now + flushEveryMs;
    const failed = await flushAll(state, session);
    for (const p of state.pools.values()) p.failed.clear();
    if (failed !== null) throw failed.error;
  };

  const disarm = (state: State): void => {
    if (state.timer !== null) clock.clearTimeout(state.timer);
    state.timer = null;
  };

  /** One timer for the earliest moment something must be written. */
  const arm = (state: State, ctx: ActorContext<BrokerMsg>, minDelay = 0): void => {
    if (state.session === null) return disarm(state);
    let next = Math.min(state.flushDueAt ?? Number.POSITIVE_INFINITY, state.sweepAt ?? Number.POSITIVE_INFINITY);
    for (const p of state.pools.values()) {
      for (const g of p.v.record.grants) next = Math.min(next, p.renewed.has(g.grantId) ? g.expiresAt - flushLeadMs : g.expiresAt);
      if (p.queue.size > 0 && state.waiterSweepAt === null) state.waiterSweepAt = clock.now() + waiterSweepMs;
    }
    if (state.waiterSweepAt !== null) next = Math.min(next, state.waiterSweepAt);
    if (next === Number.POSITIVE_INFINITY) return disarm(state);
    const now = clock.now();
    next = Math.max(next, now + minDelay);
    if (state.timer !== null && state.timerAt <= next) return;
    disarm(state);
    const handle = clock.setTimeout(() => {
      if (state.timer === handle) state.timer = null;
      tell(ctx.self, { type: 'tick' });
    }, next - now);
    state.timer = handle;
    state.timerAt = next;
  };

  const receive = async (state: State, msg: BrokerMsg, ctx: ActorContext<BrokerMsg>): Promise<State> => {
    switch (msg.type) {
      case 'elected': {
        const { session } = msg;
        if (!session.active || state.session === session) return state;
        state.session = session;
        state.pools = new Map();
        state.flushDueAt = null;
        disarm(state);
        try {
          await load(state, session);
          if (session.active && state.session === session) startServing(state, session);
        } catch (error) {
          failure(state, session, error);
          if (session.active && state.session === session) {
            log.warn({ epoch: session.epoch, err: String(error) }, 'capacity broker could not load its pools; trying again');
            state.session = null;
            clock.setTimeout(() => tell(ctx.self, { type: 'elected', session }), RETRY_MS);
          }
        }
        break;
      }
      case 'deposed':
        if (state.session === msg.session) {
          // Waiters live only here: their proxies re-send them to the next broker.
          state.session = null;
          state.pools = new Map();
          state.flushDueAt = null;
        }
        break;
      case 'requests':
        await serveBatch(state);
        break;
      case 'tick': {
        const session = state.session;
        if (session === null || !session.serving) break;
        try {
          await tick(state, session);
        } catch (error) {
          failure(state, session, error);
          arm(state, ctx, RETRY_MS);
          return state;
        }
        break;
      }
    }
    arm(state, ctx);
    return state;
  };

  const behavior: Behavior<State, BrokerMsg> = {
    kind: 'capacity-broker',
    init: (ctx) => {
      clock = options.clock ?? ctx.system.clock;
      // After a crash the session (and its subscription) may still be live: pick it up again.
      const current = control.current;
      if (current?.active) clock.setTimeout(() => tell(ctx.self, { type: 'elected', session: current }), 0);
      if (lookTimer === null) lookTimer = clock.setTimeout(lookForStalls, STALL_LOOK_MS);
      const state: State = { session: null, pools: new Map(), seq: 0, flushDueAt: null, sweepAt: null, waiterSweepAt: null, timer: null, timerAt: Number.NaN, counts: { granted: 0, released: 0, expired: 0, pushed: 0, errors: 0, conflicts: 0, writes: 0, batches: 0 }, touched: [] };
      live = state;
      return state;
    },
    receive,
    onStop: (state) => {
      disarm(state);
      if (lookTimer !== null) clock.clearTimeout(lookTimer);
      lookTimer = null;
      if (live === state) live = null;
    },
    describe: (state) => {
      const now = clock.now();
      let used = 0;
      let waiting = 0;
      for (const p of state.pools.values()) {
        used += inUse(p.v.record, now) + freeInUse(p, now);
        waiting += p.queue.size;
      }
      return { epoch: state.session?.epoch ?? null, serving: state.session?.serving ?? false, pools: state.pools.size, inUse: used, waiting, ...state.counts };
    },
  };

  const self = spawn(parent, options.name ?? 'capacity-broker', behavior, { mailbox: { capacity: 1_000_000 }, priority: 'system' });

  options.leadership.onElected((epoch) => {
    if (control.stopped) return;
    const previous = control.current;
    if (previous) endSession(previous, `re-elected with epoch ${epoch}`);
    const session: Session = { epoch, store: new GrantStore(options.kv, epoch), active: true, service: null, serving: false };
    control.current = session;
    log.info({ epoch }, 'capacity broker elected');
    tell(self, { type: 'elected', session });
  });
  options.leadership.onDeposed((reason) => {
    // Unsubscribe here, not in the actor's turn: a turn may be waiting on KV right now.
    if (control.current) endSession(control.current, reason);
  });

  return {
    ref: self as AnyActorRef,
    request(req) {
      const session = control.current;
      if (!session?.active || !session.serving) return null;
      const now = req.type === 'figures' ? figuresNow(session) : null;
      if (now !== null) return Promise.resolve(now);
      // Express: a release (and the grant it frees) runs in this task when the broker is idle,
      // not behind every other actor's turn.
      return submit(session, req, tellExpress);
    },
    get epoch() {
      const s = control.current;
      return s?.active && s.serving ? s.epoch : null;
    },
    stop() {
      control.stopped = true;
      if (control.current) endSession(control.current, 'stopped');
      stop(self as AnyActorRef);
    },
  };
}

