// The capacity proxy's ledger of this node's holders: every decision of the proxy, as a reducer
// `proxyStep(ledger, event, now) -> effects`. No clock, no bus, no timer: the proxy actor
// (capacity-proxy.ts) makes the broker calls, calls the holders' notify, keeps the timers and
// feeds each answer back as an event. The ledger is the actor's own state, updated in place.
import type { CapacityMsg, Notify, SlotNotice } from '../messages.ts';
import type { AcquireReply, RenewReply, SlotPush } from './messages.ts';

export interface ProxyTimings {
  readonly ttlMs: number;
  /** How often the node's renewals go to the broker; also the pause before an acquire is retried. */
  readonly renewEveryMs: number;
  /** A holder is told slotLost this long before its grant could lapse in KV. */
  readonly lossMarginMs: number;
}

export interface Entry {
  readonly holder: string;
  readonly pool: string;
  operation: string;
  exempt: boolean;
  /** The holder's own callback: the ledger only names it in effects, the actor calls it. */
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

/** What one renew asked about a holder: the entry as it was then, and the grant it held (if any). */
export interface RenewedFor {
  readonly entry: Entry;
  readonly grantId: string | null;
}

export interface ProxyCounts {
  unreachable: number;
  lost: number;
  resent: number;
  staleRenewals: number;
  abandoned: number;
  revived: number;
  /** Grants newly given to an asker that had stopped, given back at once (issue 30.1). */
  orphans: number;
}

export interface ProxyLedger {
  readonly timings: ProxyTimings;
  readonly entries: Map<string, Entry>;
  /** Highest broker epoch heard from; -1 before the first answer. */
  epoch: number;
  gen: number;
  /** A renew batch is on its way: the next waits for its answer. */
  renewing: boolean;
  /** Per holder, the request count of its last release: an acquire it overtook is dropped. */
  readonly releasedGen: Map<string, number>;
  /** Releases on their way, by key: a new acquire of the same holder waits for them. */
  readonly releasing: Map<string, number>;
  /**
   * Releases of a gone holder in every pool on their way, by holder, with the acquires waiting for
   * them: a host of the same name created at once must not have its new grant taken by them.
   */
  readonly releasingGone: Map<string, { count: number; readonly deferred: Entry[] }>;
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
  readonly counts: ProxyCounts;
}

export function newProxyLedger(timings: ProxyTimings): ProxyLedger {
  return {
    timings, entries: new Map(), releasedGen: new Map(), releasing: new Map(), releasingGone: new Map(), abandoned: new Map(), silent: new Map(), epoch: -1, gen: 0, renewing: false,
    counts: { unreachable: 0, lost: 0, resent: 0, staleRenewals: 0, abandoned: 0, revived: 0, orphans: 0 },
  };
}

export type ProxyEvent =
  | Extract<CapacityMsg, { type: 'acquire' | 'release' | 'releaseGone' | 'abandon' | 'renew' }>
  | { readonly type: 'acquireDone'; readonly key: string; readonly holder: string; readonly pool: string; readonly gen: number; readonly sentAt: number; readonly reply: AcquireReply }
  | { readonly type: 'acquireFailed'; readonly key: string; readonly gen: number; readonly error: string }
  | { readonly type: 'retryAcquire'; readonly key: string; readonly gen: number }
  | { readonly type: 'renewTick' }
  | { readonly type: 'renewDone'; readonly sentAt: number; readonly reply: RenewReply; readonly sent: ReadonlyMap<string, RenewedFor> }
  | { readonly type: 'renewFailed'; readonly error: string }
  /** A notice of the broker; `at`: when it arrived. */
  | { readonly type: 'push'; readonly push: SlotPush; readonly at: number }
  /** A broker announced that it serves `epoch` (BrokerServing). */
  | { readonly type: 'brokerServing'; readonly epoch: number }
  /** A release sent earlier has been answered (or given up on). */
  | { readonly type: 'released'; readonly key: string }
  /** A release of a gone holder in every pool has been answered (or given up on). */
  | { readonly type: 'releasedGone'; readonly holder: string }
  | { readonly type: 'lossTick' };

export type ProxyEffect =
  | { readonly type: 'notify'; readonly notify: Notify; readonly notice: SlotNotice }
  /** Ask the broker for a slot; answer with acquireDone/acquireFailed carrying key, gen and sentAt. */
  | { readonly type: 'sendAcquire'; readonly key: string; readonly gen: number; readonly sentAt: number; readonly holder: string; readonly pool: string; readonly operation: string; readonly exempt: boolean; readonly waitedMs: number }
  /**
   * Best effort: answer with `released` whatever happens. inherited: the grant of an earlier
   * incarnation of the holder, released whichever node it was made for (ReleaseRequest.inherited).
   */
  | { readonly type: 'sendRelease'; readonly key: string; readonly holder: string; readonly pool: string; readonly inherited?: boolean }
  /** Best effort: a release of the holder in every pool (its object is gone); answer with `releasedGone` whatever happens. */
  | { readonly type: 'sendReleaseGone'; readonly holder: string }
  | { readonly type: 'sendRenew'; readonly sentAt: number; readonly holders: readonly { holder: string; pool: string; grantId?: string }[]; readonly sent: ReadonlyMap<string, RenewedFor> }
  | { readonly type: 'retryAcquireAfter'; readonly key: string; readonly gen: number; readonly afterMs: number }
  /** Be woken with lossTick by this time (a timer set for later is brought forward). */
  | { readonly type: 'lossTickBy'; readonly at: number }
  /** Set the loss timer afresh for this time; null: no grant held, no timer. */
  | { readonly type: 'lossTickAt'; readonly at: number | null }
  | { readonly type: 'log'; readonly level: 'info' | 'warn'; readonly fields: Readonly<Record<string, unknown>>; readonly message: string };

export const keyOf = (holder: string, pool: string): string => `${pool}\u0000${holder}`;

/** How many TTLs a quiet holder's entry is kept for it to speak again. */
const SILENT_KEPT_TTLS = 10;

/** One step's effects, with the earliest new grant deadline it set. */
interface Out {
  readonly effects: ProxyEffect[];
  newDeadline: number;
}

/** One event applied to the proxy's ledger. */
export function proxyStep(l: ProxyLedger, event: ProxyEvent, now: number): readonly ProxyEffect[] {
  const out: Out = { effects: [], newDeadline: Number.POSITIVE_INFINITY };
  switch (event.type) {
    case 'acquire': acquire(l, out, event, now); break;
    case 'release': {
      const key = keyOf(event.holder, event.pool);
      if (event.gen !== undefined) l.releasedGen.set(event.holder, Math.max(event.gen, l.releasedGen.get(event.holder) ?? 0));
      l.entries.delete(key);
      l.silent.delete(key);
      // Given back by the holder's next incarnation: a grant that reaches us later for the one
      // before it is no longer kept for anybody.
      if (event.inherited === true) l.abandoned.delete(key);
      releaseAtBroker(l, out, event.holder, event.pool, event.inherited === true);
      break;
    }
    case 'releaseGone': releaseGone(l, out, event.holder, event.gen); break;
    case 'abandon': abandon(l, out, event.holder, event.pool, now); break;
    case 'renew': {
      const e = l.entries.get(keyOf(event.holder, event.pool));
      if (e) e.heardAt = now;
      else revive(l, out, event, now);
      break;
    }
    case 'acquireDone': acquireDone(l, out, event, now); break;
    case 'acquireFailed': {
      const e = l.entries.get(event.key);
      if (!e || e.gen !== event.gen || e.phase === 'granted') break;
      l.counts.unreachable++;
      out.effects.push({ type: 'log', level: 'warn', fields: { pool: e.pool, holder: e.holder, err: event.error }, message: 'capacity broker unreachable; acquire will be retried' });
      // The holder keeps waiting (its patience is its own); try again after a renew period.
      out.effects.push({ type: 'retryAcquireAfter', key: event.key, gen: event.gen, afterMs: l.timings.renewEveryMs });
      break;
    }
    case 'retryAcquire': {
      const e = l.entries.get(event.key);
      if (e && e.gen === event.gen && e.phase !== 'granted') sendAcquire(l, out, e, now);
      break;
    }
    case 'renewTick': renewTick(l, out, now); break;
    case 'renewDone': renewDone(l, out, event, now); break;
    case 'renewFailed':
      l.renewing = false;
      l.counts.unreachable++;
      out.effects.push({ type: 'log', level: 'warn', fields: { err: event.error }, message: 'capacity renew batch failed; grants are lost at their deadline unless the next one succeeds' });
      break;
    case 'push': push(l, out, event.push, event.at, now); break;
    case 'brokerServing': observeEpoch(l, out, event.epoch, now); break;
    case 'released': released(l, out, event.key, now); break;
    case 'releasedGone': releasedGone(l, out, event.holder, now); break;
    case 'lossTick': lossTick(l, out, now); break;
  }
  if (out.newDeadline !== Number.POSITIVE_INFINITY) out.effects.push({ type: 'lossTickBy', at: out.newDeadline });
  return out.effects;
}

function send(out: Out, e: Entry, notice: SlotNotice): void {
  out.effects.push({ type: 'notify', notify: e.notify, notice });
}

function acquire(l: ProxyLedger, out: Out, msg: Extract<CapacityMsg, { type: 'acquire' }>, now: number): void {
  // A release sent after this acquire overtook it (releases go first): the holder is done.
  const released = l.releasedGen.get(msg.holder);
  if (released !== undefined && msg.gen !== undefined) {
    if (msg.gen <= released) return;
    l.releasedGen.delete(msg.holder);
  }
  const key = keyOf(msg.holder, msg.pool);
  l.abandoned.delete(key);
  l.silent.delete(key);
  let e = l.entries.get(key);
  if (e) {
    e.operation = msg.operation;
    e.exempt = msg.exempt;
    e.notify = msg.notify;
    e.heardAt = now;
  } else {
    const requestedAt = msg.since !== undefined ? Math.min(msg.since, now) : now;
    e = { holder: msg.holder, pool: msg.pool, operation: msg.operation, exempt: msg.exempt, notify: msg.notify, phase: 'acquiring', grantId: '', gen: 0, requestedAt, heardAt: now, deadline: Number.POSITIVE_INFINITY, askedGen: 0, deferred: false };
    l.entries.set(key, e);
  }
  sendAcquire(l, out, e, now);
  e.askedGen = e.gen;
}

function releaseAtBroker(l: ProxyLedger, out: Out, holder: string, pool: string, inherited = false): void {
  const key = keyOf(holder, pool);
  l.releasing.set(key, (l.releasing.get(key) ?? 0) + 1);
  out.effects.push({ type: 'sendRelease', key, holder, pool, ...(inherited ? { inherited } : {}) });
}

function sendAcquire(l: ProxyLedger, out: Out, e: Entry, now: number): void {
  e.gen = ++l.gen;
  const key = keyOf(e.holder, e.pool);
  if (l.releasing.has(key)) {
    e.deferred = true;
    return;
  }
  const going = l.releasingGone.get(e.holder);
  if (going) {
    e.deferred = true;
    if (!going.deferred.includes(e)) going.deferred.push(e);
    return;
  }
  e.deferred = false;
  out.effects.push({ type: 'sendAcquire', key, gen: e.gen, sentAt: now, holder: e.holder, pool: e.pool, operation: e.operation, exempt: e.exempt, waitedMs: Math.max(0, now - e.requestedAt) });
}

/**
 * The holder's object is gone: its actor stopped (abandoning what it held, so the entries are
 * gone already) and nothing will adopt its grant. What the ledger still keeps for it is dropped (a
 * grant that reaches us later is then released as nobody's) and the broker releases it in every
 * pool. The abandoned and silent marks are few (stopped holders of the last TTLs), so the scan is
 * cheap; the entries of live holders are not scanned.
 */
function releaseGone(l: ProxyLedger, out: Out, holder: string, gen: number | undefined): void {
  if (gen !== undefined) l.releasedGen.set(holder, Math.max(gen, l.releasedGen.get(holder) ?? 0));
  const tail = `\u0000${holder}`;
  for (const key of l.abandoned.keys()) if (key.endsWith(tail)) l.abandoned.delete(key);
  for (const [key, { entry }] of l.silent) if (entry.holder === holder) l.silent.delete(key);
  const going = l.releasingGone.get(holder);
  if (going) going.count++;
  else l.releasingGone.set(holder, { count: 1, deferred: [] });
  out.effects.push({ type: 'sendReleaseGone', holder });
}

/** The acquires of a holder of the same name that waited for its gone release go out now. */
function releasedGone(l: ProxyLedger, out: Out, holder: string, now: number): void {
  const going = l.releasingGone.get(holder);
  if (!going) return;
  if (--going.count > 0) return;
  l.releasingGone.delete(holder);
  for (const e of going.deferred) {
    if (l.entries.get(keyOf(e.holder, e.pool)) !== e || !e.deferred) continue;
    const asked = e.askedGen === e.gen;
    sendAcquire(l, out, e, now);
    if (asked) e.askedGen = e.gen;
  }
}

function abandon(l: ProxyLedger, out: Out, holder: string, pool: string, now: number): void {
  const key = keyOf(holder, pool);
  const e = l.entries.get(key);
  if (!e) return;
  l.entries.delete(key);
  l.counts.abandoned++;
  // Queued at the broker: the broker holds no grant for this holder (it would have answered
  // with it), so only a place in the queue goes back. Granted, or asked and not yet answered:
  // kept. An acquire on its way may be adopting the grant of work still running at the backend
  // (this node took the host over a moment ago), and releasing it would free that slot.
  if (e.phase === 'waiting') releaseAtBroker(l, out, holder, pool);
  else l.abandoned.set(key, now);
}

/**
 * A renew from a holder given up for silence: it lives, its renewals were late. Waiting, it asks
 * again from its old place in the queue; holding, it hears its grant is gone (no renew kept it in
 * KV meanwhile), and asks again if it still needs the slot: a grant still live comes back.
 */
function revive(l: ProxyLedger, out: Out, msg: Extract<CapacityMsg, { type: 'renew' }>, now: number): void {
  const key = keyOf(msg.holder, msg.pool);
  const silent = l.silent.get(key);
  if (!silent || msg.notify === undefined) return;
  const released = l.releasedGen.get(msg.holder);
  if (released !== undefined && msg.gen !== undefined && msg.gen <= released) return;
  l.silent.delete(key);
  l.counts.revived++;
  const { entry } = silent;
  if (entry.phase === 'granted') {
    send(out, { ...entry, notify: msg.notify }, { type: 'slotLost', grantId: entry.grantId, pool: entry.pool, reason: `the capacity proxy did not hear from this holder for ${l.timings.ttlMs} ms and gave its grant up; ask again` });
    return;
  }
  l.abandoned.delete(key);
  const e: Entry = { ...entry, notify: msg.notify, operation: msg.operation ?? entry.operation, exempt: msg.exempt ?? entry.exempt, phase: 'acquiring', grantId: '', heardAt: now, deadline: Number.POSITIVE_INFINITY };
  l.entries.set(key, e);
  sendAcquire(l, out, e, now);
  e.askedGen = e.gen;
}

function lose(l: ProxyLedger, out: Out, e: Entry, reason: string): void {
  l.entries.delete(keyOf(e.holder, e.pool));
  l.counts.lost++;
  send(out, e, { type: 'slotLost', grantId: e.grantId, pool: e.pool, reason });
}

function granted(out: Out, e: Entry, grantId: string, deadline: number, waitedMs: number, tellHolder: boolean): void {
  const same = e.phase === 'granted' && e.grantId === grantId;
  e.phase = 'granted';
  e.grantId = grantId;
  e.deadline = same ? Math.max(e.deadline, deadline) : deadline;
  out.newDeadline = Math.min(out.newDeadline, e.deadline);
  if (!same || tellHolder) send(out, e, { type: 'slotGranted', grantId, pool: e.pool, operation: e.operation, waitedMs });
}

/** A reply from a later broker than we knew: our waiters may exist only in the old one's memory. */
function observeEpoch(l: ProxyLedger, out: Out, epoch: number, now: number): void {
  if (epoch <= l.epoch) return;
  const changed = l.epoch >= 0;
  l.epoch = epoch;
  if (!changed) return;
  out.effects.push({ type: 'log', level: 'info', fields: { epoch }, message: 'capacity broker changed; re-sending waiting acquires' });
  for (const e of l.entries.values()) {
    if (e.phase !== 'waiting') continue;
    l.counts.resent++;
    sendAcquire(l, out, e, now);
  }
}

function acquireDone(l: ProxyLedger, out: Out, msg: Extract<ProxyEvent, { type: 'acquireDone' }>, now: number): void {
  const e = l.entries.get(msg.key);
  if (!e) {
    // Released while the acquire was on its way: give back what it got. Abandoned (the asker
    // stopped: its shard moved, its actor restarted): a grant it adopted (one live from before,
    // perhaps covering backend work still running) is kept for the host's next owner, as abandon
    // keeps any grant; a slot newly given to nobody covers no work and goes back at once (issue
    // 30.1: kept, it idled until its TTL, or for ever for a host deleted meanwhile); a place in
    // the queue goes back (no grant exists for a queued holder).
    const abandoned = l.abandoned.has(msg.key);
    // An older broker does not say (adopted absent): kept, as before, lest it be adopted work.
    if (msg.reply.status === 'granted' ? !abandoned || msg.reply.adopted === false : abandoned) {
      if (abandoned && msg.reply.status === 'granted') {
        l.abandoned.delete(msg.key);
        l.counts.orphans++;
      }
      releaseAtBroker(l, out, msg.holder, msg.pool);
    }
    return;
  }
  if (e.gen !== msg.gen) return;
  observeEpoch(l, out, msg.reply.epoch, now);
  if (msg.reply.status === 'granted') granted(out, e, msg.reply.grantId, msg.sentAt + msg.reply.validForMs - l.timings.lossMarginMs, msg.reply.waitedMs, e.askedGen === msg.gen);
  else if (e.phase !== 'granted') {
    e.phase = 'waiting';
    send(out, e, { type: 'slotQueued', pool: e.pool, position: msg.reply.position });
  }
}

function renewTick(l: ProxyLedger, out: Out, now: number): void {
  const { ttlMs } = l.timings;
  const holders: { holder: string; pool: string; grantId?: string }[] = [];
  const sent = new Map<string, RenewedFor>();
  for (const e of [...l.entries.values()]) {
    if (now - e.heardAt > ttlMs) {
      // The holder stopped renewing without a word (a crash mid-operation, say): its backend work
      // may still run, so the slot is not given back but left to lapse or to be adopted. Kept
      // aside: the holder may only be late, and then takes its place back (revive).
      l.silent.set(keyOf(e.holder, e.pool), { entry: e, at: now });
      abandon(l, out, e.holder, e.pool, now);
      continue;
    }
    if (e.phase === 'granted') holders.push({ holder: e.holder, pool: e.pool, grantId: e.grantId });
    else if (e.phase !== 'acquiring') holders.push({ holder: e.holder, pool: e.pool });
    else continue;
    sent.set(keyOf(e.holder, e.pool), { entry: e, grantId: e.phase === 'granted' ? e.grantId : null });
  }
  for (const [key, at] of l.abandoned) if (now - at > 2 * ttlMs) l.abandoned.delete(key);
  for (const [key, s] of l.silent) if (now - s.at > SILENT_KEPT_TTLS * ttlMs) l.silent.delete(key);
  if (holders.length === 0 || l.renewing) return;
  l.renewing = true;
  out.effects.push({ type: 'sendRenew', sentAt: now, holders, sent });
}

function renewDone(l: ProxyLedger, out: Out, msg: Extract<ProxyEvent, { type: 'renewDone' }>, now: number): void {
  l.renewing = false;
  observeEpoch(l, out, msg.reply.epoch, now);
  for (const r of msg.reply.results) {
    const key = keyOf(r.holder, r.pool);
    const e = l.entries.get(key);
    if (!e) {
      if (r.status === 'renewed' && !l.abandoned.has(key)) releaseAtBroker(l, out, r.holder, r.pool);
      continue;
    }
    // The answer is about the request the renew was sent for. A holder that released that slot
    // and asked again meanwhile (inspection done, now provisioning) has a new entry: the late
    // "renewed" of its old grant is no grant for the new request (the broker has the old slot
    // back, or will once the release lands, and may give it to another host).
    const asked = msg.sent.get(key);
    if (asked === undefined || asked.entry !== e) {
      l.counts.staleRenewals++;
      continue;
    }
    // Asked for a held grant: only that grant, still held. Asked while waiting: a grant pushed
    // meanwhile is newer than this answer, unless the answer names that very grant.
    const current = asked.grantId !== null
      ? e.phase === 'granted' && e.grantId === asked.grantId
      : e.phase !== 'granted' || (r.status === 'renewed' && r.grantId === e.grantId);
    if (!current) {
      l.counts.staleRenewals++;
      continue;
    }
    if (r.status === 'renewed') granted(out, e, r.grantId, msg.sentAt + r.validForMs - l.timings.lossMarginMs, Math.max(0, now - e.requestedAt), false);
    else if (r.status === 'unknown') {
      if (e.phase === 'granted') lose(l, out, e, 'the capacity broker no longer knows this grant (it lapsed)');
      else if (e.phase === 'waiting') {
        // A broker that took over after we queued: ask it again.
        l.counts.resent++;
        sendAcquire(l, out, e, now);
      }
    }
  }
}

function push(l: ProxyLedger, out: Out, p: SlotPush, at: number, now: number): void {
  observeEpoch(l, out, p.epoch, now);
  const key = keyOf(p.holder, p.pool);
  const e = l.entries.get(key);
  if (p.type === 'slotGranted') {
    if (e) granted(out, e, p.grantId, at + p.validForMs - l.timings.lossMarginMs, p.waitedMs, false);
    // Abandoned: perhaps a late push of a grant the holder had (work under it may run on). A
    // waiter's grant pushed after its asker stopped goes back with the release of its place
    // (abandon, or the queued answer in acquireDone), which frees a grant made meanwhile too.
    else if (!l.abandoned.has(key)) releaseAtBroker(l, out, p.holder, p.pool);
  } else if (e && e.phase === 'granted' && e.grantId === p.grantId) lose(l, out, e, p.reason);
}

function released(l: ProxyLedger, out: Out, key: string, now: number): void {
  const left = (l.releasing.get(key) ?? 1) - 1;
  if (left > 0) {
    l.releasing.set(key, left);
    return;
  }
  l.releasing.delete(key);
  const e = l.entries.get(key);
  if (e?.deferred) {
    const asked = e.askedGen === e.gen;
    sendAcquire(l, out, e, now);
    if (asked) e.askedGen = e.gen;
  }
}

function lossTick(l: ProxyLedger, out: Out, now: number): void {
  for (const e of [...l.entries.values()]) {
    if (e.phase !== 'granted' || e.deadline > now) continue;
    lose(l, out, e, `grant could not be renewed with the capacity broker within ${l.timings.ttlMs} ms`);
    // Not released: the grant may well be alive at the broker (its answers came late), and the
    // backend work under it runs on. A holder that still needs it asks again and, if it is
    // still live, gets the same grant back; otherwise it lapses.
    l.abandoned.set(keyOf(e.holder, e.pool), now);
  }
  // The one full scan: every other step only brings the timer forward for deadlines it set.
  let next = Number.POSITIVE_INFINITY;
  for (const e of l.entries.values()) if (e.phase === 'granted') next = Math.min(next, e.deadline);
  out.effects.push({ type: 'lossTickAt', at: next === Number.POSITIVE_INFINITY ? null : next });
}

/** Holders by phase, for the actor's summary. */
export function proxyTotals(l: ProxyLedger): { readonly granted: number; readonly waiting: number; readonly acquiring: number } {
  let granted = 0;
  let waiting = 0;
  let acquiring = 0;
  for (const e of l.entries.values()) {
    if (e.phase === 'granted') granted++;
    else if (e.phase === 'waiting') waiting++;
    else acquiring++;
  }
  return { granted, waiting, acquiring };
}
