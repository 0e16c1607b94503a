// What a chaos run's records say, as pure functions of them: the fixture's call log (every call
// with its caller's fence, when its caller let it go and when it arrived), its gate events (busy()
// over time) and the nodes' ownership logs (who acquired which shard at which epoch, and when each
// tenure ended). All times are one clock: performance.timeOrigin + performance.now() in each
// process on one machine.
import type { FixtureCallRecord, FixtureGateEvent } from '../src/adapters/fixture/index.ts';
import type { OwnershipRecord } from '../src/cluster/index.ts';

/** A call its caller let go after its tenure of the host's shard had ended. */
export interface StaleCall {
  readonly call: FixtureCallRecord;
  /**
   * superseded: another tenure of the shard (a higher epoch) had been acquired before the call
   * left; ended: the caller had itself recorded the end (lost or released) of its tenure, a lost
   * one at its lease's deadline when the record has it.
   */
  readonly why: 'superseded' | 'ended';
  /** The node whose tenure superseded the caller's (superseded only). */
  readonly by: string | null;
  /** Milliseconds from the superseding acquisition (or the caller's own end) to the call leaving. */
  readonly lateMs: number;
}

/**
 * Calls that left while their tenure held but arrived after it was superseded or had ended: in
 * flight, or queued in the backend process's own busy event loop. Not a lease violation (the
 * caller could not know), and the backend's owner record orders them: it takes a call only when
 * no higher epoch has called for the host, so an accepted one comes before every call of the
 * newer tenure at that host, never between them; one that comes after is refused.
 */
export interface LateArrivals {
  readonly accepted: number;
  readonly refused: number;
  /** The longest time a call spent between leaving and arriving, of all calls (ms). */
  readonly maxTransitMs: number;
}

export interface LeaseAudit {
  readonly stale: StaleCall[];
  readonly lateArrivals: LateArrivals;
  /** Fenced calls whose tenure no ownership log shows (a log lost with its node): not judged. */
  readonly unknownTenure: number;
  /** Calls without a fence: nothing says who made them. */
  readonly unfenced: number;
  /** Calls that did not say when they left (an older client): judged by their arrival instead. */
  readonly judgedByArrival: number;
}

type Acquired = Extract<OwnershipRecord, { kind: 'acquired' }>;
type Ended = Exclude<OwnershipRecord, Acquired>;

/**
 * Judges every fenced call against the shard's ownership history, at the moment its caller let it
 * go (the call's sentAt, stamped by the caller as it got its connection; its arrival when it did
 * not say). A call of epoch e for shard s is stale when a tenure of s with a higher epoch was
 * acquired at or before it left (lease epochs are KV revisions: a later tenure always has a higher
 * one), or when the caller's own tenure e had ended before it left. The first rule is the pause
 * test's (test/cluster/cluster-pause.test.ts).
 *
 * Why not the arrival: the fixture runs in the bench's process, which on a loaded machine gets to a
 * request hundreds of milliseconds after it was written, so a call the node sent while its lease
 * was safely held was stamped after the next owner's acquisition and counted as a call after lease
 * loss. What the node is answerable for is when it let the call go; what arrives late is counted in
 * lateArrivals, and the backend's owner record keeps it from acting between the newer tenure's calls.
 */
