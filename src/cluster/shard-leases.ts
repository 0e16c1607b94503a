// Shard ownership: each node leases the shards rendezvous hashing gives it over live members,
// hands off (drain, then delete) the ones a newcomer wins, and fences itself when a lease is lost.
import type { Clock, Fence, FenceRefusal, KvBucket, KvEvent, Logger, TimerHandle } from '../ports/index.ts';
import { silentLogger } from '../ports/index.ts';
import type { Lease, LeaseLostReason } from './lease.ts';
import { acquireLease, decodeLeaseValue, effectiveTtlMs, epochOf } from './lease.ts';
import type { StaleFenceEvent, StaleFencePolicy, StaleFenceRetake, StaleFenceState } from './stale-fence/index.ts';
import { claimAbove, initialStaleFence, stepStaleFence } from './stale-fence/index.ts';
import type { Membership } from './membership.ts';
import { desiredShards } from './rendezvous.ts';

export type ShardLostReason =
  | LeaseLostReason
  /** stop({ graceful: false }): timers stopped, the key left to expire. */
  | 'stopped'
  /** events.release rejected: the actors may still run, so they are stopped at once. */
  | 'drain-failed';

export interface ShardLeaseEvents {
  /**
   * This node now owns the shard: start its actors, fencing every write with `fence`. `held` is
   * true while the lease is safely held on the local clock (before its deadline): asked right
   * before a backend call, it catches a node resumed after a pause whose lease-lost timer has not
   * fired yet (its I/O callbacks run first).
   */
  acquired(shard: number, fence: Fence, held: () => boolean, revision?: number): void;
  /**
   * Must stop the shard's actors at once (synchronously): another node may own it soon.
   * `overdueMs`: how long ago the lease's deadline passed (a late timer), when it was lost to it.
   */
  lost(shard: number, reason: ShardLostReason, overdueMs?: number): void;
  /**
   * Graceful handoff: drain in-flight work; resolve once the shard's actors are stopped. `why` is
   * 'stale-fence' when the node gives its own tenure up to take the shard again above a fence
   * that refused it (issue 30), else 'handoff'.
   */
  release(shard: number, why?: ShardReleaseWhy): Promise<void>;
}

export type ShardReleaseWhy = 'handoff' | 'stale-fence';

/** One refusal of a tenure this node holds, as the lease manager judged it (for metrics and events). */
export interface ShardFenceRefused {
  readonly shard: number;
  readonly refusal: FenceRefusal;
  /** Set when this refusal gave the shard up: the tenure and the epoch the retake claims above. */
  readonly gaveUp: StaleFenceRetake | null;
}

export interface ShardLeaseOptions {
  /** The lease bucket, created by the caller with ttlMs = leaseTtlMs. */
  readonly bucket: KvBucket;
  readonly membership: Membership;
  readonly self: string;
  readonly shardCount?: number;
  readonly leaseTtlMs?: number;
  readonly renewMs?: number;
  readonly safetyMarginMs?: number;
  readonly retryMs?: number;
  readonly clock: Clock;
  readonly log?: Logger;
  readonly events: ShardLeaseEvents;
  /** When refusals of a held tenure give the shard up (stale-fence/decision.ts). */
  readonly staleFence?: StaleFencePolicy;
  /** Told of each refusal of a tenure held here, after it was judged. */
  readonly onFenceRefused?: (refused: ShardFenceRefused) => void;
}

export interface ShardLeases {
  owned(): ReadonlyMap<number, Fence>;
  /**
   * A fenced write or backend call of this node was refused as stale (issue 30). A refusal of a
   * tenure held here gives the shard up (drain, release) and takes it again above the refusing
   * epoch; any other (an ended tenure's, another node's) is ignored.
   */
  refused(refusal: FenceRefusal): void;
  /** What the stale-fence watch knows per shard (every shard it has seen a lease write of). */
  fenceWatch(): ReadonlyMap<number, StaleFenceState>;
  /** graceful: hand every held shard off (release, then delete). Otherwise fence and stop at once. */
  stop(options?: { graceful: boolean }): Promise<void>;
}

export const shardKey = (shard: number): string => `shard.${shard}`;

/**
 * How early (a fraction of the renew period) a shard's first renew goes out. A node takes its
 * shards in one turn, so without this their renews reach NATS as one burst every TTL/3 (85 CAS
 * writes at once per node of three, 256 shards); golden-ratio steps spread any set of shard
 * numbers evenly over the first half of the period, and each renew keeps its phase after that.
 */
export const renewSpread = (shard: number): number => ((shard * 0.618_033_988_75) % 1) / 2;

/**
 * Starts the shard lease manager. It acquires nothing until membership has settled (seen one
 * heartbeat round): otherwise the first node of a starting cluster would grab every shard and
 * hand most of them off again a moment later.
 */
export async function startShardLeases(options: ShardLeaseOptions): Promise<ShardLeases> {
  const m = new ShardLeaseManager(options);
  await m.start();
  return m;
}

