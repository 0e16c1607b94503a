// The one capacity broker, on every node (the embedded default too). It keeps the design of the
// old in-process ledger: a FIFO queue per pool with an index by holder, exempt holders listed but
// not counted, and a pool without a limit granted at once (here: in memory, never written to KV).
// Every decision is the grant ledger's (grant-ledger.ts, a reducer); this actor reads and writes
// the pool records, answers, publishes, keeps the timer, and feeds each outcome back to the ledger.
import { encode, fail, ok, serve, subjects as defaultSubjects } from '../../../bus/index.ts';
import type { Reply as RpcReply, RpcService, Subjects } from '../../../bus/index.ts';
import type { KvBucket, Logger, Transport } from '../../../ports/index.ts';
import { KvConflict, KvUnavailable, silentLogger } from '../../../ports/index.ts';
import {
  spawn, stop, tell, tellExpress, tellFirst, tellUrgent,
  type ActorContext, type ActorRef, type ActorSystem, type AnyActorRef, type Behavior, type Clock, type TimerHandle,
} from '../../runtime/index.ts';
import { DEFAULT_TTL_MS, isValidLimit } from '../limits.ts';
import { inUse } from './grant-record.ts';
import { BrokerDeposed, CorruptRecord, GrantStore, OverGrant } from './grant-store.ts';
import { beginWrite, clearFailures, dirtyPools, firstFailure, ledgerTimings, newLedger, step, wakeAt } from './grant-ledger.ts';
import type { Ledger, LedgerEvent, LedgerTimings } from './grant-ledger.ts';
import { figuresOf, holdersOf, ledgerTotals, lookAtPools } from './ledger-views.ts';
import { roomIn } from './pool-mem.ts';
import { TurnPacer } from './turn-pacer.ts';
import type { FailedWrite } from './pool-mem.ts';
import type { Leadership } from './leadership.ts';
import type { BrokerRequest as BrokerRequestT, BrokerServing, SlotPush } from './messages.ts';
import { BrokerRequest } from './messages.ts';

export interface ClusterBrokerOptions {
  readonly transport: Transport;
  /** The bucket of pool records (`pool.<encoded pool>`); every broker of the cluster uses the same. */
  readonly kv: KvBucket;
  readonly leadership: Leadership;
  /** Limit of a pool whose record does not exist yet; 0 or Infinity = unlimited. */
  readonly defaultLimit: number;
  /**
   * Limits of known pools. A pool record keeps the limit of the broker that last resumed it: each
   * newly elected broker writes its own (a cluster restarted with another --limit takes it).
   */
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
  readonly ledger: Ledger;
  timer: TimerHandle | null;
  timerAt: number;
}

interface Control {
  current: Session | null;
  stopped: boolean;
  /** Releases first (a freed slot must not wait behind acquires), then everything else in order. */
  readonly releases: Pending[];
  readonly requests: Pending[];
  /**
   * How the 'requests' message on its way was told (none: no message is on its way); later
   * requests join it unless they need it told more urgently (see laneOf).
   */
  drainSent: Lane;
  /** The batch a turn is serving: its acquires still wait until the turn's write lands. */
  serving: readonly Pending[];
  /**
   * The lane the requests gathered since the last 'requests' message ask for ('none': none are),
   * decided on once the task that sent them is done (decide), and how a plain one is told.
   */
  wanted: Lane;
  plainBy: typeof tell;
  deciding: boolean;
  /** How many of `releases` and `requests` handsOver has looked at, and the acquires among them by pool. */
  readonly judged: { releases: number; requests: number; readonly acquires: Map<string, number> };
  /** When requests that hand no slot over may go (turn-pacer.ts). */
  readonly pacer: TurnPacer;
  /** Requests that hand no slot over, held for one write; null while none are. */
  hold: ReturnType<typeof setTimeout> | null;
}

/**
 * How a 'requests' message is told, least urgent first. A release goes first (the slot it frees
 * must not wait behind queued messages); an acquire is urgent (a free slot may wait for it): both
 * are taken even by a turn already under way, past its bounds. A plain message that arrives
 * while the broker awaits a write waits in nact for the next turn, behind a slice of host turns.
 */
