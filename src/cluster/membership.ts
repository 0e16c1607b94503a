// Cluster membership from heartbeats in a KV bucket. Liveness is judged by local receive time,
// not by the writer's clock, and by local timers, because the bucket TTL (server 2.9) deletes
// stale heartbeats silently: no watch event ever says a node died.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MetalfleetError } from '../api/metalfleet-error.ts';
import type { Clock, KvBucket, KvEvent, Logger, TimerHandle } from '../ports/index.ts';
import { silentLogger } from '../ports/index.ts';

export interface MembershipOptions {
  /** The membership bucket; the caller creates it with a TTL of about deadAfterMs. */
  readonly bucket: KvBucket;
  /** This node's id: letters, digits, '-' and '_' (it becomes a KV key token). */
  readonly self: string;
  readonly heartbeatMs?: number;
  readonly deadAfterMs?: number;
  /**
   * How long the view must stay unchanged before it counts as settled; default one and a half
   * heartbeats. A peer appearing meanwhile starts the wait again (nodes of a cluster starting
   * together), up to deadAfterMs from the start. 0 on a private bus that no other node can join.
   */
  readonly settleMs?: number;
  readonly clock: Clock;
  /** Published with each heartbeat for introspection (pid, start time ...). */
  readonly info?: Record<string, string>;
  readonly log?: Logger;
  /**
   * This node's shard count, written in each heartbeat. Every node of a cluster must run the same
   * one: start refuses (ShardCountMismatch) when another node's heartbeat names another count, and
   * a node joining later with another count is logged as an error and left out of live().
   */
  readonly shardCount?: number;
}

export interface Membership {
  readonly self: string;
  readonly heartbeatMs: number;
  /** Live node ids, sorted; includes self while running. */
  live(): string[];
  /** Called after each change of live(); returns the unsubscribe. */
  onChange(listener: (live: readonly string[]) => void): () => void;
  /**
   * False once the last heartbeat write failed, or none succeeded for deadAfterMs (a write that
   * hangs, as in a partition): the others count this node dead, or soon will.
   */
  readonly healthy: boolean;
  /**
   * Resolves once a full heartbeat round has been seen since start (every running peer wrote)
   * and no peer has joined for that long (nodes starting together), or deadAfterMs after start.
   */
  readonly settled: Promise<void>;
  /** Deletes this node's heartbeat so the others drop it at once, then stops. */
  leave(): Promise<void>;
  stop(): Promise<void>;
}

// instance: one per process start, so a second process given the same --name is told apart.
// shards: the node's shard count (optional: heartbeats of older nodes have it in info.shards, or not at all).
export const Heartbeat = z.object({
  node: z.string(), at: z.number(), instance: z.string().optional(), shards: z.number().int().positive().optional(), info: z.record(z.string(), z.string()).optional(),
});
export type Heartbeat = z.infer<typeof Heartbeat>;

const NODE_ID = /^[A-Za-z0-9_-]+$/;
const PREFIX = 'node.';

/** The shard count a heartbeat announces: its own field, else info.shards (older nodes); null when it names none. */
export function heartbeatShards(hb: Heartbeat): number | null {
  if (hb.shards !== undefined) return hb.shards;
  const info = Number(hb.info?.['shards']);
  return Number.isInteger(info) && info > 0 ? info : null;
}

/**
 * A node would join a cluster whose nodes run another shard count: each would map hosts to shards
 * by its own count, so some hosts are driven twice and others by nobody.
 */
export class ShardCountMismatch extends MetalfleetError {
  /** The other counts, each with the nodes announcing it (sorted). */
  readonly others: ReadonlyMap<number, readonly string[]>;
  constructor(readonly shardCount: number, others: ReadonlyMap<number, readonly string[]>) {
    const sorted = [...others].map(([count, nodes]) => [count, [...nodes].sort()] as const).sort((x, y) => y[1].length - x[1].length || x[0] - y[0]);
    const named = sorted.map(([count, nodes]) => `${count} (${nodes.length === 1 ? 'node' : 'nodes'} ${nodes.join(', ')})`).join(', ');
    super('shardCountMismatch', `shard count ${shardCount} differs from the cluster's ${named}; every node of a cluster must run the same --shards/METALFLEET_SHARDS (to change it, stop every node of the cluster, then start them all with the new count)`, false);
    this.name = 'ShardCountMismatch';
    this.others = new Map(sorted);
  }
}

/**
 * Refuses (ShardCountMismatch) when a heartbeat in the membership bucket, of a node other than
 * `self`, names a shard count other than `shardCount`. The bucket's TTL keeps a heartbeat for
 * about deadAfterMs after its node's last beat, as long as that node's shard leases may stay: a
 * node killed a moment ago still counts. Heartbeats that name no count (older nodes) are passed over.
 */
