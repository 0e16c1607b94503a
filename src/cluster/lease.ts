// One lease on one KV key: create-if-absent, renew by revision (CAS), self-fence on a local
// deadline. Used for shard ownership and for the capacity broker's singleton.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Clock, KvBucket, Logger, TimerHandle } from '../ports/index.ts';
import { KvConflict, silentLogger } from '../ports/index.ts';

/** Why a lease ended without release(): the caller must stop what the lease guarded, at once. */
export type LeaseLostReason =
  /** No renew succeeded before the local deadline (server unreachable or too slow). */
  | 'expired'
  /** A renew lost the CAS: the key changed, so someone else holds it (or it expired and was taken). */
  | 'conflict';

export interface LeaseOptions {
  readonly bucket: KvBucket;
  readonly key: string;
  readonly holder: string;
  /**
   * The lease's TTL: the bucket's, which the caller created with it (the server forgets an
   * unrenewed lease this long after its last write). Where the bucket already had a shorter one,
   * that one is used (effectiveTtlMs).
   */
  readonly ttlMs: number;
  /** Default ttlMs / 3: two renews may fail before the deadline. */
  readonly renewMs?: number;
  /** Deadline = last successful request's send time + ttlMs − this. Default ttlMs / 5. */
  readonly safetyMarginMs?: number;
  /**
   * How much earlier than renewMs the first renew goes out, as a fraction of it in [0, 1):
   * a manager taking many leases at once gives each its own, so that their renews reach the
   * server spread over the period instead of as one burst every renewMs. Early is always safe:
   * the deadline counts from each renew's send time. Default 0.
   */
  readonly firstRenewEarly?: number;
  readonly clock: Clock;
  /**
   * Called synchronously, before the server-side TTL can expire; the holder must fence itself.
   * `overdueMs`: how long before this call the lease stopped being safely held (its deadline
   * passed): 0 when the timer fired on time, more when a starved event loop ran it late.
   */
  readonly onLost: (reason: LeaseLostReason, overdueMs: number) => void;
  readonly log?: Logger;
  /**
   * The lowest epoch this tenure may have (issue 30). The epoch is the create revision unless that
   * is lower: a bucket whose replicas diverged (nats-server 2.9.10, a wiped leader) can hand out a
   * revision below an epoch the store and backends have already seen, and every fenced write of
   * such a tenure is refused. The tenure then claims this instead, and says so in its value.
   */
  readonly minEpoch?: number;
}

/**
 * What a lease key holds: (epoch, holder, leaseId) is the fencing token (reference/peers.md B4).
 * `minEpoch`, when set, is the least epoch the tenure claimed: its epoch is the larger of it and
 * the key's create revision, which watchers of the bucket learn from both.
 */
export const LeaseValue = z.object({ holder: z.string(), leaseId: z.string(), at: z.number(), minEpoch: z.number().int().nonnegative().optional() });
export type LeaseValue = z.infer<typeof LeaseValue>;

export function encodeLeaseValue(value: LeaseValue): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