type Lane = 'none' | 'plain' | 'urgent' | 'first';
const LANES: readonly Lane[] = ['none', 'plain', 'urgent', 'first'];
const laneOf = (req: BrokerRequestT): Lane => (req.type === 'release' ? 'first' : req.type === 'acquire' ? 'urgent' : 'plain');

/**
 * Whether a gathered request hands a slot over: a release someone waits for, or any acquire or
 * release of a pool with a quarter or less of its slots free (there the slots, not the node's
 * CPU, are about to bound the pool: a held release would keep a slot from the next holder, a
 * held acquire would start its holder late). Only these must reach the ledger in the instant
 * they come; with plenty of slots free a short wait costs nobody a slot. Only what came since
 * the last look is judged (`judged`): the verdict on the rest changes with a broker turn, which
 * takes them all.
 */
function handsOver(b: Broker): boolean {
  const { control } = b;
  const { releases, requests, judged } = control;
  const pools = b.live?.ledger.pools;
  const now = b.clock.now();
  // The gathered acquires count against the room: held together, they must not fill the pool.
  const scarce = (pool: string): boolean => {
    const p = pools?.get(pool);
    if (p === undefined) return true;
    const limit = p.v.record.limit;
    return limit > 0 && roomIn(p, now) - (judged.acquires.get(pool) ?? 0) <= Math.max(1, limit / 4);
  };
  let hands = false;
  for (let i = judged.releases; i < releases.length && !hands; i++) {
    const req = releases[i]!.req;
    // A release with no pool (a deleted holder, in every pool) is rare and may free anything: at once.
    if (req.type === 'release') hands = req.pool === undefined || (pools?.get(req.pool)?.queue.size ?? 1) > 0 || scarce(req.pool);
  }
  for (let i = judged.requests; i < requests.length && !hands; i++) {
    const req = requests[i]!.req;
    if (req.type !== 'acquire') continue;
    judged.acquires.set(req.pool, (judged.acquires.get(req.pool) ?? 0) + 1);
    hands = scarce(req.pool);
  }
  judged.releases = releases.length;
  judged.requests = requests.length;
  return hands;
}

const RETRY_MS = 1_000;
/** How often the stall watch looks at the pools. */
const STALL_LOOK_MS = 1_000;

/** What the broker's functions share: the options as parsed, the control block, the actor. */
interface Broker {
  readonly options: ClusterBrokerOptions;
  readonly timings: LedgerTimings;
  readonly subs: Subjects;
  readonly log: Logger;
  readonly requestTimeoutMs: number;
  readonly limitFor: (pool: string) => number;
  readonly control: Control;
  clock: Clock;
  self: ActorRef<BrokerMsg>;
  // The actor's state, for what must not wait behind the turn it describes: the stall watch and
  // the figures (a turn stuck on a KV write is exactly the stall they have to show).
  live: State | null;
  lookTimer: TimerHandle | null;
}

function lookForStalls(b: Broker): void {
  b.lookTimer = b.clock.setTimeout(() => lookForStalls(b), STALL_LOOK_MS);
  const state = b.live;
  if (!state?.session?.serving) return;
  const asking = new Map<string, number>();
  for (const { req } of [...b.control.serving, ...b.control.requests]) if (req.type === 'acquire') asking.set(req.pool, (asking.get(req.pool) ?? 0) + 1);
  lookAtPools(state.ledger, asking, b.clock.now());
}

/** Figures from the state as it is, at once; null when this broker does not serve `session`. */
function figuresNow(b: Broker, session: Session): RpcReply<unknown> | null {
  const state = b.live;
  if (state === null || state.session !== session || !session.serving) return null;
  const releasing = [...b.control.serving, ...b.control.releases].flatMap((p) => (p.req.type === 'release' && p.session === session ? [{ holder: p.req.holder, pool: p.req.pool }] : []));
  return ok(figuresOf(state.ledger, b.clock.now(), releasing));
}

/** One page of holders from the state as it is, at once, acquires on their way included; null when not serving. */
function holdersNow(b: Broker, session: Session, req: Extract<BrokerRequestT, { type: 'holders' }>): RpcReply<unknown> | null {
  const state = b.live;
  if (state === null || state.session !== session || !session.serving) return null;
  const asking = [...b.control.serving, ...b.control.requests].flatMap((p) => (p.req.type === 'acquire' ? [p.req.holder] : []));
  return ok(holdersOf(state.ledger, b.clock.now(), asking, req.after, req.limit));
}