export async function checkShardCount(options: { readonly bucket: KvBucket; readonly self: string; readonly shardCount: number }): Promise<void> {
  const others = new Map<number, string[]>();
  for (const key of await options.bucket.keys(`${PREFIX}*`)) {
    const node = key.slice(PREFIX.length);
    if (node === options.self) continue;
    const entry = await options.bucket.get(key);
    const hb = entry ? parseHeartbeat(entry.value) : null;
    const shards = hb?.node === node ? heartbeatShards(hb) : null;
    if (shards === null || shards === options.shardCount) continue;
    others.set(shards, [...(others.get(shards) ?? []), node]);
  }
  if (others.size > 0) throw new ShardCountMismatch(options.shardCount, others);
}

export async function startMembership(options: MembershipOptions): Promise<Membership> {
  if (!NODE_ID.test(options.self)) {
    throw new RangeError(`membership: node id "${options.self}" may hold only letters, digits, '-' and '_'`);
  }
  const m = new KvMembership(options);
  await m.start();
  return m;
}

class KvMembership implements Membership {
  readonly self: string;
  readonly heartbeatMs: number;
  readonly settled: Promise<void>;
  private writeFailed = false;
  private lastWriteOk: number;
  private readonly deadAfterMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly peers = new Map<string, TimerHandle>();
  private readonly listeners = new Set<(live: readonly string[]) => void>();
  private running = true;
  private beatTimer: TimerHandle | null = null;
  private settleTimer: TimerHandle | null = null;
  private beating: Promise<void> | null = null;
  private unwatch: (() => void) | null = null;
  private settle!: () => void;
  private settledYet = false;
  /** When the settle wait gives up on a view that keeps changing (start + deadAfterMs). */
  private settleBy = Number.POSITIVE_INFINITY;
  private last: string[] = [];
  private readonly instance = randomUUID();
  /** When a heartbeat under this node's name from another process was last seen (null: never). */
  private twinSeenAt: number | null = null;
  /** Peers whose heartbeat names another shard count (left out of live()): the count, and when last seen. */
  private readonly otherCount = new Map<string, { shards: number; at: number }>();
  /** False until the watch has replayed the bucket: a peer of another count seen before then refuses the start. */
  private replayed = false;

  constructor(private readonly options: MembershipOptions) {
    this.self = options.self;
    this.heartbeatMs = options.heartbeatMs ?? 1_000;
    this.deadAfterMs = options.deadAfterMs ?? 5_000;
    this.clock = options.clock;
    this.lastWriteOk = options.clock.now();
    // The caller's logger names the node already (a node process binds it once, for every line).
    this.log = options.log ?? silentLogger;
    this.settled = new Promise((resolve) => (this.settle = () => {
      this.settledYet = true;
      resolve();
    }));
    if (this.deadAfterMs <= this.heartbeatMs) {
      throw new RangeError(`membership: deadAfterMs ${this.deadAfterMs} must exceed heartbeatMs ${this.heartbeatMs}`);
    }
  }

  async start(): Promise<void> {
    const { shardCount } = this.options;
    // Before the first heartbeat: the others would count this node in and hand it shards.
    if (shardCount !== undefined) await checkShardCount({ bucket: this.options.bucket, self: this.self, shardCount });
    this.last = [this.self];
    await this.beat();
    let ready!: () => void;
    const replayed = new Promise<void>((resolve) => (ready = resolve));
    this.unwatch = await this.options.bucket.watch({ key: `${PREFIX}*`, onEvent: (e) => this.onEvent(e), onReady: () => ready() });
    await replayed;
    this.replayed = true;
    // A node of another count that wrote its first heartbeat after the check (both starting at once).
    if (shardCount !== undefined && this.otherCount.size > 0) {
      const others = new Map<number, string[]>();
      for (const [node, { shards }] of this.otherCount) others.set(shards, [...(others.get(shards) ?? []), node]);
      await this.leave();
      throw new ShardCountMismatch(shardCount, others);
    }
    // Peers already running write within one heartbeat (half again for their timer and write
    // latency); until then this node's view is partial.
    this.settleBy = this.clock.now() + this.deadAfterMs;
    this.waitToSettle();
    this.scheduleBeat();
  }

  /**
   * (Re)starts the settle wait. A peer that appears while this node waits is likely one of a
   * cluster starting together: settling on the view before it would take that peer's shards
   * and hand them over a moment later, its hosts started and drained twice (three nodes of
   * 3,000 hosts: 51 shards, drained for 6-11 s by a loaded node).
   */
  private waitToSettle(): void {
    if (this.settledYet || !this.running) return;
    if (this.settleTimer !== null) this.clock.clearTimeout(this.settleTimer);
    const settleMs = this.options.settleMs ?? Math.ceil(this.heartbeatMs * 1.5);
    const wait = Math.max(0, Math.min(settleMs, this.settleBy - this.clock.now()));
    this.settleTimer = this.clock.setTimeout(() => this.settle(), wait);
  }

  get healthy(): boolean {
    return !this.writeFailed && this.clock.now() - this.lastWriteOk < this.deadAfterMs;
  }

  live(): string[] {
    return [...this.last];
  }

