import type { Reply as RpcReply } from '../../../bus/index.ts';
import { inUse, isLive } from './grant-record.ts';
import type { GrantRecord, PoolRecord } from './grant-record.ts';
import type { Versioned } from './grant-store.ts';
import type { Candidate } from './reconcile.ts';
import type { SlotPush } from './messages.ts';
import { StallWatch } from './stall-watch.ts';
import { WaitQueue } from './wait-queue.ts';
import type { Waiter } from './wait-queue.ts';

/** A write that failed, for every request whose answer rode on it. */
export interface FailedWrite {
  readonly error: unknown;
  readonly reply: RpcReply<never>;
}

/**
 * One pool as the serving broker holds it. Changes are staged on `v` (the working version every
 * decision reads) and written once per broker turn over `durable` by compare-and-set: a turn's
 * acquires, releases and renewals cost one write of the record, not one each.
 */
export interface PoolMem {
  readonly name: string;
  /** The working version: `durable` plus what this turn staged. */
  v: Versioned;
  /** What KV has, as far as this broker knows: the base of the next compare-and-set. */
  durable: Versioned;
  /** Counts writes: a request is answered from the write of the generation it touched. */
  gen: number;
  /** Generations whose write failed this turn. */
  readonly failed: Map<number, FailedWrite>;
  /** Waiters granted by staged changes: back in the queue if their write fails. */
  readonly promoted: Waiter[];
  /** Notices of staged changes: made (at the time they go out) once their write is durable, dropped if it fails. */
  readonly pushes: { readonly make: (now: number) => SlotPush; readonly node: string }[];
  /** grantId → expiresAt of renewals not yet written; written at most every flushEveryMs. */
  readonly renewed: Map<string, number>;
  /** Oldest request first. */
  readonly queue: WaitQueue;
  /**
   * Grants of a pool without a limit, by holder: kept in memory only. There is no limit to hold,
   * so nothing needs the compare-and-set, and writing one record of every holder on each grant
   * would cost O(holders) per grant. A new broker takes them over from the holders' renewals.
   */
  readonly free: Map<string, GrantRecord>;
  /** Grants of this pool made durable by this broker: the stall watch sees whether any came. */
  granted: number;
  /** Grants staged since the last write: they count once it lands. */
  staged: number;
  readonly stall: StallWatch;
  /** The record's grants by holder, for the record they were indexed from. */
  byHolder?: { readonly of: PoolRecord; readonly grants: Map<string, GrantRecord> };
}

export function newPoolMem(name: string, v: Versioned): PoolMem {
  return { name, v, durable: v, gen: 0, failed: new Map(), promoted: [], pushes: [], renewed: new Map(), queue: new WaitQueue(), free: new Map(), granted: 0, staged: 0, stall: new StallWatch() };
}

/** Staged changes not yet written. */
export function isDirty(p: PoolMem): boolean {
  return p.v.record !== p.durable.record;
}

/** The pool's grant of a holder: indexed once per record version, not scanned per lookup. */
export function grantIn(p: PoolMem, holder: string): GrantRecord | undefined {
  const r = p.v.record;
  if (p.byHolder?.of !== r) p.byHolder = { of: r, grants: new Map(r.grants.map((g) => [g.holder, g])) };
  return p.byHolder.grants.get(holder);
}

/** Live non-exempt in-memory grants: they count against a limit set on the pool later. */
export function freeInUse(p: PoolMem, now: number): number {
  let n = 0;
  for (const g of p.free.values()) if (!g.exempt && isLive(g, now)) n++;
  return n;
}

/** Free slots in a pool (Infinity without a limit), in the working record or as KV has it. */
export function roomIn(p: PoolMem, now: number, of: 'working' | 'durable' = 'working'): number {
  const record = of === 'working' ? p.v.record : p.durable.record;
  const limit = record.limit;
  return limit === 0 ? Number.POSITIVE_INFINITY : limit - inUse(record, now) - freeInUse(p, now);
}

/**
 * Who may be granted in one write, in grant order: an exempt acquire first (no limit binds it),
 * then the queue oldest first with a fresh acquire at its place by request time.
 */
export function candidatesOf(queue: Iterable<Waiter>, fresh: Candidate | undefined): Iterable<Candidate> {
  if (fresh === undefined) return queue;
  return {
    *[Symbol.iterator]() {
      if (fresh.exempt) {
        yield fresh;
        yield* queue;
        return;
      }
      let placed = false;
      for (const w of queue) {
        if (!placed && w.requestedAt > fresh.requestedAt) {
          placed = true;
          yield fresh;
        }
        yield w;
      }
      if (!placed) yield fresh;
    },
  };
}
