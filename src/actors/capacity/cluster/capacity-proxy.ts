// The local face of the cluster's capacity broker on one node. Every decision is the proxy
// ledger's (proxy-ledger.ts, a reducer); this actor makes the broker calls, calls the holders'
// notify, keeps the renew and loss timers, and feeds every answer back to the ledger.
import { call, CallNotWanted, decode, RemoteError, subjects as defaultSubjects } from '../../../bus/index.ts';
import type { Reply as RpcReply, Subjects } from '../../../bus/index.ts';
import type { z } from 'zod';
import type { BusSubscription, Logger, Transport } from '../../../ports/index.ts';
import { silentLogger } from '../../../ports/index.ts';
import {
  spawn, tell, tellExpress, tellFirst, tellUrgent,
  type ActorContext, type ActorRef, type ActorSystem, type AnyActorRef, type Behavior, type Clock, type TimerHandle,
} from '../../runtime/index.ts';
import type { CapacityFigures, PoolFigures } from '../figures.ts';
import { totalsOf } from '../figures.ts';
import { DEFAULT_TTL_MS } from '../limits.ts';
import type { CapacityMsg, HolderPage } from '../messages.ts';
import type { BrokerRequest as BrokerRequestT, SlotPush as SlotPushT } from './messages.ts';
import { AcquireReply, BrokerServing, HoldersReply, MAX_RENEW_BATCH, NodeName, ReleaseReply, RenewReply, SetLimitReply, SlotPush, WireFigures } from './messages.ts';
import { newProxyLedger, proxyStep, proxyTotals } from './proxy-ledger.ts';
import type { ProxyEffect, ProxyEvent, ProxyLedger } from './proxy-ledger.ts';

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

type ProxyMsg = CapacityMsg | Exclude<ProxyEvent, CapacityMsg>;

interface State {
  readonly ledger: ProxyLedger;
  renewTimer: TimerHandle | null;
  lossTimer: TimerHandle | null;
  lossAt: number;
  sub: BusSubscription | null;
  servingSub: BusSubscription | null;
  /** What only the actor sees: holders' notify that threw, pushes that did not parse. */
  readonly counts: { notifyErrors: number; badPushes: number };
}

/** What the proxy's functions share: the options as parsed, the clock, calls in flight. */
interface Proxy {
  readonly options: CapacityProxyOptions;
  readonly node: string;
  readonly subs: Subjects;
  readonly log: Logger;
  readonly renewEveryMs: number;
  readonly callOpts: { readonly timeoutMs: number; readonly deadlineMs: number; readonly retry: true };
  clock: Clock;
  // Calls on their way (shown in describe: a test or an operator sees the proxy is quiet).
  inflight: number;
  /** The actor stopped: nothing it asked for is sent again. */
  stopped: boolean;
}

// The broker of this very node answers in process (the same request, to the same actor, without
// encoding it for the bus); any other broker, or a refusal worth retrying, goes over the bus.
// wanted: asked before every further try (CallOptions.wanted). An acquire retried after its asker
// stopped (its host's shard moved, its host deleted) or after the proxy stopped (the node shutting
// down, its connection open while its actors drain) reached the broker after the new owner's sweep
// had looked, and was granted to nobody: when the old node was gone by the answer, the slot idled
// to its TTL (issue 30.1). A try sent while the asker lived goes before the asker's stop on the
// node's connection, so the sweep sees it; a try after it is not sent.
function brokerCall<S extends z.ZodType>(x: Proxy, request: BrokerRequestT, schema: S, wanted?: () => boolean): Promise<z.infer<S>> {
  x.inflight++;
  const local = x.options.localBroker?.(request);
  const viaBus = (): Promise<z.infer<S>> => call(x.options.transport, x.subs.capacity, request, schema, wanted ? { ...x.callOpts, wanted } : x.callOpts);
  // The node's own broker refused (it stopped serving): going over the bus is a try again, too.
  const again = (): Promise<z.infer<S>> => (wanted && !wanted() ? Promise.reject(new CallNotWanted(`capacity ${request.type}: its asker or this proxy stopped; not sent again`)) : viaBus());
  const answer = local ? local.then((reply) => (reply.ok ? (reply.value as z.infer<S>) : again())) : viaBus();
  return answer.finally(() => void x.inflight--);
}

