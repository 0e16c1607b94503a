import { call, decode, subjects as defaultSubjects } from '../../../bus/index.ts';
import type { Reply as RpcReply, Subjects } from '../../../bus/index.ts';
import type { z } from 'zod';
import type { BusSubscription, Logger, Transport } from '../../../ports/index.ts';
import { silentLogger } from '../../../ports/index.ts';
import {
  spawn, tell, tellExpress, tellFirst,
  type ActorContext, type ActorRef, type ActorSystem, type AnyActorRef, type Behavior, type Clock, type TimerHandle,
} from '../../runtime/index.ts';
import type { CapacityFigures, PoolFigures } from '../figures.ts';
import { totalsOf } from '../figures.ts';
import { DEFAULT_TTL_MS } from '../limits.ts';
import type { CapacityMsg, Notify, SlotNotice } from '../messages.ts';
import type { BrokerRequest as BrokerRequestT, RenewReply as RenewReplyT, SlotPush as SlotPushT } from './messages.ts';
import { AcquireReply, MAX_RENEW_BATCH, NodeName, ReleaseReply, RenewReply, SetLimitReply, SlotPush, WireFigures } from './messages.ts';

export interface CapacityProxyOptions {
  readonly transport: Transport;
  /** The broker actor of this node while it serves (ClusterBroker.request), else null. */
  readonly localBroker?: (request: BrokerRequestT) => Promise<RpcReply<unknown>> | null;
  /** This node's name: the broker pushes its holders' notices to subjects().capacityNotify(node). */
  readonly node: string;
  /** The grant TTL, the same as the broker's; default 30 s. */
  readonly ttlMs?: number;
  readonly clock?: Clock;
  readonly subjects?: Subjects;
  /** Actor name; default 'capacity-proxy'. */
  readonly name?: string;
  /** How long one call keeps retrying a broker it cannot reach (a failover); default the TTL. */
  readonly patienceMs?: number;
  /** One attempt's timeout; default 2 s. */
  readonly requestTimeoutMs?: number;
  /** How often the node's renewals go to the broker in one batch; default TTL / 6. */
  readonly renewEveryMs?: number;
  /**
   * A holder is told slotLost this long before its grant could lapse in KV (the broker's answer,
   * measured from when the renew was sent); covers clock skew between broker nodes. Default TTL / 10.
   */
  readonly lossMarginMs?: number;
  readonly logger?: Logger;
}

/** What one renew asked about a holder: the entry as it was then, and the grant it held (if any). */
interface RenewedFor {
  readonly entry: Entry;
  readonly grantId: string | null;
}

interface Entry {
  readonly holder: string;
  readonly pool: string;
  operation: string;
  exempt: boolean;
  notify: Notify;
  /** acquiring: the first answer has not come; waiting: queued at the broker; granted: holds a slot. */
  phase: 'acquiring' | 'waiting' | 'granted';
  grantId: string;
  /** Bumped by every acquire sent, so a late answer to an older one is ignored. */
  gen: number;
  requestedAt: number;
  /** Last acquire or renew from the holder itself: a holder that stopped renewing is gone. */
  heardAt: number;
  /** The holder is told slotLost at this moment unless a renew moves it. */
  deadline: number;
  /** The gen of the acquire the holder itself sent: only its answer is repeated to the holder. */
  askedGen: number;
  /** An acquire waits for this holder's release in flight, so the broker sees them in order. */
  deferred: boolean;
}

type Internal =
  | { type: 'acquireDone'; key: string; holder: string; pool: string; gen: number; sentAt: number; reply: AcquireReply }
  | { type: 'acquireFailed'; key: string; gen: number; error: string }
  | { type: 'renewDone'; sentAt: number; reply: RenewReplyT; sent: ReadonlyMap<string, RenewedFor> }
  | { type: 'renewFailed'; error: string }
  | { type: 'push'; push: SlotPushT; at: number }
  | { type: 'retryAcquire'; key: string; gen: number }
  | { type: 'released'; key: string }
  | { type: 'renewTick' }
  | { type: 'lossTick' };