/** A read answered from memory without waiting for a turn (figures, holders); null: not one, or not serving. */
function answerNow(b: Broker, session: Session, req: BrokerRequestT): RpcReply<unknown> | null {
  return req.type === 'figures' ? figuresNow(b, session) : req.type === 'holders' ? holdersNow(b, session, req) : null;
}

function endSession(b: Broker, session: Session, reason: string): void {
  if (!session.active) return;
  session.active = false;
  session.serving = false;
  session.service?.unsubscribe();
  session.service = null;
  if (b.control.current === session) b.control.current = null;
  b.log.info({ epoch: session.epoch, reason }, 'capacity broker stopped serving');
  tell(b.self, { type: 'deposed', session, reason });
}

function publish(b: Broker, ledger: Ledger, push: SlotPush, node: string): void {
  try {
    // A holder of this very node hears it in process, in the instant the slot frees.
    if (b.options.localPush?.(node, push)) {
      ledger.counts.pushed++;
      return;
    }
    b.options.transport.publish(b.subs.capacityNotify(node), encode(push));
    ledger.counts.pushed++;
  } catch (error) {
    // The holder's proxy still learns it from its next renew: nothing is lost but latency.
    ledger.counts.errors++;
    b.log.warn({ node, pool: push.pool, err: String(error) }, 'capacity notice not published');
  }
}

/** One ledger step with its notices published; returns the answer and the pools to read again. */
function apply(b: Broker, state: State, event: LedgerEvent): { value?: unknown; reread?: readonly string[] } {
  const out: { value?: unknown; reread?: readonly string[] } = {};
  for (const e of step(state.ledger, event, b.clock.now())) {
    if (e.type === 'notify') publish(b, state.ledger, e.push, e.node);
    else if (e.type === 'reply') out.value = e.value;
    else out.reread = e.pools;
  }
  return out;
}

/** The pool's record, read from KV the first time this session touches it. */
async function ensurePool(b: Broker, state: State, session: Session, pool: string): Promise<void> {
  if (state.ledger.pools.has(pool)) return;
  const v = await session.store.read(pool, b.limitFor(pool));
  apply(b, state, { type: 'loaded', pool, v });
}

/**
 * One compare-and-set of everything staged on the pool since its last write. Durable: the
 * notices go out. Refused or failed: the ledger takes back what KV has (read again after a
 * conflict), and every request that rode on this write is answered with the failure.
 */
async function flushPool(b: Broker, state: State, session: Session, pool: string): Promise<void> {
  const write = beginWrite(state.ledger, pool);
  if (write === null) return;
  try {
    const v = await session.store.put(pool, write.base, write.record, b.clock.now());
    apply(b, state, { type: 'written', write, v });
  } catch (error) {
    let cause = error;
    let durable;
    if (error instanceof KvConflict) {
      try {
        durable = await session.store.read(pool, write.base.record.limit);
      } catch (readError) {
        cause = readError;
      }
    }
    const failed: FailedWrite = { error: cause, reply: failure(b, state, session, cause) };
    apply(b, state, { type: 'writeFailed', write, failed, ...(durable !== undefined ? { durable } : {}) });
  }
}

/** Writes every pool with staged changes, each once, side by side; the first failure, if any. */
async function flushAll(b: Broker, state: State, session: Session): Promise<FailedWrite | null> {
  const dirty = dirtyPools(state.ledger);
  await Promise.all(dirty.map((pool) => flushPool(b, state, session, pool)));
  return firstFailure(state.ledger, dirty);
}

/** What KV has now; anything staged is written first, so a read never drops it. */
async function rereadPool(b: Broker, state: State, session: Session, pool: string): Promise<void> {
  await flushPool(b, state, session, pool);
  const limit = state.ledger.pools.get(pool)?.durable.record.limit ?? b.limitFor(pool);
  const v = await session.store.read(pool, limit);
  apply(b, state, { type: 'reread', pool, v });
}

