// What the broker shows of its ledger: figures, the stall watch's look, the actor summary. Pure
// reads of the ledger at a given time; they never wait behind a turn (a turn stuck on a KV write
// is exactly the stall they have to show).
import { inUse, isLive } from './grant-record.ts';
import type { Ledger } from './grant-ledger.ts';
import { staleAt } from './grant-ledger.ts';
import { freeInUse, roomIn } from './pool-mem.ts';
import type { HoldersReply, WireFigures } from './messages.ts';
import { MAX_HOLDERS_PAGE } from './messages.ts';

/** A release received and not yet written: a pool-less one gives the holder's grants back in every pool. */
export interface Releasing {
  readonly holder: string;
  readonly pool?: string | undefined;
}

/** Most holders and waiters a pool's figures list (counts stay exact). */
const FIGURES_LIST = 200;

// Counts are exact; the lists stop at FIGURES_LIST entries each. A pool without a limit may
// have every host of a large fleet as holder, and the demo asks for figures four times a second:
// listing them all kept the broker busy enough to starve the acquires it exists for.
export function figuresOf(l: Ledger, now: number, releasing: readonly Releasing[] = []): WireFigures {
  // Releases the broker holds for one shared write (turn-pacer.ts) have been given back: the
  // figures count them so, or a fleet that is done would still show its last holders in use.
  const gone = new Set(releasing.map((r) => `${r.pool ?? ''}\u0000${r.holder}`));
  const isGone = (pool: string, holder: string) => gone.size > 0 && (gone.has(`${pool}\u0000${holder}`) || gone.has(`\u0000${holder}`));
  const pools = [...l.pools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((p) => {
    const r = p.v.record;
    let exempt = 0;
    let released = 0;
    const holders: WireFigures['pools'][number]['holders'] = [];
    for (const source of [r.grants, p.free.values()]) {
      for (const g of source) {
        if (!isLive(g, now)) continue;
        if (isGone(p.name, g.holder)) {
          if (!g.exempt) released++;
          continue;
        }
        if (g.exempt) exempt++;
        if (holders.length < FIGURES_LIST) holders.push({ holder: g.holder, node: g.node, operation: g.operation, grantId: g.grantId, exempt: g.exempt, sinceMs: Math.max(0, now - g.grantedAt) });
      }
    }
    const first = p.queue.first();
    const queue = p.queue.head(FIGURES_LIST).map((w) => ({ holder: w.holder, node: w.node, operation: w.operation, waitingMs: Math.max(0, now - w.requestedAt) }));
    return {
      pool: p.name,
      limit: r.limit,
      inUse: inUse(r, now) + freeInUse(p, now) - released,
      exempt,
      waiting: p.queue.size,
      // The queue is in request order: its head has waited longest.
      longestWaitMs: first ? Math.max(0, now - first.requestedAt) : 0,
      stallSeconds: Math.round(p.stall.seconds * 1000) / 1000,
      holders,
      queue,
    };
  });
  return { epoch: l.epoch, pools };
}

/**
 * One look of the stall watch at every pool, as KV has it (a grant staged behind a write that has
 * not landed has not happened yet). `asking`: acquires per pool sent and not yet served.
 */
export function lookAtPools(l: Ledger, asking: ReadonlyMap<string, number>, now: number): void {
  for (const p of l.pools.values()) {
    const queued = p.queue.anyLive(staleAt(l, now)) ? 1 : 0;
    p.stall.look(now, { room: roomIn(p, now, 'durable'), waiting: queued + (asking.get(p.name) ?? 0), granted: p.granted });
  }
}

/** Slots in use and waiters over every pool, for the actor's summary. */
export function ledgerTotals(l: Ledger, now: number): { readonly inUse: number; readonly waiting: number } {
  let used = 0;
  let waiting = 0;
  for (const p of l.pools.values()) {
    used += inUse(p.v.record, now) + freeInUse(p, now);
    waiting += p.queue.size;
  }
  return { inUse: used, waiting };
}

/**
 * One page of every holder's name the ledger knows, in sorted order after `after`: a live grant
 * in any pool, a place in any queue, and `asking` (acquires received and not yet served, which a
 * sweep must see as much as a grant: served, they become one).
 */
export function holdersOf(l: Ledger, now: number, asking: Iterable<string>, after: string | undefined, limit = MAX_HOLDERS_PAGE): HoldersReply {
  const names = new Set<string>();
  const take = (holder: string): void => {
    if (after === undefined || holder > after) names.add(holder);
  };
  for (const p of l.pools.values()) {
    for (const source of [p.v.record.grants, p.free.values()]) for (const g of source) if (isLive(g, now)) take(g.holder);
    for (const w of p.queue) take(w.holder);
  }
  for (const holder of asking) take(holder);
  const sorted = [...names].sort();
  const holders = sorted.slice(0, limit);
  return { epoch: l.epoch, holders, next: sorted.length > limit ? holders[holders.length - 1]! : null };
}