type ProxyMsg = CapacityMsg | Internal;

interface State {
  readonly entries: Map<string, Entry>;
  /** Highest broker epoch heard from; -1 before the first answer. */
  epoch: number;
  gen: number;
  renewing: boolean;
  renewTimer: TimerHandle | null;
  lossTimer: TimerHandle | null;
  lossAt: number;
  /** The earliest grant deadline set since the loss timer was last armed (armed after the turn). */
  newDeadline: number;
  sub: BusSubscription | null;
  /** Per holder, the request count of its last release: an acquire it overtook is dropped. */
  readonly releasedGen: Map<string, number>;
  /** Releases on their way, by holder: a new acquire of the same holder waits for them. */
  readonly releasing: Map<string, number>;
  /**
   * Holders that stopped without releasing (abandon), by key, with when: a grant that reaches us
   * for one of them (a late acquire reply, renew answer or push) is left to lapse or to be adopted
   * by the host's next owner, never released, since the backend work it covers may still run.
   */
  readonly abandoned: Map<string, number>;
  /**
   * Entries given up because their holder went quiet for a TTL, by key, with when. A holder that
   * speaks again (its renewals were only late) is taken back from here; one gone for good is
   * forgotten after SILENT_KEPT_TTLS.
   */
  readonly silent: Map<string, { readonly entry: Entry; readonly at: number }>;
  readonly counts: { unreachable: number; lost: number; resent: number; notifyErrors: number; badPushes: number; staleRenewals: number; abandoned: number; revived: number };
}

const keyOf = (holder: string, pool: string): string => `${pool}\u0000${holder}`;

/** How many TTLs a quiet holder's entry is kept for it to speak again. */
const SILENT_KEPT_TTLS = 10;

/**
 * The local face of the cluster's capacity broker: host actors send it CapacityMsg and hear
 * SlotNotices. It forwards acquires and releases, batches the node's renewals, delivers pushed
 * grants to the right holder, re-sends its waiters' acquires when the broker changes, and tells a
 * holder slotLost before its grant could lapse.
 */