  onChange(listener: (live: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async leave(): Promise<void> {
    if (!this.running) return;
    await this.stop();
    // A heartbeat landing after the delete would resurrect this node for deadAfterMs.
    await this.beating;
    // Another live process heartbeats under this name: deleting the key would count it dead too.
    if (this.twinSeenAt !== null && this.clock.now() - this.twinSeenAt < this.deadAfterMs) return;
    await this.options.bucket.delete(`${PREFIX}${this.self}`).catch((err: unknown) => this.log.warn({ err }, 'membership leave could not delete the heartbeat'));
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unwatch?.();
    for (const t of [this.beatTimer, this.settleTimer, ...this.peers.values()]) if (t !== null) this.clock.clearTimeout(t);
    this.peers.clear();
    this.settle();
  }

  private scheduleBeat(): void {
    if (!this.running) return;
    this.beatTimer = this.clock.setTimeout(() => {
      this.beatTimer = null;
      this.beating = this.beat().finally(() => {
        this.beating = null;
        this.scheduleBeat();
      });
    }, this.heartbeatMs);
  }

  private async beat(): Promise<void> {
    const sentAt = this.clock.now();
    const hb: Heartbeat = {
      node: this.self, at: sentAt, instance: this.instance,
      ...(this.options.shardCount !== undefined ? { shards: this.options.shardCount } : {}),
      ...(this.options.info ? { info: this.options.info } : {}),
    };
    try {
      await this.options.bucket.put(`${PREFIX}${this.self}`, new TextEncoder().encode(JSON.stringify(hb)));
      if (this.writeFailed) this.log.info({}, 'membership heartbeat written again');
      this.writeFailed = false;
      // Peers time us from when they receive it, which is after we sent it.
      this.lastWriteOk = sentAt;
    } catch (err) {
      if (!this.writeFailed) this.log.warn({ err }, 'membership heartbeat failed; peers will count this node dead');
      this.writeFailed = true;
    }
  }

  private onEvent(e: KvEvent): void {
    if (!this.running) return;
    const node = e.key.slice(PREFIX.length);
    if (node === this.self) {
      if (e.op !== 'delete') this.noticeTwin(parseHeartbeat(e.value));
      return;
    }
    const old = this.peers.get(node);
    if (old !== undefined) this.clock.clearTimeout(old);
    const hb = e.op === 'delete' ? null : parseHeartbeat(e.value);
    if (e.op === 'delete') {
      this.peers.delete(node);
      this.otherCount.delete(node);
    } else if (hb?.node === node && this.ofOtherCount(node, hb)) {
      this.peers.delete(node);
    } else if (hb?.node === node) {
      this.peers.set(node, this.clock.setTimeout(() => {
        this.peers.delete(node);
        this.changed();
      }, this.deadAfterMs));
    } else {
      this.log.warn({ key: e.key }, 'membership ignored a heartbeat that does not parse');
      this.peers.delete(node);
    }
    this.changed();
  }

  /**
   * True when the peer's heartbeat names a shard count other than this node's: it is left out of
   * live(), so no shard is handed to a node that maps hosts to shards by another count, and it is
   * logged (once while it keeps beating). A node of this version refuses to start in such a
   * cluster; an older one, or one started at the same moment, cannot know.
   */
  private ofOtherCount(node: string, hb: Heartbeat): boolean {
    const mine = this.options.shardCount;
    const theirs = heartbeatShards(hb);
    if (mine === undefined || theirs === null || theirs === mine) {
      this.otherCount.delete(node);
      return false;
    }
    const seen = this.otherCount.get(node);
    const now = this.clock.now();
    this.otherCount.set(node, { shards: theirs, at: now });
    const fresh = seen === undefined || seen.shards !== theirs || now - seen.at >= this.deadAfterMs;
    if (fresh && this.replayed) {
      this.log.error(
        { peer: node, peerShards: theirs, shards: mine, peerPid: hb.info?.['pid'] ?? 'unknown' },
        `node "${node}" runs with shard count ${theirs}, this node with ${mine}: every node of a cluster must run the same --shards/METALFLEET_SHARDS; it is left out of this node's members (no shard is handed to it): stop whichever node runs the wrong count`,
      );
    }
    return true;
  }

  /** A heartbeat under this node's name written by another process: two nodes share one --name. */
  private noticeTwin(hb: Heartbeat | null): void {
    if (hb?.instance === undefined || hb.instance === this.instance) return;
    const first = this.twinSeenAt === null || this.clock.now() - this.twinSeenAt >= this.deadAfterMs;
    this.twinSeenAt = this.clock.now();
    if (first) {
      this.log.error(
        { otherPid: hb.info?.['pid'] ?? 'unknown' },
        `another process heartbeats as node "${this.self}": every node needs its own --name; the cluster counts both as one node, so stop one of them`,
      );
    }
  }

  private changed(): void {
    const now = [this.self, ...this.peers.keys()].sort();
    if (now.length === this.last.length && now.every((n, i) => n === this.last[i])) return;
    const joined = now.length > this.last.length;
    this.last = now;
    this.log.info({ live: now }, 'membership changed');
    if (joined && this.settleTimer !== null) this.waitToSettle();
    for (const l of this.listeners) l(now);
  }
}

/** A heartbeat record as written by a node; null for anything else in the bucket. */
export function parseHeartbeat(bytes: Uint8Array): Heartbeat | null {
  try {
    const parsed = Heartbeat.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
