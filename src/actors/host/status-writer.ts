import type { BareMetalHostStatus } from '../../api/index.ts';
import type { Fence, HostStore, Logger } from '../../ports/index.ts';
import { StaleFence } from '../../ports/index.ts';

// At most one status write in flight per host; a burst of steps collapses into one write of the
// newest status, so a slow store costs requests per host, not per step.
export class StatusWriter {
  private pending: BareMetalHostStatus | null = null;
  private writing = false;
  private quiet: Array<() => void> = [];
  writes = 0;

  // With a fence (cluster mode) every write carries the shard lease's epoch, so the store can
  // refuse it once a newer owner has written.
  constructor(private readonly key: string, private readonly store: HostStore, private readonly log: Logger, private readonly fence?: Fence) {}

  write(status: BareMetalHostStatus): void {
    this.pending = status;
    if (!this.writing) void this.flush();
  }

  get idle(): boolean {
    return !this.writing && this.pending === null;
  }

  /** Resolves once nothing is pending or being written. */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.quiet.push(resolve));
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending !== null) {
      const status = this.pending;
      this.pending = null;
      try {
        await (this.fence ? this.store.writeStatus(this.key, status, this.fence) : this.store.writeStatus(this.key, status));
        this.writes += 1;
      } catch (err) {
        // A refused fence means this node lost the shard: the new owner's status stands.
        if (err instanceof StaleFence) this.log.warn({ host: this.key, epoch: this.fence?.epoch, err: err.message }, 'status write refused: shard moved');
        else this.log.warn({ host: this.key, err: describe(err) }, 'status write failed');
      }
    }
    this.writing = false;
    const waiting = this.quiet;
    this.quiet = [];
    for (const resolve of waiting) resolve();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
