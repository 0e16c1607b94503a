import type { ActorCell } from './cell.ts';

/** A snapshot of one actor for introspection. */
export interface ActorStats {
  path: string;
  name: string;
  kind: string;
  parent: string | null;
  /** Told but not yet started. */
  mailboxDepth: number;
  highWater: number;
  /** Messages taken from the mailbox and run, crashed ones included. */
  processed: number;
  restarts: number;
  lastError: string | null;
  lastErrorAt: number | null;
  /** A handler is running now. */
  busy: boolean;
  /** Waiting out a backoff before restarting. */
  restarting: boolean;
  /** Messages refused ('reject') or discarded ('drop-oldest') by the mailbox bound. */
  dropped: number;
  startedAt: number;
  summary?: Record<string, unknown>;
}

export interface ListOptions {
  /** Only actors whose path starts with this. */
  prefix?: string;
  /** Call behavior.describe (default true); skip it for a cheap listing of many actors. */
  summary?: boolean;
}

export interface ActorRegistry {
  readonly size: number;
  list(opts?: ListOptions): ActorStats[];
  get(path: string): ActorStats | undefined;
}

type DescribeFailed = (cell: ActorCell, error: unknown) => void;

/** Live actors by path. Entries are the cells themselves; stats are copied out only on request. */
export class CellRegistry implements ActorRegistry {
  private readonly cells = new Map<string, ActorCell>();

  constructor(private readonly describeFailed: DescribeFailed) {}

  get size(): number {
    return this.cells.size;
  }

  has(path: string): boolean {
    return this.cells.has(path);
  }

  cell(path: string): ActorCell | undefined {
    return this.cells.get(path);
  }

  all(): IterableIterator<ActorCell> {
    return this.cells.values();
  }

  add(cell: ActorCell): void {
    this.cells.set(cell.path, cell);
  }

  remove(cell: ActorCell): void {
    if (this.cells.get(cell.path) === cell) this.cells.delete(cell.path);
  }

  get(path: string): ActorStats | undefined {
    const cell = this.cells.get(path);
    return cell === undefined ? undefined : this.stats(cell, true);
  }

  list(opts: ListOptions = {}): ActorStats[] {
    const out: ActorStats[] = [];
    const { prefix, summary = true } = opts;
    for (const cell of this.cells.values()) {
      if (prefix === undefined || cell.path.startsWith(prefix)) out.push(this.stats(cell, summary));
    }
    return out;
  }

  private stats(cell: ActorCell, withSummary: boolean): ActorStats {
    const stats: ActorStats = {
      path: cell.path,
      name: cell.name,
      kind: cell.behavior.kind,
      parent: cell.parent === null ? null : cell.parent.path,
      mailboxDepth: cell.depth,
      highWater: cell.highWater,
      processed: cell.processed,
      restarts: cell.restarts,
      lastError: cell.lastError,
      lastErrorAt: cell.lastErrorAt,
      busy: cell.busy,
      restarting: cell.restart !== null,
      dropped: cell.dropped,
      startedAt: cell.startedAt,
    };
    const describe = cell.behavior.describe;
    if (withSummary && describe !== undefined && cell.state !== undefined) {
      try {
        stats.summary = describe(cell.state);
      } catch (error) {
        this.describeFailed(cell, error);
      }
    }
    return stats;
  }
}
