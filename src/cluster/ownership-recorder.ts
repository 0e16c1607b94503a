// Records who owned which shard when, to check the one property sharding exists for: never two
// owners of a shard at one instant. An interval starts when a node acquired the shard and ends
// when it had stopped the shard's actors (lost or released), so drain time counts as owned.
// Records are plain JSON lines, so nodes in separate processes can append to one file each and a
// test merges them (`parseOwnershipLog`); on one machine the timestamps are comparable.
import type { Fence } from '../ports/index.ts';
import type { ShardLeaseEvents, ShardReleaseWhy } from './shard-leases.ts';

export type OwnershipRecord =
  /** `revision`: the lease key's create revision, when the tenure claimed an epoch above it (issue 30). */
  | { readonly kind: 'acquired'; readonly node: string; readonly shard: number; readonly epoch: number; readonly at: number; readonly revision?: number }
  /**
   * `why`: 'stale-fence' when the node gave the shard up to retake it above a refusing fence.
   * `deadline` (lost only): when the node stopped being allowed to call for the shard, its lease's
   * deadline, before `at` when the lease-lost timer ran late (a starved node). `at` stays when the
   * actors had stopped, the end of the interval the overlap check uses.
   */
  | { readonly kind: 'lost' | 'released'; readonly node: string; readonly shard: number; readonly at: number; readonly why?: ShardReleaseWhy; readonly deadline?: number };

export interface OwnershipInterval {
  readonly node: string;
  readonly shard: number;
  readonly epoch: number;
  readonly start: number;
  /** Infinity while still owned. */
  readonly end: number;
  readonly endedBy?: 'lost' | 'released';
}

export interface Overlap {
  readonly shard: number;
  readonly a: OwnershipInterval;
  readonly b: OwnershipInterval;
}

/** Wall time with sub-millisecond resolution, comparable across processes on one machine. */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

export class OwnershipRecorder {
  private readonly list: OwnershipRecord[] = [];

  constructor(private readonly now: () => number = preciseNow) {}

  record(r: OwnershipRecord): void {
    this.list.push(r);
  }

  acquired(node: string, fence: Fence, revision?: number): void {
    this.record({ kind: 'acquired', node, shard: fence.shard, epoch: fence.epoch, at: this.now(), ...(revision !== undefined && revision !== fence.epoch ? { revision } : {}) });
  }

  ended(node: string, shard: number, kind: 'lost' | 'released', why?: ShardReleaseWhy, deadline?: number): void {
    this.record({ kind, node, shard, at: this.now(), ...(why === 'stale-fence' ? { why } : {}), ...(deadline !== undefined ? { deadline } : {}) });
  }

  /**
   * Wraps a node's shard events: acquisition is stamped before the inner handler starts actors,
   * the end after the inner handler has stopped them, so recorded intervals cover the real ones.
   */
  wrap(node: string, inner: ShardLeaseEvents): ShardLeaseEvents {
    return {
      acquired: (shard, fence, held, revision) => {
        this.acquired(node, fence, revision);
        inner.acquired(shard, fence, held, revision);
      },
      lost: (shard, reason, overdueMs) => {
        // Stamped before the actors stop: the moment the lease's deadline passed, by this clock.
        const deadline = overdueMs === undefined ? undefined : this.now() - overdueMs;
        inner.lost(shard, reason, overdueMs);
        this.ended(node, shard, 'lost', undefined, deadline);
      },
      release: async (shard, why) => {
        await inner.release(shard, why);
        this.ended(node, shard, 'released', why);
      },
    };
  }

  records(): readonly OwnershipRecord[] {
    return this.list;
  }

  /** One JSON object a line: append these to a file from another process. */
  toLines(): string {
    return this.list.map((r) => JSON.stringify(r)).join('\n');
  }

  intervals(): OwnershipInterval[] {
    return toIntervals(this.list);
  }

  overlaps(): Overlap[] {
    return findOverlaps(this.intervals());
  }
}

export function parseOwnershipLog(text: string): OwnershipRecord[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as OwnershipRecord);
}

/** Pairs each acquisition with the same node's next end for that shard, in time order. */
export function toIntervals(records: readonly OwnershipRecord[]): OwnershipInterval[] {
  const open = new Map<string, { epoch: number; start: number }>();
  const out: OwnershipInterval[] = [];
  for (const r of [...records].sort((x, y) => x.at - y.at)) {
    const id = `${r.node}\u0000${r.shard}`;
    const cur = open.get(id);
    if (r.kind === 'acquired') {
      // A second acquire without an end is a bug in the node: keep the first start (wider).
      if (!cur) open.set(id, { epoch: r.epoch, start: r.at });
    } else if (cur) {
      open.delete(id);
      out.push({ node: r.node, shard: r.shard, epoch: cur.epoch, start: cur.start, end: r.at, endedBy: r.kind });
    }
  }
  for (const [id, cur] of open) {
    const [node = '', shard = '0'] = id.split('\u0000');
    out.push({ node, shard: Number(shard), epoch: cur.epoch, start: cur.start, end: Infinity });
  }
  return out;
}

/** Any two intervals of one shard that share an instant (half-open: an end may equal a start). */
export function findOverlaps(intervals: readonly OwnershipInterval[]): Overlap[] {
  const byShard = new Map<number, OwnershipInterval[]>();
  for (const i of intervals) byShard.set(i.shard, [...(byShard.get(i.shard) ?? []), i]);
  const out: Overlap[] = [];
  for (const [shard, list] of byShard) {
    list.sort((x, y) => x.start - y.start);
    // Sweep: compare each interval with the earlier one reaching furthest.
    let reach: OwnershipInterval | undefined;
    for (const cur of list) {
      if (reach && cur.start < reach.end) out.push({ shard, a: reach, b: cur });
      if (!reach || cur.end > reach.end) reach = cur;
    }
  }
  return out;
}