export function auditLeases(calls: readonly FixtureCallRecord[], records: readonly OwnershipRecord[]): LeaseAudit {
  const acquisitions = new Map<number, Acquired[]>();
  const ends = new Map<string, Ended[]>();
  for (const r of records) {
    if (r.kind === 'acquired') push(acquisitions, r.shard, r);
    else push(ends, `${r.node}\u0000${r.shard}`, r);
  }
  for (const list of acquisitions.values()) list.sort((a, b) => a.at - b.at);
  for (const list of ends.values()) list.sort((a, b) => a.at - b.at);

  const stale: StaleCall[] = [];
  let unknownTenure = 0;
  let unfenced = 0;
  let judgedByArrival = 0;
  let accepted = 0;
  let refused = 0;
  let maxTransitMs = 0;
  // When the call's tenure no longer held it at `at`: by a later acquisition, or its own end.
  const endedBy = (call: FixtureCallRecord & { epoch: number }, history: readonly Acquired[], tenure: Acquired | undefined, at: number): Omit<StaleCall, 'call'> | null => {
    const later = history.find((a) => a.epoch > call.epoch && a.at <= at);
    if (later) return { why: 'superseded', by: later.node, lateMs: at - later.at };
    if (!tenure) return null;
    const end = (ends.get(`${call.holder}\u0000${call.shard}`) ?? []).find((e) => e.at >= tenure.at);
    if (!end) return null;
    // A lost tenure ended at its lease's deadline, when the node stopped being allowed to call; its
    // record is stamped when the lease-lost timer ran, later on a starved node.
    const ended = end.kind === 'lost' && end.deadline !== undefined ? Math.min(end.deadline, end.at) : end.at;
    return ended < at ? { why: 'ended', by: null, lateMs: at - ended } : null;
  };
  for (const call of calls) {
    if (call.sentAt !== null) maxTransitMs = Math.max(maxTransitMs, call.at - call.sentAt);
    if (call.shard === null || call.epoch === null || call.holder === null) {
      unfenced += 1;
      continue;
    }
    const fenced = call as FixtureCallRecord & { epoch: number };
    const history = acquisitions.get(call.shard) ?? [];
    const tenure = history.find((a) => a.epoch === call.epoch && a.node === call.holder);
    const left = call.sentAt ?? call.at;
    if (call.sentAt === null) judgedByArrival += 1;
    const atLeaving = endedBy(fenced, history, tenure, left);
    if (atLeaving) {
      stale.push({ call, ...atLeaving });
      continue;
    }
    if (!tenure) {
      unknownTenure += 1;
      continue;
    }
    if (call.sentAt !== null && endedBy(fenced, history, tenure, call.at)) {
      if (call.refused) refused += 1;
      else accepted += 1;
    }
  }
  return { stale, lateArrivals: { accepted, refused, maxTransitMs }, unknownTenure, unfenced, judgedByArrival };
}

/**
 * For each host, the arrival of its first call after `after` that the backend took (not
 * refused), that is not stale, and whose tenure has not ended since: the host's work going on
 * under an owner that still holds it. A call from a tenure that was lost or handed off later
 * does not count, so a host whose new owner never picks it up is not counted as moving again
 * because its old owner called once more before its lease ran out.
 */
export function firstProgress(calls: readonly FixtureCallRecord[], records: readonly OwnershipRecord[], hosts: ReadonlySet<string>, after: number, stale: ReadonlySet<FixtureCallRecord>): Map<string, number> {
  const ended = endedTenures(records);
  const out = new Map<string, number>();
  for (const call of calls) {
    if (call.at <= after || call.refused || stale.has(call) || !hosts.has(call.host) || out.has(call.host)) continue;
    if (call.holder !== null && ended.has(`${call.holder}\u0000${call.shard}\u0000${call.epoch}`)) continue;
    out.set(call.host, call.at);
  }
  return out;
}

// Tenures (node, shard, epoch) that have an end record of their node's after their acquisition.
function endedTenures(records: readonly OwnershipRecord[]): Set<string> {
  const out = new Set<string>();
  const sorted = [...records].sort((a, b) => a.at - b.at);
  const open = new Map<string, number>();
  for (const r of sorted) {
    const id = `${r.node}\u0000${r.shard}`;
    if (r.kind === 'acquired') open.set(id, r.epoch);
    else {
      const epoch = open.get(id);
      if (epoch !== undefined) out.add(`${id}\u0000${epoch}`);
      open.delete(id);
    }
  }
  return out;
}

/** Hosts with a gated operation running (a backend slot's worth of work) at instant `at`. */
export function busyAt(events: readonly FixtureGateEvent[], at: number): Set<string> {
  const busy = new Set<string>();
  for (const e of events) {
    if (e.at > at) break;
    if (e.kind === 'opened') busy.add(e.host);
    else busy.delete(e.host);
  }
  return busy;
}