function sendRenew(x: Proxy, self: ActorRef<ProxyMsg>, e: Extract<ProxyEffect, { type: 'sendRenew' }>): void {
  const { node } = x;
  const chunks: (typeof e.holders)[] = [];
  for (let i = 0; i < e.holders.length; i += MAX_RENEW_BATCH) chunks.push(e.holders.slice(i, i + MAX_RENEW_BATCH));
  Promise.all(chunks.map((holders) => brokerCall(x, { type: 'renew', node, holders: [...holders] }, RenewReply))).then(
    (replies) => {
      const epoch = Math.max(...replies.map((r) => r.epoch));
      tell(self, { type: 'renewDone', sentAt: e.sentAt, sent: e.sent, reply: { epoch, results: replies.flatMap((r) => r.results) } });
    },
    (error: unknown) => tell(self, { type: 'renewFailed', error: String(error) }),
  );
}

/** Performs what one ledger step asked for, in order. */
function perform(x: Proxy, state: State, self: ActorRef<ProxyMsg>, effects: readonly ProxyEffect[]): void {
  const { node } = x;
  for (const e of effects) {
    switch (e.type) {
      case 'notify':
        try {
          e.notify(e.notice);
        } catch {
          state.counts.notifyErrors++;
        }
        break;
      case 'sendAcquire': {
        const { key, gen, sentAt, holder, pool } = e;
        // Tried again only while this very acquire is the one its asker waits for.
        const wanted = (): boolean => !x.stopped && state.ledger.entries.get(key)?.gen === gen;
        brokerCall(x, { type: 'acquire', holder, node, pool, operation: e.operation, exempt: e.exempt, waitedMs: e.waitedMs }, AcquireReply, wanted).then(
          (reply) => {
            // A grant goes on to its holder past the slice; a place in the queue can wait for it.
            const told = (reply.status === 'granted' ? tellUrgent : tellExpress)(self, { type: 'acquireDone', key, holder, pool, gen, sentAt, reply });
            // This proxy stopped (its node shuts down) while the acquire was on its way: nobody
            // here will hold what it got. A slot newly given goes back now rather than at its TTL
            // (issue 30.1), and so does a place in the queue (its grant would be pushed to nobody);
            // an adopted grant is left to the host's next owner, as abandon leaves it.
            if (told !== 'delivered' && (reply.status === 'queued' || reply.adopted === false)) {
              brokerCall(x, { type: 'release', holder, pool, node }, ReleaseReply).catch((error: unknown) => {
                x.log.warn({ node, pool, holder, err: String(error) }, 'capacity release of a grant made after this proxy stopped not delivered; it lapses after its TTL');
              });
            }
          },
          (error: unknown) => tell(self, { type: 'acquireFailed', key, gen, error: String(error) }),
        );
        break;
      }
      case 'sendRelease':
        // Best effort: a release that never arrives costs the slot one TTL, not correctness.
        // An inherited grant is released wherever it was made (its old owner's node), so no node.
        brokerCall(x, { type: 'release', holder: e.holder, pool: e.pool, ...(e.inherited === true ? { inherited: true } : { node }) }, ReleaseReply).catch((error: unknown) => {
          x.log.warn({ node, pool: e.pool, holder: e.holder, err: String(error) }, 'capacity release not delivered; the grant lapses after its TTL');
        }).finally(() => tell(self, { type: 'released', key: e.key }));
        break;
      case 'sendReleaseGone':
        // No pool and no node: the broker looks in every pool for the holder, whoever holds it.
        brokerCall(x, { type: 'release', holder: e.holder }, ReleaseReply).catch((error: unknown) => {
          x.log.warn({ node, holder: e.holder, err: String(error) }, 'capacity release of a gone holder not delivered; its grant lapses after its TTL');
        }).finally(() => tell(self, { type: 'releasedGone', holder: e.holder }));
        break;
      case 'sendRenew': sendRenew(x, self, e); break;
      case 'retryAcquireAfter': {
        const { key, gen } = e;
        x.clock.setTimeout(() => tell(self, { type: 'retryAcquire', key, gen }), e.afterMs);
        break;
      }
      case 'lossTickAt':
        if (state.lossTimer !== null) x.clock.clearTimeout(state.lossTimer);
        state.lossTimer = null;
        if (e.at !== null) armLossAt(x, state, self, e.at);
        break;
      case 'lossTickBy': armLossAt(x, state, self, e.at); break;
      case 'log': x.log[e.level]({ node, ...e.fields }, e.message); break;
    }
  }
}

