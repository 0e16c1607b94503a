import { nextDelay, type BareMetalHostStatus, type RetryPolicy, errorMessage } from '../../api/index.ts';
import type { Fence, HostStore, Logger } from '../../ports/index.ts';
import { StaleFence, StoreError } from '../../ports/index.ts';
import type { Clock, TimerHandle } from '../runtime/index.ts';

export const STATUS_WRITE_RETRY: RetryPolicy = { initialMs: 200, maxMs: 10_000, factor: 2, jitter: 'none' };

// At most one status write per turn and one in flight per host; a burst of steps collapses into
// one write of the newest status, so a slow store costs requests per host, not per step. A write
// the store could not take for now (NATS restarting, a timeout) is tried again with backoff until
// it lands or a newer status replaces it: status is the durable truth a new owner resumes from.
export class StatusWriter {
  private pending: BareMetalHostStatus | null = null;
  /** A turn is under way: what it staged waits for its end, even when a write lands meanwhile. */
  private held = false;
  private writing = false;
  private closed = false;
  /** Failed writes since the last one that landed: the attempt number of the retry they schedule. */
  private failures = 0;
  private retryTimer: TimerHandle | null = null;
  private quiet: Array<() => void> = [];
  writes = 0;

  // With a fence (cluster mode) every write carries the shard lease's epoch, so the store can
  // refuse it once a newer owner has written.
  constructor(
    private readonly key: string,
    private readonly store: HostStore,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly fence?: Fence,
  ) {}

  write(status: BareMetalHostStatus): void {
    this.stage(status);
    this.endTurn();
  }

  /**
   * Takes the newest status of a step without writing it yet: the steps of one turn write once,
   * at endTurn, however many of them changed status (issue 29.5).
   */
  stage(status: BareMetalHostStatus): void {
    if (this.closed) return;
    this.pending = status;
    this.held = true;
  }

  /** Writes what the turn staged, unless a write is in flight or waiting to retry: it takes it then. */
  endTurn(): void {
    this.held = false;
    if (this.pending !== null && !this.writing && !this.closed) void this.flush();
  }

  get idle(): boolean {
    return !this.writing && this.pending === null;
  }

  /** Resolves once nothing is pending or being written. */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.quiet.push(resolve));
  }

  /** The host stopped: nothing more is written (a new owner writes from now on). */
  close(): void {
    this.closed = true;
    this.pending = null;
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.settle();
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending !== null && !this.held && !this.closed) {
      const status = this.pending;
      this.pending = null;
      try {
        await (this.fence ? this.store.writeStatus(this.key, status, this.fence) : this.store.writeStatus(this.key, status));
        this.writes += 1;
        this.failures = 0;
      } catch (err) {
        // A refused fence means this node lost the shard: the new owner's status stands.
        if (err instanceof StaleFence) {
          this.log.warn({ host: this.key, epoch: this.fence?.epoch, err: err.message }, 'status write refused: shard moved');
        } else if (err instanceof StoreError && !err.retryable) {
          this.log.warn({ host: this.key, err: err.message }, 'status write failed');
        } else {
          this.failures += 1;
          const retryInMs = nextDelay(STATUS_WRITE_RETRY, this.failures, Math.random);
          this.log.warn({ host: this.key, err: describe(err), retryInMs }, 'status write failed; retrying');
          // A newer status, if one came meanwhile, replaces this one.
          this.pending ??= status;
          this.retryTimer = this.clock.setTimeout(() => {
            this.retryTimer = null;
            void this.flush();
          }, retryInMs);
          return;
        }
      }
    }
    this.settle();
  }

  private settle(): void {
    this.writing = false;
    const waiting = this.quiet;
    this.quiet = [];
    for (const resolve of waiting) resolve();
  }
}

function describe(err: unknown): string {
  return errorMessage(err);
}