async function handle(b: Broker, state: State, session: Session, req: BrokerRequestT): Promise<RpcReply<unknown>> {
  if (req.type === 'figures') return ok(figuresOf(state.ledger, b.clock.now()));
  if (req.type === 'holders') return ok(holdersOf(state.ledger, b.clock.now(), [], req.after, req.limit));
  const pools = req.type === 'renew' ? req.holders.map((h) => h.pool) : req.pool === undefined ? [] : [req.pool];
  for (const pool of pools) await ensurePool(b, state, session, pool);
  const reread = new Set<string>();
  for (;;) {
    const event: LedgerEvent = req.type === 'acquire' ? { type: 'acquire', req }
      : req.type === 'setLimit' ? { type: 'setLimit', pool: req.pool, limit: req.limit }
      : req.type === 'release' ? { type: 'release', req, reread }
      : { type: 'renew', req, reread };
    const out = apply(b, state, event);
    if (out.reread === undefined) return ok(out.value);
    // Perhaps written by a broker that overlapped with us: KV's copy, then the request again.
    for (const pool of out.reread) {
      await rereadPool(b, state, session, pool);
      reread.add(pool);
    }
  }
}

/** Why a request or a write failed, as the caller should see it; ends the session if we were deposed. */
function failure(b: Broker, state: State, session: Session, error: unknown): RpcReply<never> {
  if (error instanceof BrokerDeposed) {
    endSession(b, session, error.message);
    return fail('notLeader', error.message, true);
  }
  const { counts } = state.ledger;
  if (error instanceof KvConflict) counts.conflicts++;
  counts.errors++;
  if (error instanceof CorruptRecord) return fail('corruptRecord', error.message, false);
  if (error instanceof KvConflict || error instanceof KvUnavailable) return fail('unavailable', `capacity broker: ${error.message}`, true);
  if (error instanceof OverGrant) b.log.error({ epoch: session.epoch, err: error.message }, 'capacity broker refused an over-grant');
  return fail('internal', `capacity broker: ${error instanceof Error ? error.message : String(error)}`, true);
}

/** Resume the previous broker's grants: every live one extended to now + ttl, lapsed ones dropped. */
async function load(b: Broker, state: State, session: Session): Promise<void> {
  for (const pool of await session.store.pools()) {
    if (!session.active) return;
    try {
      await ensurePool(b, state, session, pool);
    } catch (error) {
      if (error instanceof CorruptRecord) {
        // Refused per request (with this message) until repaired; the other pools carry on.
        b.log.error({ epoch: session.epoch, pool, err: error.message }, 'capacity pool record unreadable');
        continue;
      }
      throw error;
    }
    const configured = b.limitFor(pool);
    const record = state.ledger.pools.get(pool)?.v.record;
    if (record !== undefined && record.limit !== configured) {
      // Said, with what it means for the slots held now: a lowered limit revokes nothing, and no
      // slot is granted until fewer than the new limit are in use.
      const used = inUse(record, b.clock.now());
      const fields = { epoch: session.epoch, pool, limit: configured === 0 ? 'none' : configured, was: record.limit === 0 ? 'none' : record.limit, inUse: used };
      if (configured !== 0 && used > configured) b.log.warn(fields, 'capacity pool limit lowered below the slots in use: nothing is granted until fewer are in use');
      else b.log.info(fields, 'capacity pool limit changed to the configured one');
    }
    apply(b, state, { type: 'resume', pool, limit: configured });
  }
  const failed = await flushAll(b, state, session);
  if (failed !== null) throw failed.error;
}

/**
 * Queues a request for the broker's next turn and answers once that turn's write of its pool is
 * durable (or failed), or with 'busy' after requestTimeoutMs. While one turn writes, the next
 * turn's requests gather here: under load a write carries many changes, never one each.
 */
function submit(b: Broker, session: Session, req: BrokerRequestT, send: typeof tell): Promise<RpcReply<unknown>> {
  const { control, clock } = b;
  return new Promise((resolve) => {
    let answered = false;
    const timer = clock.setTimeout(() => reply(fail('busy', `capacity broker did not answer within ${b.requestTimeoutMs} ms`, true)), b.requestTimeoutMs);
    function reply(r: RpcReply<unknown>): void {
      if (answered) return;
      answered = true;
      clock.clearTimeout(timer);
      resolve(r);
    }
    (req.type === 'release' ? control.releases : control.requests).push({ session, req, reply });
    const lane = laneOf(req);
    // A 'requests' message at least as urgent is on its way: this one rides on it.
    if (LANES.indexOf(control.drainSent) >= LANES.indexOf(lane)) return;
    if (LANES.indexOf(control.wanted) < LANES.indexOf(lane)) control.wanted = lane;
    if (lane === 'plain') control.plainBy = send;
    if (control.deciding) return;
    control.deciding = true;
    // Decided once the task that sent this request is done: requests sent together (a proxy's
    // turn of releases and acquires) are looked at together, whatever order they came in.
    queueMicrotask(() => decide(b));
  });
}