// A timer that fires early only costs a scan: a deadline moved later (renewed), or a grant gone.
function armLossAt(x: Proxy, state: State, self: ActorRef<ProxyMsg>, at: number): void {
  if (state.lossTimer !== null && state.lossAt <= at) return;
  if (state.lossTimer !== null) x.clock.clearTimeout(state.lossTimer);
  const handle = x.clock.setTimeout(() => {
    if (state.lossTimer === handle) state.lossTimer = null;
    tell(self, { type: 'lossTick' });
  }, Math.max(0, at - x.clock.now()));
  state.lossTimer = handle;
  state.lossAt = at;
}

function armRenew(x: Proxy, state: State, self: ActorRef<ProxyMsg>): void {
  state.renewTimer = x.clock.setTimeout(() => tell(self, { type: 'renewTick' }), x.renewEveryMs);
}

function figures(x: Proxy, reply: (f: CapacityFigures) => void): void {
  brokerCall(x, { type: 'figures' }, WireFigures).then((w) => {
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
    x.log.warn({ node: x.node, err: String(error) }, 'capacity figures unavailable');
  });
}

// A broker from before the holders request (a rolling upgrade: this node is newer) refuses it as
// a message it cannot read, at once and for good. The asker (a new shard owner's sweep for deleted
// hosts' grants) would have waited out its timeout on every try and settled nothing; it gets the
// holders the figures list instead, in one last page: every pool's first few hundred holders and
// waiters, what sweeps read before the holders request existed. Said in a log line, since a gone
// host behind those is then left to its TTL.
const olderBroker = (error: unknown): boolean => error instanceof RemoteError && error.kind === 'invalidMessage';

function holders(x: Proxy, after: string | undefined, reply: (page: HolderPage) => void): void {
  const unavailable = (error: unknown): void => x.log.warn({ node: x.node, err: String(error) }, 'capacity holders unavailable');
  brokerCall(x, { type: 'holders', ...(after !== undefined ? { after } : {}) }, HoldersReply).then(
    ({ holders: names, next }) => reply({ holders: names, next }),
    (error: unknown) => {
      if (!olderBroker(error)) return unavailable(error);
      brokerCall(x, { type: 'figures' }, WireFigures).then((w) => {
        const names = new Set<string>();
        for (const p of w.pools) for (const h of [...p.holders, ...p.queue]) if (after === undefined || h.holder > after) names.add(h.holder);
        x.log.warn({ node: x.node, err: String(error), holders: names.size }, 'capacity broker does not know the holders request (an older version): answered from its figures, which list only each pool\'s first holders and waiters; a gone holder beyond them keeps its grant until its TTL');
        reply({ holders: [...names].sort(), next: null });
      }, unavailable);
    },
  );
}

function receive(x: Proxy, state: State, msg: ProxyMsg, ctx: ActorContext<ProxyMsg>): State {
  switch (msg.type) {
    case 'setLimit':
      brokerCall(x, { type: 'setLimit', pool: msg.pool, limit: msg.limit === Number.POSITIVE_INFINITY ? 0 : msg.limit }, SetLimitReply)
        .catch((error: unknown) => x.log.warn({ node: x.node, pool: msg.pool, err: String(error) }, 'capacity setLimit not delivered'));
      return state;
    case 'figures':
      figures(x, msg.reply);
      return state;
    case 'holders':
      holders(x, msg.after, msg.reply);
      return state;
    case 'renewTick':
      perform(x, state, ctx.self, proxyStep(state.ledger, msg, x.clock.now()));
      armRenew(x, state, ctx.self);
      return state;
    default:
      perform(x, state, ctx.self, proxyStep(state.ledger, msg, x.clock.now()));
      return state;
  }
}