/** A stretch of time in which more gated operations ran at once than the limit allows. */
export interface OverLimit {
  readonly from: number;
  readonly to: number;
  readonly peak: number;
  /** The hosts running at the first instant of the peak, each with the caller of the call that opened its operation. */
  readonly atPeak: Array<{ host: string; op: string; since: number; openedBy: string | null }>;
}

export function overLimit(events: readonly FixtureGateEvent[], calls: readonly FixtureCallRecord[], limit: number): OverLimit[] {
  const out: OverLimit[] = [];
  const running = new Map<string, { op: string; since: number }>();
  let current: { from: number; peak: number; atPeak: Array<{ host: string; op: string; since: number }> } | null = null;
  for (const e of events) {
    if (e.kind === 'opened') running.set(e.host, { op: e.op, since: e.at });
    else running.delete(e.host);
    if (running.size > limit) {
      current ??= { from: e.at, peak: 0, atPeak: [] };
      if (running.size > current.peak) {
        current.peak = running.size;
        current.atPeak = [...running].map(([host, r]) => ({ host, ...r }));
      }
    } else if (current) {
      out.push({ from: current.from, to: e.at, peak: current.peak, atPeak: current.atPeak.map((r) => ({ ...r, openedBy: openerOf(calls, r.host, r.op, r.since) })) });
      current = null;
    }
  }
  if (current) out.push({ from: current.from, to: Number.POSITIVE_INFINITY, peak: current.peak, atPeak: current.atPeak.map((r) => ({ ...r, openedBy: openerOf(calls, r.host, r.op, r.since) })) });
  return out;
}