class ShardLeaseManager implements ShardLeases {
  private readonly shardCount: number;
  private readonly ttlMs: number;
  private readonly retryMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly events: ShardLeaseEvents;
  private readonly held = new Map<number, Lease>();
  private readonly acquiring = new Map<number, Promise<void>>();
  private readonly releasing = new Map<number, Promise<void>>();
  private readonly fences = new Map<number, StaleFenceState>();
  /** Local receive time of the last put seen per shard key: a fresh one means someone holds it. */
  private readonly seen = new Map<number, number>();
  private desired = new Set<number>();
  private settled = false;
  private stopping = false;
  private retryTimer: TimerHandle | null = null;
  private unwatch: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: ShardLeaseOptions) {
    this.shardCount = options.shardCount ?? 256;
    const asked = options.leaseTtlMs ?? 5_000;
    // Every lease counts on the bucket's TTL when it is shorter (effectiveTtlMs): so does mayTake.
    this.ttlMs = effectiveTtlMs(asked, options.bucket);
    this.retryMs = options.retryMs ?? 250;
    this.clock = options.clock;
    // The caller's logger names the node already (a node process binds it once, for every line).
    this.log = options.log ?? silentLogger;
    if (this.ttlMs !== asked) {
      this.log.warn({ leaseTtlMs: asked, bucketTtlMs: this.ttlMs },
        `the lease bucket keeps keys ${this.ttlMs} ms (it was created so, by an earlier node), below the lease TTL of ${asked} ms: leases run at ${this.ttlMs} ms; `
        + `to run ${asked} ms, stop every node and delete the bucket (or raise its max age)`);
    }
    this.events = options.events;
  }

  async start(): Promise<void> {
    this.unwatch = await this.options.bucket.watch({ key: 'shard.*', onEvent: (e) => this.onLeaseEvent(e) });
    this.unsubscribe = this.options.membership.onChange(() => this.reconcile());
    void this.options.membership.settled.then(() => {
      if (this.stopping) return;
      this.settled = true;
      this.tick();
    });
  }

  refused(refusal: FenceRefusal): void {
    const shard = refusal.fence.shard;
    const lease = this.held.get(shard);
    // Only this node's own tenures: a refusal naming another holder is not ours to act on.
    // A lease past its deadline is about to be lost (its timer not yet run): lost() stops the shard.
    if (!lease || !lease.safelyHeld() || refusal.fence.holder !== this.options.self || this.stopping) return;
    const step = this.watchFence(shard, { type: 'refused', epoch: refusal.fence.epoch, current: refusal.current, by: refusal.by });
    if (!step.counted) return;
    const giveUp = step.effects.find((e) => e.type === 'giveUp');
    try {
      this.options.onFenceRefused?.({ shard, refusal, gaveUp: giveUp?.retake ?? null });
    } catch (err) {
      this.log.error({ shard, err }, 'fence refusal listener threw');
    }
    if (!giveUp) return;
    const { retake } = giveUp;
    this.log.warn({ shard, epoch: retake.epoch, lostTo: retake.lostTo, by: retake.by, refusals: giveUp.refusals },
      `shard ${shard}: fence epoch ${retake.epoch} refused as stale by the ${retake.by} (it has seen epoch ${retake.lostTo}); giving the shard up to take it again above ${retake.lostTo}`);
    this.handoff(shard, 'stale-fence');
  }

  fenceWatch(): ReadonlyMap<number, StaleFenceState> {
    return this.fences;
  }

  private watchFence(shard: number, event: StaleFenceEvent): ReturnType<typeof stepStaleFence> {
    const step = stepStaleFence(this.fences.get(shard) ?? initialStaleFence, event, this.clock.now(), this.options.staleFence);
    this.fences.set(shard, step.state);
    return step;
  }

  owned(): ReadonlyMap<number, Fence> {
    const out = new Map<number, Fence>();
    for (const [shard, lease] of this.held) out.set(shard, { shard, epoch: lease.epoch, holder: this.options.self });
    return out;
  }

  async stop(options: { graceful: boolean } = { graceful: true }): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      if (this.retryTimer !== null) this.clock.clearTimeout(this.retryTimer);
      this.unwatch?.();
      this.unsubscribe?.();
    }
    if (options.graceful) {
      for (const shard of this.held.keys()) this.handoff(shard);
    } else {
      for (const [shard, lease] of [...this.held]) {
        lease.abandon();
        this.held.delete(shard);
        this.notifyLost(shard, 'stopped');
      }
    }
    // An acquire answering after this point gives its lease straight back (see acquire()); a
    // graceful stop waits for that, a crash-like one does not wait on a server that may hang.
    if (options.graceful) await Promise.all([...this.acquiring.values(), ...this.releasing.values()]);
  }

  /** Retry loop: renews run on their own timers; this only takes free desired shards. */
  private tick(): void {
    this.retryTimer = null;
    if (this.stopping) return;
    this.reconcile();
    this.retryTimer = this.clock.setTimeout(() => this.tick(), this.retryMs);
  }

  private reconcile(): void {
    if (this.stopping || !this.settled) return;
    this.desired = desiredShards(this.options.self, this.options.membership.live(), this.shardCount);
    for (const shard of this.desired) if (this.mayTake(shard)) this.acquire(shard);
    for (const shard of this.held.keys()) if (!this.desired.has(shard)) this.handoff(shard);
  }

  private mayTake(shard: number): boolean {
    if (this.held.has(shard) || this.acquiring.has(shard) || this.releasing.has(shard)) return false;
    // A holder renews every ttl/3; skip the create that would only conflict. The bucket TTL
    // expires silently, so a put older than the TTL (by local receive time) counts as gone.
    const at = this.seen.get(shard);
    return at === undefined || this.clock.now() - at >= this.ttlMs;
  }

  private onLeaseEvent(e: KvEvent): void {
    const shard = Number(e.key.slice('shard.'.length));
    if (!Number.isInteger(shard) || shard < 0 || shard >= this.shardCount) return;
    // Every epoch the bucket shows for the shard raises its floor: a tenure this node takes later
    // claims above it even if a diverged replica acknowledges its create with a lower revision.
    const minEpoch = e.op === 'put' ? decodeLeaseValue(e.value)?.minEpoch : undefined;
    this.watchFence(shard, { type: 'seen', epoch: epochOf(e.revision, minEpoch) });
    if (e.op === 'put') {
      this.seen.set(shard, this.clock.now());
      return;
    }
    this.seen.delete(shard);
    // A handoff just deleted it: take it now rather than at the next retry.
    if (!this.stopping && this.settled && this.desired.has(shard) && this.mayTake(shard)) this.acquire(shard);
  }

  private acquire(shard: number): void {
    let lease: Lease | null = null;
    const floor = this.fences.get(shard);
    const attempt = acquireLease({
      bucket: this.options.bucket,
      key: shardKey(shard),
      holder: this.options.self,
      ttlMs: this.ttlMs,
      ...(this.options.renewMs !== undefined ? { renewMs: this.options.renewMs } : {}),
      ...(this.options.safetyMarginMs !== undefined ? { safetyMarginMs: this.options.safetyMarginMs } : {}),
      firstRenewEarly: renewSpread(shard),
      clock: this.clock,
      log: this.log,
      ...(floor && floor.floor > 0 ? { minEpoch: claimAbove(floor) } : {}),
      onLost: (reason, overdueMs) => {
        if (lease === null || this.held.get(shard) !== lease) return;
        this.held.delete(shard);
        this.notifyLost(shard, reason, overdueMs);
        this.reconcile();
      },
    }).then(async (got) => {
      if (got === null) return;
      if (this.stopping || !this.desired.has(shard)) {
        // Membership moved (or we are stopping) while the create was in flight: no actors yet.
        await got.release();
        return;
      }
      lease = got;
      this.held.set(shard, got);
      this.watchFence(shard, { type: 'acquired', epoch: got.epoch });
      // An epoch above the create revision was claimed: the bucket's revision was below an epoch known for the shard.
      if (got.epoch !== got.createRevision) this.log.warn({ shard, epoch: got.epoch, revision: got.createRevision }, `shard ${shard} acquired at revision ${got.createRevision}, below epoch ${got.epoch - 1} known for it: claiming epoch ${got.epoch}`);
      else this.log.info({ shard, epoch: got.epoch }, 'shard acquired');
      try {
        this.events.acquired(shard, { shard, epoch: got.epoch, holder: this.options.self }, () => got.safelyHeld(), got.createRevision);
      } catch (err) {
        this.log.error({ shard, err }, 'shard acquired handler threw');
      }
    }, (err: unknown) => {
      this.log.debug({ shard, err }, 'shard lease create failed; retrying');
    }).finally(() => this.acquiring.delete(shard));
    this.acquiring.set(shard, attempt);
  }

  private handoff(shard: number, why: ShardReleaseWhy = 'handoff'): void {
    const lease = this.held.get(shard);
    if (!lease || this.releasing.has(shard)) return;
    this.log.info({ shard, epoch: lease.epoch, why }, 'shard handoff: draining');
    // The lease keeps renewing while the shard drains; if it is lost meanwhile, lost() fires.
    const done = (async () => {
      try {
        await this.events.release(shard, why);
      } catch (err) {
        this.log.error({ shard, err }, 'shard drain failed; stopping its actors at once');
        // lost() stops the actors synchronously, so the key can still be handed back below.
        if (this.held.get(shard) === lease) this.notifyLost(shard, 'drain-failed');
      }
      if (this.held.get(shard) !== lease) return;
      this.held.delete(shard);
      this.watchFence(shard, { type: 'ended' });
      await lease.release();
      this.log.info({ shard, epoch: lease.epoch, why }, 'shard released');
    })().finally(() => {
      this.releasing.delete(shard);
      this.reconcile();
    });
    this.releasing.set(shard, done);
  }

  private notifyLost(shard: number, reason: ShardLostReason, overdueMs?: number): void {
    this.watchFence(shard, { type: 'ended' });
    this.log.warn({ shard, reason, ...(overdueMs ? { overdueMs } : {}) }, 'shard lost; fencing');
    try {
      this.events.lost(shard, reason, overdueMs);
    } catch (err) {
      this.log.error({ shard, err }, 'shard lost handler threw');
    }
  }
}