/**
 * The gathered requests go to the broker now if one hands a slot over or they are plain;
 * otherwise when the pacer says the node has done enough since the broker's last turn.
 */
function decide(b: Broker): void {
  const { control } = b;
  control.deciding = false;
  const lane = control.wanted;
  if (lane === 'none') return;
  if (lane === 'plain' || handsOver(b)) return drain(b, lane);
  hold(b);
}

/** Holds the gathered requests until the pacer lets them go; whatever comes meanwhile joins them. */
function hold(b: Broker): void {
  const { control } = b;
  if (control.hold !== null) return;
  const wait = control.pacer.holdFor();
  if (wait === 0) return drain(b, control.wanted);
  // Real time, not the broker's clock: this paces the process's own work, as the runtime's slice
  // does, and a test's manual clock must not hold a request forever.
  control.hold = setTimeout(() => {
    control.hold = null;
    if (control.wanted !== 'none') hold(b);
  }, wait);
}

/**
 * Tells the broker 'requests' on `lane` unless a message at least that urgent is on its way:
 * its turn serves everything gathered by then, in one write per pool.
 */
function drain(b: Broker, lane: Lane): void {
  const { control } = b;
  control.wanted = 'none';
  if (control.hold !== null) clearTimeout(control.hold);
  control.hold = null;
  if (LANES.indexOf(control.drainSent) >= LANES.indexOf(lane)) return;
  control.drainSent = lane;
  control.pacer.mark();
  const tellBy = lane === 'first' ? tellFirst : lane === 'urgent' ? tellUrgent : control.plainBy;
  if (tellBy(b.self, { type: 'requests' }) === 'delivered') return;
  control.drainSent = 'none';
  control.judged.releases = 0;
  control.judged.requests = 0;
  control.judged.acquires.clear();
  for (const p of [...control.releases.splice(0), ...control.requests.splice(0)]) p.reply(fail('notLeader', `capacity broker of epoch ${p.session.epoch} is not running`, true));
}

const isGoneRelease = (req: BrokerRequestT): boolean => req.type === 'release' && req.pool === undefined;

/** Serves every queued request against the ledger, writes each touched pool once, then answers. */
async function serveBatch(b: Broker, state: State): Promise<void> {
  const { control } = b;
  const { ledger } = state;
  control.drainSent = 'none';
  // Held requests are served now, with the rest.
  control.wanted = 'none';
  if (control.hold !== null) clearTimeout(control.hold);
  control.hold = null;
  // A gone holder's release (no pool) goes last: an acquire of that holder received before it
  // (sent just before its actor stopped, seen by a new owner's sweep) must not be granted after
  // it, to nobody (issue 30.1). It frees slots in this same write all the same.
  const releases = control.releases.splice(0);
  const batch = [...releases.filter((p) => !isGoneRelease(p.req)), ...control.requests.splice(0), ...releases.filter((p) => isGoneRelease(p.req))];
  control.judged.releases = 0;
  control.judged.requests = 0;
  control.judged.acquires.clear();
  if (batch.length === 0) return;
  control.serving = batch;
  ledger.counts.batches++;
  const answers: Array<{ readonly pending: Pending; readonly reply: RpcReply<unknown>; readonly touched: Ledger['touched'] }> = [];
  for (const pending of batch) {
    const { session } = pending;
    ledger.touched = [];
    let reply: RpcReply<unknown>;
    if (!session.active || state.session !== session || !session.serving) {
      reply = fail('notLeader', `capacity broker of epoch ${session.epoch} is not serving`, true);
    } else {
      try {
        reply = await handle(b, state, session, pending.req);
      } catch (error) {
        reply = failure(b, state, session, error);
      }
    }
    answers.push({ pending, reply, touched: ledger.touched });
  }
  ledger.touched = [];
  if (state.session !== null) await flushAll(b, state, state.session);
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
  clearFailures(ledger);
}

