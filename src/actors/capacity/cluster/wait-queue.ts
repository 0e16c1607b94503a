import type { Candidate } from './reconcile.ts';

/** A holder queued for a slot at the broker. */
export interface Waiter extends Candidate {
  node: string;
  operation: string;
  /** Last acquire or renew from its node: a waiter not heard of for a TTL is dropped (node died). */
  seenAt: number;
}

/**
 * One pool's waiters, oldest request first. Thousands of hosts may wait on one pool while the
 * broker grants hundreds of slots a second, so every operation on the hot path (append, look up,
 * remove, take the head) is O(1) or O(taken): a JavaScript Map keeps insertion order, and requests
 * arrive in time order except a re-sent acquire after a failover, which re-sorts (rare).
 * Positions need a walk, so they are computed for a whole renew batch in one pass.
 */
export class WaitQueue {
  private byHolder = new Map<string, Waiter>();
  private newestAt = Number.NEGATIVE_INFINITY;

  get size(): number {
    return this.byHolder.size;
  }

  get(holder: string): Waiter | undefined {
    return this.byHolder.get(holder);
  }

  first(): Waiter | undefined {
    for (const w of this.byHolder.values()) return w;
    return undefined;
  }

  /** Adds in request order and returns the waiter's 1-based position. */
  add(w: Waiter): number {
    this.byHolder.delete(w.holder);
    if (w.requestedAt >= this.newestAt) {
      this.byHolder.set(w.holder, w);
      this.newestAt = w.requestedAt;
      return this.byHolder.size;
    }
    // Older than the newest: a re-sent acquire keeps its place, so the order is rebuilt.
    const all = [...this.byHolder.values(), w].sort((a, b) => a.requestedAt - b.requestedAt);
    this.byHolder = new Map(all.map((x) => [x.holder, x]));
    return this.position(w.holder);
  }

  delete(holder: string): boolean {
    const had = this.byHolder.delete(holder);
    if (this.byHolder.size === 0) this.newestAt = Number.NEGATIVE_INFINITY;
    return had;
  }

  /** 1-based position, 0 when not queued. A walk: for single answers, not for batches. */
  position(holder: string): number {
    if (!this.byHolder.has(holder)) return 0;
    let i = 0;
    for (const key of this.byHolder.keys()) {
      i++;
      if (key === holder) return i;
    }
    return 0;
  }

  /** Positions of many holders in one walk (a renew batch asks for every waiting holder of a node). */
  positions(holders: ReadonlySet<string>): Map<string, number> {
    const out = new Map<string, number>();
    if (holders.size === 0) return out;
    let i = 0;
    for (const key of this.byHolder.keys()) {
      i++;
      if (holders.has(key)) {
        out.set(key, i);
        if (out.size === holders.size) break;
      }
    }
    return out;
  }

  /**
   * Waiters oldest first, skipping those `stale` says are gone; each call walks afresh, so a
   * compare-and-set retry sees the queue again. Lazy: the grant stops taking at the first that
   * does not fit, so a write costs what it grants, not the length of the queue.
   */
  live(stale: (w: Waiter) => boolean, skipped: Set<Waiter>): Iterable<Waiter> {
    const queue = this.byHolder;
    return {
      *[Symbol.iterator]() {
        for (const w of queue.values()) {
          if (stale(w)) skipped.add(w);
          else yield w;
        }
      },
    };
  }

  /** Whether any waiter is still heard from; walks only past the stale ones at the head. */
  anyLive(stale: (w: Waiter) => boolean): boolean {
    for (const w of this.byHolder.values()) if (!stale(w)) return true;
    return false;
  }

  /** Removes every waiter `stale` says is gone; O(queue): for the periodic sweep only. */
  dropStale(stale: (w: Waiter) => boolean): number {
    let n = 0;
    for (const w of [...this.byHolder.values()]) {
      if (stale(w)) {
        this.delete(w.holder);
        n++;
      }
    }
    return n;
  }

  /** The first `n` waiters, for figures. */
  head(n: number): Waiter[] {
    const out: Waiter[] = [];
    for (const w of this.byHolder.values()) {
      if (out.length >= n) break;
      out.push(w);
    }
    return out;
  }

  [Symbol.iterator](): IterableIterator<Waiter> {
    return this.byHolder.values();
  }
}