function behavior(x: Proxy, ttlMs: number, lossMarginMs: number): Behavior<State, ProxyMsg> {
  return {
    kind: 'capacity-proxy',
    init: (ctx) => {
      x.clock = x.options.clock ?? ctx.system.clock;
      const state: State = {
        ledger: newProxyLedger({ ttlMs, renewEveryMs: x.renewEveryMs, lossMarginMs }),
        renewTimer: null, lossTimer: null, lossAt: Number.NaN, sub: null, servingSub: null, counts: { notifyErrors: 0, badPushes: 0 },
      };
      const self = ctx.self;
      const subject = x.subs.capacityNotify(x.node);
      state.sub = x.options.transport.subscribe(subject, (m) => {
        const decoded = decode(subject, m.data, SlotPush);
        if (decoded.ok) tell(self, { type: 'push', push: decoded.value, at: x.clock.now() });
        else state.counts.badPushes++;
      });
      const serving = x.subs.capacityServing;
      state.servingSub = x.options.transport.subscribe(serving, (m) => {
        const decoded = decode(serving, m.data, BrokerServing);
        if (decoded.ok) tellUrgent(self, { type: 'brokerServing', epoch: decoded.value.epoch });
        else state.counts.badPushes++;
      });
      armRenew(x, state, self);
      return state;
    },
    receive: (state, msg, ctx) => receive(x, state, msg, ctx),
    onStop: (state) => {
      x.stopped = true;
      state.sub?.unsubscribe();
      state.servingSub?.unsubscribe();
      if (state.renewTimer !== null) x.clock.clearTimeout(state.renewTimer);
      if (state.lossTimer !== null) x.clock.clearTimeout(state.lossTimer);
    },
    describe: (state) => ({ node: x.node, epoch: state.ledger.epoch, ...proxyTotals(state.ledger), inflight: x.inflight, ...state.ledger.counts, ...state.counts }),
  };
}

/**
 * The local face of the cluster's capacity broker: host actors send it CapacityMsg and hear
 * SlotNotices. It forwards acquires and releases, batches the node's renewals, delivers pushed
 * grants to the right holder, re-sends its waiters' acquires when the broker changes, and tells a
 * holder slotLost before its grant could lapse.
 */
export function spawnCapacityProxy(parent: ActorSystem | AnyActorRef, options: CapacityProxyOptions): ActorRef<CapacityMsg> {
  const node = NodeName.parse(options.node);
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0 && Number.isFinite(ttlMs))) throw new RangeError(`capacity proxy: ttlMs is ${String(ttlMs)}; use a positive number of milliseconds`);
  const x: Proxy = {
    options, node, subs: options.subjects ?? defaultSubjects(), log: options.logger ?? silentLogger,
    renewEveryMs: options.renewEveryMs ?? Math.max(1, Math.floor(ttlMs / 6)),
    callOpts: { timeoutMs: options.requestTimeoutMs ?? 2_000, deadlineMs: options.patienceMs ?? ttlMs, retry: true },
    // Set by the actor's init, before any message is handled.
    clock: undefined as unknown as Clock, inflight: 0, stopped: false,
  };
  const lossMarginMs = options.lossMarginMs ?? Math.floor(ttlMs / 10);
  return spawn(parent, options.name ?? 'capacity-proxy', behavior(x, ttlMs, lossMarginMs), { mailbox: { capacity: 1_000_000 } });
}

/**
 * Hands a notice of this node's broker to this node's proxy in process (express: a freed slot
 * reaches its next holder in the same task), as the bus would deliver it from another node's.
 */
export function pushToProxy(proxy: ActorRef<CapacityMsg>, push: SlotPushT, now: number): boolean {
  // First: a grant must not wait behind the requests queued meanwhile.
  return tellFirst(proxy as unknown as ActorRef<ProxyMsg>, { type: 'push', push, at: now }) === 'delivered';
}