// The gate opens as its call arrives: the latest call of that host and operation at or just
// before the opening (the log and the gate read the clock a few microseconds apart).
function openerOf(calls: readonly FixtureCallRecord[], host: string, op: string, at: number): string | null {
  let best: FixtureCallRecord | null = null;
  for (const c of calls) {
    if (c.host !== host || c.op !== op || c.at > at + 1) continue;
    if (!best || c.at >= best.at) best = c;
  }
  return best ? `${best.holder ?? 'unfenced'}@${best.epoch ?? '-'}` : null;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** One write to the lease bucket as its stream stored it, seen by the bench's own watcher. */
export interface LeaseWrite {
  readonly key: string;
  /** The stream sequence: lease epochs are these. */
  readonly revision: number;
  readonly op: 'PUT' | 'DEL' | 'PURGE';
  readonly holder: string | null;
  readonly leaseId: string | null;
  /** The server's store time (ms since the epoch). */
  readonly storedAt: number;
}

/** A lease taken while another holder's entry of the key was still live: two holders at once. */
export interface DoubleGrant {
  readonly key: string;
  readonly older: { readonly holder: string | null; readonly leaseId: string | null; readonly revision: number; readonly storedAt: number };
  readonly newer: { readonly holder: string | null; readonly leaseId: string | null; readonly revision: number; readonly storedAt: number };
  /** Milliseconds between the two stored writes. */
  readonly gapMs: number;
  /**
   * cas-race: the older entry is its holder's create and the newer create followed it within a
   * TTL: two creates of one absent key both committed, the 2.9.10 clustered CAS race (fixed in
   * 2.9.21). over-renewal: the newer create committed over a renewal, a key the stream had held
   * for a while; two concurrent creates do not explain that (a stale leader or lost write would).
   */
  readonly shape: 'cas-race' | 'over-renewal';
  /** The watcher saw every revision between the two, so no delete can hide between them. */
  readonly contiguous: boolean;
}

/**
 * Double grants in the lease bucket's own history: a create (the first write of a lease id) stored
 * while the key's last entry was another lease id's write, not deleted, and younger than the TTL.
 * The stream refuses such a create unless its compare-and-set was checked against a stale state.
 * A max-age expiry writes nothing, so "younger than the TTL" is what rules it out.
 */
export function doubleGrants(writes: readonly LeaseWrite[], ttlMs: number): DoubleGrant[] {
  const sorted = [...writes].sort((a, b) => a.revision - b.revision);
  const seen = new Set(sorted.map((w) => w.revision));
  const last = new Map<string, LeaseWrite>();
  const createOf = new Map<string, number>();
  const out: DoubleGrant[] = [];
  for (const w of sorted) {
    const prev = last.get(w.key);
    last.set(w.key, w);
    if (w.op !== 'PUT' || w.leaseId === null) continue;
    const isCreate = !createOf.has(w.leaseId);
    if (isCreate) createOf.set(w.leaseId, w.revision);
    if (!isCreate || !prev || prev.op !== 'PUT' || prev.leaseId === w.leaseId) continue;
    const gapMs = w.storedAt - prev.storedAt;
    if (gapMs >= ttlMs) continue;
    let contiguous = true;
    for (let r = prev.revision + 1; r < w.revision && contiguous; r++) contiguous = seen.has(r);
    const side = (x: LeaseWrite): DoubleGrant['older'] => ({ holder: x.holder, leaseId: x.leaseId, revision: x.revision, storedAt: x.storedAt });
    out.push({ key: w.key, older: side(prev), newer: side(w), gapMs, shape: createOf.get(prev.leaseId ?? '') === prev.revision ? 'cas-race' : 'over-renewal', contiguous });
  }
  return out;
}

/** What of a run's misses the 2.9.10 CAS race explains (counted apart, never subtracted silently). */
export interface CasRaceShare {
  /** cas-race double grants the watcher saw whole (contiguous). */
  readonly doubleGrants: number;
  /** Stale calls of the older holder of such a grant, superseded by the newer. */
  readonly callsAfterLeaseLoss: number;
  /** Over-limit episodes that began while a broker (or an at-peak host's shard) was double granted. */
  readonly overLimitEpisodes: number;
  readonly deployedTwice: number;
}

/**
 * Attributes misses to cas-race double grants. A stale call is the race's when it is the older
 * holder's call on that shard, superseded, within the grant's window. Not by epoch = the older
 * create's revision: on 2.9.10 the replica a watcher reads can number writes apart from the
 * leader that acknowledged them (130 apart in one run). An over-limit episode is when it
 * began within `windowMs` after a double grant of the broker, or of the shard of a host running at
 * its peak: slots granted by two brokers run until their operations end. A host deployed twice is
 * when its shard was double granted.
 */
export function casRaceShare(grants: readonly DoubleGrant[], stale: readonly StaleCall[], episodes: readonly OverLimit[], twice: readonly string[], shardOf: (host: string) => number | undefined, windowMs: number): CasRaceShare {
  const races = grants.filter((g) => g.shape === 'cas-race' && g.contiguous);
  const shardRaces = (shard: number | undefined): DoubleGrant[] => races.filter((g) => shard !== undefined && g.key === `shard.${shard}`);
  const during = (g: DoubleGrant, at: number): boolean => at >= g.older.storedAt && at <= g.newer.storedAt + windowMs;
  const calls = stale.filter((s) => s.why === 'superseded' && shardRaces(s.call.shard ?? undefined).some((g) => g.older.holder === s.call.holder && during(g, s.call.at))).length;
  const overLimitEpisodes = episodes.filter((e) => races.some((g) => during(g, e.from) && (g.key === 'broker' || e.atPeak.some((r) => g.key === `shard.${shardOf(r.host)}`)))).length;
  const deployedTwice = twice.filter((h) => shardRaces(shardOf(h)).length > 0).length;
  return { doubleGrants: races.length, callsAfterLeaseLoss: calls, overLimitEpisodes, deployedTwice };
}

/** Each node's acquisitions (its create's acknowledged revision) against the writes the watcher saw. */
export interface EpochCheck {
  /** The watcher saw that revision as this node's write of this shard's key. */
  readonly matched: number;
  /** The watcher never saw that revision (it fell behind, or the write was replaced first). */
  readonly unseen: number;
  /**
   * The watcher saw that revision as another key's or holder's write: the acknowledgement the node
   * got and the stream the watcher reads disagree (replicas numbering writes differently).
   */
  readonly mismatched: Array<{ node: string; shard: number; epoch: number; seenKey: string; seenHolder: string | null }>;
}

/** `since`: when the watch was in place; the nodes' acquisitions before it are not judged. */
export function epochsAgainstStream(records: readonly OwnershipRecord[], writes: readonly LeaseWrite[], since: number): EpochCheck {
  const byRevision = new Map(writes.map((w) => [w.revision, w]));
  let matched = 0;
  let unseen = 0;
  const mismatched: EpochCheck['mismatched'] = [];
  for (const r of records) {
    if (r.kind !== 'acquired' || r.at < since) continue;
    // A tenure that claimed an epoch above its create revision (issue 30) says which revision it got.
    const w = byRevision.get(r.revision ?? r.epoch);
    if (!w) unseen += 1;
    else if (w.key === `shard.${r.shard}` && w.holder === r.node) matched += 1;
    else mismatched.push({ node: r.node, shard: r.shard, epoch: r.epoch, seenKey: w.key, seenHolder: w.holder });
  }
  return { matched, unseen, mismatched };
}

/**
 * Shards a node gave up because its tenure's fence was refused as stale, to take them again above
 * the refusing epoch (issue 30): the ownership logs' releases marked 'stale-fence', and the
 * retakes that followed (the same node's next acquisition of the shard) with their epochs.
 */
export function staleFenceRetakes(records: readonly OwnershipRecord[]): { gaveUp: number; retaken: number; epochs: Array<{ node: string; shard: number; from: number; to: number | null }> } {
  const sorted = [...records].sort((a, b) => a.at - b.at);
  const epochs: Array<{ node: string; shard: number; from: number; to: number | null }> = [];
  const last = new Map<string, number>();
  const waiting = new Map<string, { node: string; shard: number; from: number; to: number | null }>();
  for (const r of sorted) {
    const id = `${r.node}\u0000${r.shard}`;
    if (r.kind === 'acquired') {
      const gave = waiting.get(id);
      if (gave) {
        gave.to = r.epoch;
        waiting.delete(id);
      }
      last.set(id, r.epoch);
    } else if (r.kind === 'released' && r.why === 'stale-fence') {
      const entry = { node: r.node, shard: r.shard, from: last.get(id) ?? 0, to: null as number | null };
      epochs.push(entry);
      waiting.set(id, entry);
    }
  }
  return { gaveUp: epochs.length, retaken: epochs.filter((e) => e.to !== null).length, epochs };
}

/**
 * Acquisitions whose epoch is below that of a tenure of the same shard that had already ended: a
 * later tenure always gets a higher revision, so this is the server acknowledging writes with
 * numbers that went back (on 2.9.10: replicas numbering the same writes apart, then a leader
 * change). Overlapping tenures (a double grant) are not compared: their order is the race's.
 * Fences compare epochs, so a tenure with a lower one is refused as stale by the backend and the
 * store for as long as it lasts.
 */
export function epochsBackwards(records: readonly OwnershipRecord[]): Array<{ shard: number; node: string; epoch: number; after: number; at: number }> {
  const open = new Map<string, number>();
  const endedHighest = new Map<number, number>();
  const out: Array<{ shard: number; node: string; epoch: number; after: number; at: number }> = [];
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    const id = `${r.node}\u0000${r.shard}`;
    if (r.kind !== 'acquired') {
      const epoch = open.get(id);
      if (epoch !== undefined) endedHighest.set(r.shard, Math.max(endedHighest.get(r.shard) ?? 0, epoch));
      open.delete(id);
      continue;
    }
    const before = endedHighest.get(r.shard);
    if (before !== undefined && r.epoch < before) out.push({ shard: r.shard, node: r.node, epoch: r.epoch, after: before, at: r.at });
    open.set(id, r.epoch);
  }
  return out;
}