// eslint-disable-next-line max-lines-per-function -- issue 29: being split into a pure ledger and a thin actor
export function spawnCapacityProxy(parent: ActorSystem | AnyActorRef, options: CapacityProxyOptions): ActorRef<CapacityMsg> {
  const node = NodeName.parse(options.node);
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0 && Number.isFinite(ttlMs))) throw new RangeError(`capacity proxy: ttlMs is ${String(ttlMs)}; use a positive number of milliseconds`);
  const subs = options.subjects ?? defaultSubjects();
  const log = options.logger ?? silentLogger;
  const patienceMs = options.patienceMs ?? ttlMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? 2_000;
  const renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(ttlMs / 6));
  const lossMarginMs = options.lossMarginMs ?? Math.floor(ttlMs / 10);
  const callOpts = { timeoutMs: requestTimeoutMs, deadlineMs: patienceMs, retry: true } as const;
  // The broker of this very node answers in process (the same request, to the same actor, without
  // encoding it for the bus); any other broker, or a refusal worth retrying, goes over the bus.
  const brokerCall = <S extends z.ZodType>(request: BrokerRequestT, schema: S, opts: typeof callOpts): Promise<z.infer<S>> => {
    const local = options.localBroker?.(request);
    const viaBus = (): Promise<z.infer<S>> => call(options.transport, subs.capacity, request, schema, opts);
    if (!local) return viaBus();
    return local.then((reply) => (reply.ok ? (reply.value as z.infer<S>) : viaBus()));
  };
  let clock: Clock;
  // Calls on their way (shown in describe: a test or an operator sees the proxy is quiet).
  let inflight = 0;
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight++;
    return p.finally(() => void inflight--);
  };

  const send = (state: State, e: Entry, notice: SlotNotice): void => {
    try {
      e.notify(notice);
    } catch {
      state.counts.notifyErrors++;
    }
  };

  const releaseAtBroker = (state: State, self: ActorRef<ProxyMsg>, holder: string, pool: string): void => {
    const key = keyOf(holder, pool);
    state.releasing.set(key, (state.releasing.get(key) ?? 0) + 1);
    // Best effort: a release that never arrives costs the slot one TTL, not correctness.
    track(brokerCall({ type: 'release', holder, pool, node }, ReleaseReply, callOpts)).catch((error: unknown) => {
      log.warn({ node, pool, holder, err: String(error) }, 'capacity release not delivered; the grant lapses after its TTL');
    }).finally(() => tell(self, { type: 'released', key }));
  };

  const sendAcquire = (state: State, e: Entry, self: ActorRef<ProxyMsg>): void => {
    e.gen = ++state.gen;
    if (state.releasing.has(keyOf(e.holder, e.pool))) {
      e.deferred = true;
      return;
    }
    e.deferred = false;
    const { gen } = e;
    const key = keyOf(e.holder, e.pool);
    const sentAt = clock.now();
    track(brokerCall({ type: 'acquire', holder: e.holder, node, pool: e.pool, operation: e.operation, exempt: e.exempt, waitedMs: Math.max(0, sentAt - e.requestedAt) }, AcquireReply, callOpts)).then(
      (reply) => tellExpress(self, { type: 'acquireDone', key, holder: e.holder, pool: e.pool, gen, sentAt, reply }),
      (error: unknown) => tell(self, { type: 'acquireFailed', key, gen, error: String(error) }),
    );
  };

  const abandon = (state: State, self: ActorRef<ProxyMsg>, holder: string, pool: string, now: number): void => {
    const key = keyOf(holder, pool);
    const e = state.entries.get(key);
    if (!e) return;
    state.entries.delete(key);
    state.counts.abandoned++;
    // Queued at the broker: the broker holds no grant for this holder (it would have answered
    // with it), so only a place in the queue goes back. Granted, or asked and not yet answered:
    // kept. An acquire on its way may be adopting the grant of work still running at the backend
    // (this node took the host over a moment ago), and releasing it would free that slot.
    if (e.phase === 'waiting') releaseAtBroker(state, self, holder, pool);
    else state.abandoned.set(key, now);
  };

  /**
   * A renew from a holder given up for silence: it lives, its renewals were late. Waiting, it asks
   * again from its old place in the queue; holding, it hears its grant is gone (no renew kept it in
   * KV meanwhile), and asks again if it still needs the slot: a grant still live comes back.
   */
  const revive = (state: State, self: ActorRef<ProxyMsg>, msg: Extract<CapacityMsg, { type: 'renew' }>, now: number): void => {
    const key = keyOf(msg.holder, msg.pool);
    const silent = state.silent.get(key);
    if (!silent || msg.notify === undefined) return;
    const released = state.releasedGen.get(msg.holder);
    if (released !== undefined && msg.gen !== undefined && msg.gen <= released) return;
    state.silent.delete(key);
    state.counts.revived++;
    const { entry } = silent;
    if (entry.phase === 'granted') {
      send(state, { ...entry, notify: msg.notify }, { type: 'slotLost', grantId: entry.grantId, pool: entry.pool, reason: `the capacity proxy did not hear from this holder for ${ttlMs} ms and gave its grant up; ask again` });
      return;
    }
    state.abandoned.delete(key);
    const e: Entry = { ...entry, notify: msg.notify, operation: msg.operation ?? entry.operation, exempt: msg.exempt ?? entry.exempt, phase: 'acquiring', grantId: '', heardAt: now, deadline: Number.POSITIVE_INFINITY };
    state.entries.set(key, e);
    sendAcquire(state, e, self);
    e.askedGen = e.gen;
  };

  const lose = (state: State, e: Entry, reason: string): void => {
    state.entries.delete(keyOf(e.holder, e.pool));
    state.counts.lost++;
    send(state, e, { type: 'slotLost', grantId: e.grantId, pool: e.pool, reason });
  };

  const granted = (state: State, e: Entry, grantId: string, deadline: number, waitedMs: number, tellHolder: boolean): void => {
    const same = e.phase === 'granted' && e.grantId === grantId;
    e.phase = 'granted';
    e.grantId = grantId;
    e.deadline = same ? Math.max(e.deadline, deadline) : deadline;
    state.newDeadline = Math.min(state.newDeadline, e.deadline);
    if (!same || tellHolder) send(state, e, { type: 'slotGranted', grantId, pool: e.pool, operation: e.operation, waitedMs });
  };

  /** A reply from a later broker than we knew: our waiters may exist only in the old one's memory. */
  const observeEpoch = (state: State, epoch: number, self: ActorRef<ProxyMsg>): void => {
    if (epoch <= state.epoch) return;
    const changed = state.epoch >= 0;
    state.epoch = epoch;
    if (!changed) return;
    log.info({ node, epoch }, 'capacity broker changed; re-sending waiting acquires');
    for (const e of state.entries.values()) {
      if (e.phase !== 'waiting') continue;
      state.counts.resent++;
      sendAcquire(state, e, self);
    }
  };

  const renewTick = (state: State, self: ActorRef<ProxyMsg>): void => {
    const now = clock.now();
    const batch: { holder: string; pool: string; grantId?: string }[] = [];
    const sent = new Map<string, RenewedFor>();
    for (const e of [...state.entries.values()]) {
      if (now - e.heardAt > ttlMs) {
        // The holder stopped renewing without a word (a crash mid-operation, say): its backend work
        // may still run, so the slot is not given back but left to lapse or to be adopted. Kept
        // aside: the holder may only be late, and then takes its place back (revive).
        state.silent.set(keyOf(e.holder, e.pool), { entry: e, at: now });
        abandon(state, self, e.holder, e.pool, now);
        continue;
      }
      if (e.phase === 'granted') batch.push({ holder: e.holder, pool: e.pool, grantId: e.grantId });
      else if (e.phase !== 'acquiring') batch.push({ holder: e.holder, pool: e.pool });
      else continue;
      sent.set(keyOf(e.holder, e.pool), { entry: e, grantId: e.phase === 'granted' ? e.grantId : null });
    }
    for (const [key, at] of state.abandoned) if (now - at > 2 * ttlMs) state.abandoned.delete(key);
    for (const [key, s] of state.silent) if (now - s.at > SILENT_KEPT_TTLS * ttlMs) state.silent.delete(key);
    if (batch.length === 0 || state.renewing) return;
    state.renewing = true;
    const sentAt = now;
    const chunks: (typeof batch)[] = [];
    for (let i = 0; i < batch.length; i += MAX_RENEW_BATCH) chunks.push(batch.slice(i, i + MAX_RENEW_BATCH));
    Promise.all(chunks.map((holders) => track(brokerCall({ type: 'renew', node, holders }, RenewReply, callOpts)))).then(
      (replies) => {
        const epoch = Math.max(...replies.map((r) => r.epoch));
        tell(self, { type: 'renewDone', sentAt, sent, reply: { epoch, results: replies.flatMap((r) => r.results) } });
      },
      (error: unknown) => tell(self, { type: 'renewFailed', error: String(error) }),
    );
  };

  const renewDone = (state: State, sentAt: number, reply: RenewReplyT, sent: ReadonlyMap<string, RenewedFor>, self: ActorRef<ProxyMsg>): void => {
    state.renewing = false;
    observeEpoch(state, reply.epoch, self);
    const now = clock.now();
    for (const r of reply.results) {
      const key = keyOf(r.holder, r.pool);
      const e = state.entries.get(key);
      if (!e) {
        if (r.status === 'renewed' && !state.abandoned.has(key)) releaseAtBroker(state, self, r.holder, r.pool);
        continue;
      }
      // The answer is about the request the renew was sent for. A holder that released that slot
      // and asked again meanwhile (inspection done, now provisioning) has a new entry: the late
      // "renewed" of its old grant is no grant for the new request (the broker has the old slot
      // back, or will once the release lands, and may give it to another host).
      const asked = sent.get(key);
      if (asked === undefined || asked.entry !== e) {
        state.counts.staleRenewals++;
        continue;
      }
      // Asked for a held grant: only that grant, still held. Asked while waiting: a grant pushed
      // meanwhile is newer than this answer, unless the answer names that very grant.
      const current = asked.grantId !== null
        ? e.phase === 'granted' && e.grantId === asked.grantId
        : e.phase !== 'granted' || (r.status === 'renewed' && r.grantId === e.grantId);
      if (!current) {
        state.counts.staleRenewals++;
        continue;
      }
      if (r.status === 'renewed') granted(state, e, r.grantId, sentAt + r.validForMs - lossMarginMs, Math.max(0, now - e.requestedAt), false);
      else if (r.status === 'unknown') {
        if (e.phase === 'granted') lose(state, e, 'the capacity broker no longer knows this grant (it lapsed)');
        else if (e.phase === 'waiting') {
          // A broker that took over after we queued: ask it again.
          state.counts.resent++;
          sendAcquire(state, e, self);
        }
      }
    }
  };

  const lossTick = (state: State): void => {
    const now = clock.now();
    for (const e of [...state.entries.values()]) {
      if (e.phase !== 'granted' || e.deadline > now) continue;
      lose(state, e, `grant could not be renewed with the capacity broker within ${ttlMs} ms`);
      // Not released: the grant may well be alive at the broker (its answers came late), and the
      // backend work under it runs on. A holder that still needs it asks again and, if it is
      // still live, gets the same grant back; otherwise it lapses.
      state.abandoned.set(keyOf(e.holder, e.pool), now);
    }
  };

  const armLoss = (state: State, self: ActorRef<ProxyMsg>): void => {
    let next = Number.POSITIVE_INFINITY;
    for (const e of state.entries.values()) if (e.phase === 'granted') next = Math.min(next, e.deadline);
    if (state.lossTimer !== null) clock.clearTimeout(state.lossTimer);
    state.lossTimer = null;
    if (next !== Number.POSITIVE_INFINITY) armLossAt(state, self, next);
  };

  // A timer that fires early only costs a scan: a deadline moved later (renewed), or a grant gone.
  const armLossAt = (state: State, self: ActorRef<ProxyMsg>, at: number): void => {
    if (state.lossTimer !== null && state.lossAt <= at) return;
    if (state.lossTimer !== null) clock.clearTimeout(state.lossTimer);
    const handle = clock.setTimeout(() => {
      if (state.lossTimer === handle) state.lossTimer = null;
      tell(self, { type: 'lossTick' });
    }, Math.max(0, at - clock.now()));
    state.lossTimer = handle;
    state.lossAt = at;
  };


  const armRenew = (state: State, self: ActorRef<ProxyMsg>): void => {
    state.renewTimer = clock.setTimeout(() => tell(self, { type: 'renewTick' }), renewEveryMs);
  };

  const figures = (reply: (f: CapacityFigures) => void): void => {
    track(brokerCall({ type: 'figures' }, WireFigures, callOpts)).then((w) => {
      const pools: PoolFigures[] = w.pools.map((p) => ({
        pool: p.pool,
        limit: p.limit === 0 ? Number.POSITIVE_INFINITY : p.limit,
        inUse: p.inUse,
        exempt: p.exempt,
        waiting: p.waiting,
        longestWaitMs: p.longestWaitMs,
        stallSeconds: p.stallSeconds,
        holders: p.holders.map(({ holder, operation, grantId, exempt, sinceMs }) => ({ holder, operation, grantId, exempt, sinceMs })),
        queue: p.queue.map(({ holder, operation, waitingMs }) => ({ holder, operation, waitingMs })),
      }));
      reply({ pools, totals: totalsOf(pools) });
    }, (error: unknown) => {
      // No answer: the asker's own timeout tells it the broker is unreachable.
      log.warn({ node, err: String(error) }, 'capacity figures unavailable');
    });
  };

  const receive = (state: State, msg: ProxyMsg, ctx: ActorContext<ProxyMsg>): State => {
    const self = ctx.self;
    const now = clock.now();
    switch (msg.type) {
      case 'acquire': {
        // A release sent after this acquire overtook it (releases go first): the holder is done.
        const released = state.releasedGen.get(msg.holder);
        if (released !== undefined && msg.gen !== undefined) {
          if (msg.gen <= released) break;
          state.releasedGen.delete(msg.holder);
        }
        const key = keyOf(msg.holder, msg.pool);
        state.abandoned.delete(key);
        state.silent.delete(key);
        let e = state.entries.get(key);
        if (e) {
          e.operation = msg.operation;
          e.exempt = msg.exempt;
          e.notify = msg.notify;
          e.heardAt = now;
        } else {
          const requestedAt = msg.since !== undefined ? Math.min(msg.since, now) : now;
          e = { holder: msg.holder, pool: msg.pool, operation: msg.operation, exempt: msg.exempt, notify: msg.notify, phase: 'acquiring', grantId: '', gen: 0, requestedAt, heardAt: now, deadline: Number.POSITIVE_INFINITY, askedGen: 0, deferred: false };
          state.entries.set(key, e);
        }
        sendAcquire(state, e, self);
        e.askedGen = e.gen;
        break;
      }
      case 'release': {
        const key = keyOf(msg.holder, msg.pool);
        if (msg.gen !== undefined) state.releasedGen.set(msg.holder, Math.max(msg.gen, state.releasedGen.get(msg.holder) ?? 0));
        state.entries.delete(key);
        state.silent.delete(key);
        releaseAtBroker(state, self, msg.holder, msg.pool);
        break;
      }
      case 'abandon':
        abandon(state, self, msg.holder, msg.pool, now);
        break;
      case 'renew': {
        const e = state.entries.get(keyOf(msg.holder, msg.pool));
        if (e) e.heardAt = now;
        else revive(state, self, msg, now);
        break;
      }
      case 'setLimit':
        track(brokerCall({ type: 'setLimit', pool: msg.pool, limit: msg.limit === Number.POSITIVE_INFINITY ? 0 : msg.limit }, SetLimitReply, callOpts))
          .catch((error: unknown) => log.warn({ node, pool: msg.pool, err: String(error) }, 'capacity setLimit not delivered'));
        break;
      case 'figures':
        figures(msg.reply);
        break;
      case 'acquireDone': {
        const e = state.entries.get(msg.key);
        if (!e) {
          // Released while the acquire was on its way: give back what it got. Abandoned: a grant
          // is kept for the host's next owner, as abandon keeps any grant; a place in the queue
          // goes back (no grant exists for a queued holder).
          const abandoned = state.abandoned.has(msg.key);
          if (msg.reply.status === 'granted' ? !abandoned : abandoned) releaseAtBroker(state, self, msg.holder, msg.pool);
          break;
        }
        if (e.gen !== msg.gen) break;
        observeEpoch(state, msg.reply.epoch, self);
        if (msg.reply.status === 'granted') granted(state, e, msg.reply.grantId, msg.sentAt + msg.reply.validForMs - lossMarginMs, msg.reply.waitedMs, e.askedGen === msg.gen);
        else if (e.phase !== 'granted') {
          e.phase = 'waiting';
          send(state, e, { type: 'slotQueued', pool: e.pool, position: msg.reply.position });
        }
        break;
      }
      case 'acquireFailed': {
        const e = state.entries.get(msg.key);
        if (!e || e.gen !== msg.gen || e.phase === 'granted') break;
        state.counts.unreachable++;
        log.warn({ node, pool: e.pool, holder: e.holder, err: msg.error }, 'capacity broker unreachable; acquire will be retried');
        // The holder keeps waiting (its patience is its own); try again after a renew period.
        const { key, gen } = msg;
        clock.setTimeout(() => tell(self, { type: 'retryAcquire', key, gen }), renewEveryMs);
        break;
      }
      case 'retryAcquire': {
        const e = state.entries.get(msg.key);
        if (e && e.gen === msg.gen && e.phase !== 'granted') sendAcquire(state, e, self);
        break;
      }
      case 'renewTick':
        renewTick(state, self);
        armRenew(state, self);
        break;
      case 'renewDone':
        renewDone(state, msg.sentAt, msg.reply, msg.sent, self);
        break;
      case 'renewFailed':
        state.renewing = false;
        state.counts.unreachable++;
        log.warn({ node, err: msg.error }, 'capacity renew batch failed; grants are lost at their deadline unless the next one succeeds');
        break;
      case 'push': {
        const p = msg.push;
        observeEpoch(state, p.epoch, self);
        const e = state.entries.get(keyOf(p.holder, p.pool));
        if (p.type === 'slotGranted') {
          if (!e) {
            if (!state.abandoned.has(keyOf(p.holder, p.pool))) releaseAtBroker(state, self, p.holder, p.pool);
          }
          else granted(state, e, p.grantId, msg.at + p.validForMs - lossMarginMs, p.waitedMs, false);
        } else if (e && e.phase === 'granted' && e.grantId === p.grantId) lose(state, e, p.reason);
        break;
      }
      case 'released': {
        const left = (state.releasing.get(msg.key) ?? 1) - 1;
        if (left > 0) state.releasing.set(msg.key, left);
        else {
          state.releasing.delete(msg.key);
          const e = state.entries.get(msg.key);
          if (e?.deferred) {
            const asked = e.askedGen === e.gen;
            sendAcquire(state, e, self);
            if (asked) e.askedGen = e.gen;
          }
        }
        break;
      }
      case 'lossTick':
        lossTick(state);
        // The one full scan: every other turn only brings the timer forward for deadlines it set.
        armLoss(state, self);
        break;
    }
    if (state.newDeadline !== Number.POSITIVE_INFINITY) {
      armLossAt(state, self, state.newDeadline);
      state.newDeadline = Number.POSITIVE_INFINITY;
    }
    return state;
  };

  const behavior: Behavior<State, ProxyMsg> = {
    kind: 'capacity-proxy',
    init: (ctx) => {
      clock = options.clock ?? ctx.system.clock;
      const state: State = {
        entries: new Map(), releasedGen: new Map(), releasing: new Map(), abandoned: new Map(), silent: new Map(), epoch: -1, gen: 0, renewing: false, renewTimer: null, lossTimer: null, lossAt: Number.NaN, newDeadline: Number.POSITIVE_INFINITY, sub: null,
        counts: { unreachable: 0, lost: 0, resent: 0, notifyErrors: 0, badPushes: 0, staleRenewals: 0, abandoned: 0, revived: 0 },
      };
      const self = ctx.self;
      const subject = subs.capacityNotify(node);
      state.sub = options.transport.subscribe(subject, (m) => {
        const decoded = decode(subject, m.data, SlotPush);
        if (decoded.ok) tell(self, { type: 'push', push: decoded.value, at: clock.now() });
        else state.counts.badPushes++;
      });
      armRenew(state, self);
      return state;
    },
    receive,
    onStop: (state) => {
      state.sub?.unsubscribe();
      if (state.renewTimer !== null) clock.clearTimeout(state.renewTimer);
      if (state.lossTimer !== null) clock.clearTimeout(state.lossTimer);
    },
    describe: (state) => {
      let granted = 0;
      let waiting = 0;
      let acquiring = 0;
      for (const e of state.entries.values()) {
        if (e.phase === 'granted') granted++;
        else if (e.phase === 'waiting') waiting++;
        else acquiring++;
      }
      return { node, epoch: state.epoch, granted, waiting, acquiring, inflight, ...state.counts };
    },
  };

  return spawn(parent, options.name ?? 'capacity-proxy', behavior, { mailbox: { capacity: 1_000_000 } });
}

/**
 * Hands a notice of this node's broker to this node's proxy in process (express: a freed slot
 * reaches its next holder in the same task), as the bus would deliver it from another node's.
 */
export function pushToProxy(proxy: ActorRef<CapacityMsg>, push: SlotPushT, now: number): boolean {
  // First: a grant must not wait behind the requests queued meanwhile.
  return tellFirst(proxy as unknown as ActorRef<ProxyMsg>, { type: 'push', push, at: now }) === 'delivered';
}
