import type { BareMetalHostStatus } from '../../api/index.ts';
import type { HostStore, Logger } from '../../ports/index.ts';

// At most one status write in flight per host; a burst of steps collapses into one write of the
// newest status, so a slow store costs requests per host, not per step.
export class StatusWriter {
  private pending: BareMetalHostStatus | null = null;
  private writing = false;
  writes = 0;

  constructor(private readonly key: string, private readonly store: HostStore, private readonly log: Logger) {}

  write(status: BareMetalHostStatus): void {
    this.pending = status;
    if (!this.writing) void this.flush();
  }

  get idle(): boolean {
    return !this.writing && this.pending === null;
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending !== null) {
      const status = this.pending;
      this.pending = null;
      try {
        await this.store.writeStatus(this.key, status);
        this.writes += 1;
      } catch (err) {
        this.log.warn({ host: this.key, err: describe(err) }, 'status write failed');
      }
    }
    this.writing = false;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
