import { errorMessage, nextDelay } from '../../api/index.ts';
import { statusDiffers } from '../../machines/turn.ts';
import type { RetryPolicy } from '../../api/index.ts';
import type { Logger } from '../../ports/index.ts';
import { ObjectGone, StaleFence, StoreError } from '../../ports/index.ts';
import type { Clock, TimerHandle } from '../runtime/index.ts';

/** The one backoff of every kind's status writes (issue 29.6: one RetryPolicy, named once). */
export const STATUS_WRITE_RETRY: RetryPolicy = { initialMs: 200, maxMs: 10_000, factor: 2, jitter: 'none' };

/** What a kind gives the writer: how to write its status, and how its log lines name the object. */
export interface StatusWriterTarget<T> {
  /** The object's key, for log lines. */
  readonly key: string;
  /** The log field that names the object: `host`, `maasMachine`, `maasCluster`. */
  readonly logField: string;
  /** Writes the status to the store, carrying the shard's fence when there is one. */
  readonly write: (status: T) => Promise<void>;
  /** The fence's epoch, logged when the store refuses a write because the shard moved. */
  readonly epoch?: number;
  readonly log: Logger;
  readonly clock: Clock;
}

// The one "dirty" rule (BMO's `Dirty()`), the Turns': here asked of what the store holds.
export { statusDiffers };

// At most one status write per turn and one in flight per object, for every kind: a burst of
// steps collapses into one write of the newest status, so a slow store costs requests per object,
// not per step. A write the store could not take for now (NATS restarting, a timeout) is tried
// again with backoff until it lands or a newer status replaces it: status is the durable truth a
// new owner resumes from, so a failed write must not wait for the status to change again.
export class StatusWriter<T> {
  private pending: T | null = null;
  /** What the store holds as far as this writer knows (undefined: not known, so any status is written). */
  private stored: T | undefined = undefined;
  /** A turn is under way: what it staged waits for its end, even when a write lands meanwhile. */
  private held = false;
  private writing = false;
  private closed = false;
  /** Failed writes since the last one that landed: the attempt number of the retry they schedule. */
  private failures = 0;
  private retryTimer: TimerHandle | null = null;
  private quiet: Array<() => void> = [];
  writes = 0;

  constructor(private readonly target: StatusWriterTarget<T>) {}

  write(status: T): void {
    this.stage(status);
    this.endTurn();
  }

  /**
   * Takes the newest status of a step without writing it yet: the steps of one turn write once,
   * at endTurn, however many of them changed status (issue 29.5).
   */
  stage(status: T): void {
    if (this.closed) return;
    this.pending = status;
    this.held = true;
  }

  /** The status the store was just read holding: a staged status equal to it is not written. */
  storedIs(status: T | undefined): void {
    this.stored = status;
  }

  /** Writes what the turn staged, unless a write is in flight or waiting to retry: it takes it then. */
  endTurn(): void {
    this.held = false;
    if (this.pending !== null && !this.writing && !this.closed) void this.flush();
  }

  /** A status is staged and not yet written (or being written). */
  get staged(): boolean {
    return this.pending !== null;
  }

  get idle(): boolean {
    return !this.writing && this.pending === null;
  }

  /** Resolves once nothing is pending or being written. */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.quiet.push(resolve));
  }

  /** The object's actor stopped: nothing more is written (a new owner writes from now on). */
  close(): void {
    this.closed = true;
    this.pending = null;
    if (this.retryTimer) this.target.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.settle();
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending !== null && !this.held && !this.closed) {
      const status = this.pending;
      this.pending = null;
      if (this.stored !== undefined && !statusDiffers(status, this.stored)) continue;
      if (!(await this.attempt(status))) return;
    }
    this.settle();
  }

  /** One write; false when a retry was scheduled (the writer stays busy until it runs). */
  private async attempt(status: T): Promise<boolean> {
    const { key, logField, log } = this.target;
    try {
      await this.target.write(status);
      this.writes += 1;
      this.failures = 0;
      this.stored = status;
      return true;
    } catch (err) {
      // What the store holds is no longer known: the next status is written whatever it is.
      this.stored = undefined;
      // A refused fence means this node lost the shard: the new owner's status stands.
      if (err instanceof ObjectGone) {
        // Deleted while this write was under way: nothing is left to write to, and no one to tell.
        log.debug({ [logField]: key }, 'status not written: the object is gone');
      } else if (err instanceof StaleFence) {
        log.warn({ [logField]: key, epoch: this.target.epoch, err: err.message }, 'status write refused: shard moved');
      } else if (err instanceof StoreError && !err.retryable) {
        log.warn({ [logField]: key, err: err.message }, 'status write failed');
      } else {
        this.retry(status, err);
        return false;
      }
      return true;
    }
  }

  private retry(status: T, err: unknown): void {
    this.failures += 1;
    const retryInMs = nextDelay(STATUS_WRITE_RETRY, this.failures, Math.random);
    this.target.log.warn({ [this.target.logField]: this.target.key, err: errorMessage(err), retryInMs }, 'status write failed; retrying');
    // A newer status, if one came meanwhile, replaces this one.
    this.pending ??= status;
    this.retryTimer = this.target.clock.setTimeout(() => {
      this.retryTimer = null;
      void this.flush();
    }, retryInMs);
  }

  private settle(): void {
    this.writing = false;
    const waiting = this.quiet;
    this.quiet = [];
    for (const resolve of waiting) resolve();
  }
}