function startServing(b: Broker, state: State, session: Session): void {
  session.serving = true;
  session.service = serve(b.options.transport, b.subs.capacity, BrokerRequest, (req) => {
    if (!session.active) return Promise.resolve(fail('notLeader', `capacity broker of epoch ${session.epoch} is no longer serving`, true));
    const now = answerNow(b, session, req);
    return now !== null ? Promise.resolve(now) : submit(b, session, req, tell);
  }, { queue: BROKER_QUEUE });
  b.log.info({ epoch: session.epoch, pools: state.ledger.pools.size }, 'capacity broker serving');
  try {
    b.options.transport.publish(b.subs.capacityServing, encode({ epoch: session.epoch } satisfies BrokerServing));
  } catch (error) {
    // The proxies still learn the epoch from their next renew: only latency is lost.
    b.log.warn({ epoch: session.epoch, err: String(error) }, 'capacity broker could not announce that it serves');
  }
}

/** Stages what is due (the ledger's tick), then writes it. */
async function tick(b: Broker, state: State, session: Session): Promise<void> {
  apply(b, state, { type: 'tick' });
  const failed = await flushAll(b, state, session);
  clearFailures(state.ledger);
  if (failed !== null) throw failed.error;
}

function disarm(b: Broker, state: State): void {
  if (state.timer !== null) b.clock.clearTimeout(state.timer);
  state.timer = null;
}

/** One timer for the earliest moment something must be written. */
function arm(b: Broker, state: State, minDelay = 0): void {
  if (state.session === null) return disarm(b, state);
  const now = b.clock.now();
  const at = wakeAt(state.ledger, now);
  if (at === null) return disarm(b, state);
  const next = Math.max(at, now + minDelay);
  if (state.timer !== null && state.timerAt <= next) return;
  disarm(b, state);
  const handle = b.clock.setTimeout(() => {
    if (state.timer === handle) state.timer = null;
    tell(b.self, { type: 'tick' });
  }, next - now);
  state.timer = handle;
  state.timerAt = next;
}

async function elected(b: Broker, state: State, session: Session): Promise<void> {
  if (!session.active || state.session === session) return;
  state.session = session;
  apply(b, state, { type: 'elected', epoch: session.epoch });
  disarm(b, state);
  try {
    await load(b, state, session);
    if (session.active && state.session === session) startServing(b, state, session);
  } catch (error) {
    failure(b, state, session, error);
    if (session.active && state.session === session) {
      b.log.warn({ epoch: session.epoch, err: String(error) }, 'capacity broker could not load its pools; trying again');
      state.session = null;
      b.clock.setTimeout(() => tell(b.self, { type: 'elected', session }), RETRY_MS);
    }
  }
}

async function receive(b: Broker, state: State, msg: BrokerMsg): Promise<State> {
  switch (msg.type) {
    case 'elected':
      await elected(b, state, msg.session);
      break;
    case 'deposed':
      if (state.session === msg.session) {
        state.session = null;
        apply(b, state, { type: 'deposed' });
      }
      break;
    case 'requests':
      await serveBatch(b, state);
      break;
    case 'tick': {
      const session = state.session;
      if (session === null || !session.serving) break;
      try {
        await tick(b, state, session);
      } catch (error) {
        failure(b, state, session, error);
        arm(b, state, RETRY_MS);
        return state;
      }
      break;
    }
  }
  arm(b, state);
  return state;
}