export function decodeLeaseValue(bytes: Uint8Array): LeaseValue | null {
  try {
    const parsed = LeaseValue.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Tries once to take the key. Resolves to the held Lease, or null when someone else holds it.
 * Throws KvUnavailable when the bucket cannot be reached.
 */
export async function acquireLease(options: LeaseOptions): Promise<Lease | null> {
  const { ttlMs, marginMs } = timing(options);
  const leaseId = randomUUID();
  const sentAt = monotonicOf(options.clock);
  let revision: number;
  try {
    revision = await options.bucket.create(options.key, encodeLeaseValue({ holder: options.holder, leaseId, at: options.clock.now(), ...minEpochOf(options) }));
  } catch (err) {
    if (err instanceof KvConflict) return null;
    throw err;
  }
  if (monotonicOf(options.clock) >= sentAt + ttlMs - marginMs) {
    // The create answered after its own deadline: we cannot trust the time left, so give it back.
    await options.bucket.delete(options.key, { revision }).catch(() => undefined);
    return null;
  }
  return new Lease(options, leaseId, revision, sentAt);
}

// Every lease time (when a write was sent, the deadline) is on the monotonic clock: a wall clock
// stepped back must not make a lapsed lease look safely held.
const monotonicOf = (clock: LeaseOptions['clock']): number => clock.monotonic?.() ?? clock.now();

const minEpochOf = (options: LeaseOptions): { minEpoch?: number } => (options.minEpoch !== undefined && options.minEpoch > 0 ? { minEpoch: options.minEpoch } : {});

/** A tenure's epoch from its create revision and the value it wrote: what every holder and watcher computes. */
export const epochOf = (createRevision: number, minEpoch: number | undefined): number => Math.max(createRevision, minEpoch ?? 0);

/**
 * The TTL a lease may count on: the one it was given, or the bucket's own when that is shorter.
 * The server forgets a key after the bucket's TTL, whatever the holder was told: a bucket made
 * earlier with a shorter one (by nodes of an older default) must not leave a holder trusting a
 * key the server already dropped and another node may have created.
 */
export function effectiveTtlMs(ttlMs: number, bucket: Pick<KvBucket, 'ttlMs'>): number {
  const server = bucket.ttlMs ?? 0;
  return server > 0 && server < ttlMs ? server : ttlMs;
}

function defaultTiming(ttlMs: number): { renewMs: number; marginMs: number } {
  return { renewMs: Math.max(1, Math.floor(ttlMs / 3)), marginMs: Math.floor(ttlMs / 5) };
}

/**
 * The longest write outage, starting just after a renew, that a lease of this TTL outlives with
 * the default timing: when its last renew before the deadline is sent (two thirds of the TTL).
 */
export function tolerableOutageMs(ttlMs: number): number {
  const { renewMs, marginMs } = defaultTiming(ttlMs);
  return Math.floor((ttlMs - marginMs - 1) / renewMs) * renewMs;
}

function timing(options: LeaseOptions): { ttlMs: number; renewMs: number; marginMs: number } {
  const ttlMs = effectiveTtlMs(options.ttlMs, options.bucket);
  // Timings given for a longer TTL than the bucket keeps are scaled down with it.
  const scale = ttlMs / options.ttlMs;
  const defaults = defaultTiming(ttlMs);
  const renewMs = options.renewMs !== undefined ? Math.max(1, Math.floor(options.renewMs * scale)) : defaults.renewMs;
  const marginMs = options.safetyMarginMs !== undefined ? Math.floor(options.safetyMarginMs * scale) : defaults.marginMs;
  if (renewMs >= ttlMs - marginMs) {
    throw new RangeError(`lease ${options.key}: renewMs ${renewMs} must be below ttlMs − safetyMarginMs (${ttlMs - marginMs})`);
  }
  return { ttlMs, renewMs, marginMs };
}

export class Lease {
  readonly key: string;
  readonly holder: string;
  /** The create revision, or minEpoch when higher: constant for this tenure; a later tenure of the key has a higher one. */
  readonly epoch: number;
  /** The key's create revision (the epoch, unless a minEpoch above it was claimed). */
  readonly createRevision: number;
  private lastRevision: number;
  private deadlineAt = 0;
  private state: 'held' | 'lost' | 'released' = 'held';
  private renewTimer: TimerHandle | null = null;
  private deadlineTimer: TimerHandle | null = null;
  private inflight: Promise<void> | null = null;
  /** The TTL this tenure counts on: the given one, or the bucket's when shorter (effectiveTtlMs). */
  readonly ttlMs: number;
  private readonly renewMs: number;
  private readonly marginMs: number;
  private readonly log: Logger;

  constructor(private readonly options: LeaseOptions, readonly leaseId: string, revision: number, sentAt: number) {
    this.key = options.key;
    this.holder = options.holder;
    this.epoch = epochOf(revision, options.minEpoch);
    this.createRevision = revision;
    this.lastRevision = revision;
    ({ ttlMs: this.ttlMs, renewMs: this.renewMs, marginMs: this.marginMs } = timing(options));
    this.log = (options.log ?? silentLogger).child({ lease: options.key, epoch: this.epoch });
    this.extend(sentAt);
    const early = Math.min(Math.max(options.firstRenewEarly ?? 0, 0), 0.99);
    if (this.held) this.scheduleRenew(sentAt + Math.round(this.renewMs * (1 - early)));
  }

  get held(): boolean {
    return this.state === 'held';
  }

  /** The revision of the last successful write (what the next renew compares against). */
  get revision(): number {
    return this.lastRevision;
  }

  /** Local time after which this holder no longer trusts the lease. */
  get deadline(): number {
    return this.deadlineAt;
  }

  /**
   * Held and before its deadline by the clock now. After a pause the deadline may have passed
   * while the timer that would end the lease has not fired yet: ask this before acting.
   */
  safelyHeld(): boolean {
    return this.held && monotonicOf(this.options.clock) < this.deadlineAt;
  }

  /** Gives the lease up: deletes the key (revision-guarded) so another holder can take it at once. */
  async release(): Promise<void> {
    if (this.state !== 'held') return;
    this.state = 'released';
    this.clearTimers();
    // A renew in flight would move the revision under our delete's guard.
    await this.inflight;
    try {
      await this.options.bucket.delete(this.key, { revision: this.lastRevision });
    } catch (err) {
      // Conflict: it already changed hands. Unavailable: the TTL frees it. Either way it is not ours.
      this.log.warn({ err }, 'lease release could not delete the key');
    }
  }

  /** Stops renewing without deleting (a crash-like stop): the key expires after the TTL. */
  abandon(): void {
    if (this.state !== 'held') return;
    this.state = 'released';
    this.clearTimers();
  }

  private extend(sentAt: number): void {
    // The server counts the TTL from when it stored the write, which is after we sent it.
    this.deadlineAt = sentAt + this.ttlMs - this.marginMs;
    if (this.deadlineTimer !== null) this.options.clock.clearTimeout(this.deadlineTimer);
    const left = this.deadlineAt - monotonicOf(this.options.clock);
    if (left <= 0) {
      this.deadlineTimer = null;
      this.lose('expired');
      return;
    }
    this.deadlineTimer = this.options.clock.setTimeout(() => this.lose('expired'), left);
  }

  private scheduleRenew(at: number): void {
    const delay = Math.max(0, at - monotonicOf(this.options.clock));
    this.renewTimer = this.options.clock.setTimeout(() => {
      this.renewTimer = null;
      this.inflight = this.renew().finally(() => (this.inflight = null));
    }, delay);
  }

  private async renew(): Promise<void> {
    const sentAt = monotonicOf(this.options.clock);
    const value = encodeLeaseValue({ holder: this.holder, leaseId: this.leaseId, at: this.options.clock.now(), ...minEpochOf(this.options) });
    try {
      const revision = await this.options.bucket.update(this.key, value, this.lastRevision);
      // Kept even when released meanwhile: release() deletes with this revision once we return.
      this.lastRevision = revision;
      if (this.state !== 'held') {
        // We gave up while the renew was in flight; hand the key back instead of blocking it a TTL.
        if (this.state === 'lost') await this.options.bucket.delete(this.key, { revision }).catch(() => undefined);
        return;
      }
      this.extend(sentAt);
    } catch (err) {
      if (this.state !== 'held') return;
      if (err instanceof KvConflict) {
        this.lose('conflict');
        return;
      }
      // Unreachable: keep trying until the deadline timer gives up.
      this.log.warn({ err }, 'lease renew failed; retrying');
    }
    if (this.state === 'held') this.scheduleRenew(sentAt + this.renewMs);
  }

  private lose(reason: LeaseLostReason): void {
    if (this.state !== 'held') return;
    this.state = 'lost';
    this.clearTimers();
    // The holder stopped being allowed to act at the deadline, not when this runs: under CPU
    // starvation the deadline timer fires late, and what was done between is done after the end.
    const overdueMs = Math.max(0, monotonicOf(this.options.clock) - this.deadlineAt);
    this.log.warn({ reason, overdueMs }, 'lease lost');
    this.options.onLost(reason, overdueMs);
  }

  private clearTimers(): void {
    if (this.renewTimer !== null) this.options.clock.clearTimeout(this.renewTimer);
    if (this.deadlineTimer !== null) this.options.clock.clearTimeout(this.deadlineTimer);
    this.renewTimer = null;
    this.deadlineTimer = null;
  }
}