function behavior(b: Broker): Behavior<State, BrokerMsg> {
  return {
    kind: 'capacity-broker',
    init: (ctx: ActorContext<BrokerMsg>) => {
      b.clock = b.options.clock ?? ctx.system.clock;
      // After a crash the session (and its subscription) may still be live: pick it up again.
      const current = b.control.current;
      if (current?.active) b.clock.setTimeout(() => tell(ctx.self, { type: 'elected', session: current }), 0);
      if (b.lookTimer === null) b.lookTimer = b.clock.setTimeout(() => lookForStalls(b), STALL_LOOK_MS);
      const state: State = { session: null, ledger: newLedger(b.timings), timer: null, timerAt: Number.NaN };
      b.live = state;
      return state;
    },
    receive: (state, msg) => receive(b, state, msg),
    onStop: (state) => {
      disarm(b, state);
      if (b.lookTimer !== null) b.clock.clearTimeout(b.lookTimer);
      b.lookTimer = null;
      if (b.live === state) b.live = null;
    },
    describe: (state) => {
      const { inUse, waiting } = ledgerTotals(state.ledger, b.clock.now());
      return { epoch: state.session?.epoch ?? null, serving: state.session?.serving ?? false, pools: state.ledger.pools.size, inUse, waiting, ...state.ledger.counts };
    },
  };
}

/**
 * Start the cluster's capacity broker on this node. It does nothing until `leadership` elects it;
 * then it loads every pool record (resuming the grants of the previous broker, extended to
 * now + ttl), serves `subjects().capacity` in a queue group, and stops serving the moment it is
 * deposed — or the moment it finds a record written by a later epoch.
 */
export function startClusterBroker(parent: ActorSystem | AnyActorRef, options: ClusterBrokerOptions): ClusterBroker {
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0 && Number.isFinite(ttlMs))) throw new RangeError(`capacity broker: ttlMs is ${String(ttlMs)}; use a positive number of milliseconds`);
  const wire = (limit: number, what: string): number => {
    if (!isValidLimit(limit)) throw new RangeError(`capacity broker: ${what} is ${String(limit)}; use a non-negative integer, or 0 or Infinity for no limit`);
    return limit === Number.POSITIVE_INFINITY ? 0 : limit;
  };
  const defaultLimit = wire(options.defaultLimit, 'defaultLimit');
  const limits = new Map(Object.entries(options.limits ?? {}).map(([pool, l]) => [pool, wire(l, `limit of pool ${pool}`)]));
  const control: Control = { current: null, stopped: false, releases: [], requests: [], drainSent: 'none', serving: [], wanted: 'none', plainBy: tell, deciding: false, judged: { releases: 0, requests: 0, acquires: new Map() }, pacer: new TurnPacer(), hold: null };
  const b: Broker = {
    options, timings: ledgerTimings(ttlMs), subs: options.subjects ?? defaultSubjects(), log: options.logger ?? silentLogger,
    requestTimeoutMs: options.requestTimeoutMs ?? 5_000, limitFor: (pool) => limits.get(pool) ?? defaultLimit, control,
    // Set by the actor's init, which runs before anything reads them.
    clock: undefined as unknown as Clock, self: undefined as unknown as ActorRef<BrokerMsg>, live: null, lookTimer: null,
  };
  const self = spawn(parent, options.name ?? 'capacity-broker', behavior(b), { mailbox: { capacity: 1_000_000 }, priority: 'system' });
  b.self = self as ActorRef<BrokerMsg>;

  options.leadership.onElected((epoch) => {
    if (control.stopped) return;
    const previous = control.current;
    if (previous) endSession(b, previous, `re-elected with epoch ${epoch}`);
    const session: Session = { epoch, store: new GrantStore(options.kv, epoch), active: true, service: null, serving: false };
    control.current = session;
    b.log.info({ epoch }, 'capacity broker elected');
    tell(b.self, { type: 'elected', session });
  });
  options.leadership.onDeposed((reason) => {
    // Unsubscribe here, not in the actor's turn: a turn may be waiting on KV right now.
    if (control.current) endSession(b, control.current, reason);
  });

  return {
    ref: self as AnyActorRef,
    request(req) {
      const session = control.current;
      if (!session?.active || !session.serving) return null;
      const now = answerNow(b, session, req);
      if (now !== null) return Promise.resolve(now);
      // Express: a release (and the grant it frees) runs in this task when the broker is idle,
      // not behind every other actor's turn.
      return submit(b, session, req, tellExpress);
    },
    get epoch() {
      const s = control.current;
      return s?.active && s.serving ? s.epoch : null;
    },
    stop() {
      control.stopped = true;
      if (control.hold !== null) clearTimeout(control.hold);
      control.hold = null;
      if (control.current) endSession(b, control.current, 'stopped');
      stop(self as AnyActorRef);
    },
  };
}
