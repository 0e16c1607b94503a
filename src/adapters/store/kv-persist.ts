import type { KvBucket } from '../../ports/index.ts';
import { snapshotEntry, stopIfAborted, writeSnapshotFile } from './kv-snapshot-file.ts';

// `--persist FILE` while the demo runs: the host buckets saved a moment after they change. Each
// save used to read and encode every entry of every bucket again: at 10,000 hosts (60,000 entries,
// a 77 MB file, a save a second) that was 42% of the demo's CPU, and the run took twice as long.
// Now each bucket keeps its entries as the file writes them, and a save reads and encodes only the
// keys that changed since the last one; and a save that still takes long (a big file, a slow disk)
// spaces the next ones out, so saving never takes more than a fifth of the time.

/** The next save waits at least this many times as long as the last one took. */
export const SAVE_SPACING = 4;

/** How long after a change the next save starts: the quiet time, or longer after a slow save. */
export function nextSaveDelayMs(debounceMs: number, lastSaveMs: number): number {
  return Math.max(debounceMs, Math.ceil(SAVE_SPACING * lastSaveMs));
}

/** One bucket as the file holds it, brought up to date with the keys that changed. */
class BucketImage {
  private readonly entries = new Map<string, Uint8Array>();
  private readonly changed = new Set<string>();
  private order: string[] | null = null;

  constructor(readonly bucket: KvBucket) {}

  markChanged(key: string): void {
    this.changed.add(key);
  }

  /**
   * Reads the changed keys. Each is marked clean before its read, so a change during the read
   * marks it again; the keys a failed or abandoned save did not reach stay marked.
   */
  private async refresh(path: string, signal: AbortSignal): Promise<void> {
    const keys = [...this.changed];
    this.changed.clear();
    let done = 0;
    try {
      for (const key of keys) {
        const entry = await this.bucket.get(key);
        done += 1;
        if (entry === null) {
          if (this.entries.delete(key)) this.order = null;
        } else {
          if (!this.entries.has(key)) this.order = null;
          this.entries.set(key, Buffer.from(snapshotEntry(key, entry.value), 'utf8'));
        }
        stopIfAborted(signal, path);
      }
    } finally {
      for (const key of keys.slice(done)) this.changed.add(key);
    }
  }

  /** The bucket's entries in key order, read as the file is written (its temporary file open). */
  async *lines(path: string, signal: AbortSignal): AsyncIterable<Uint8Array> {
    await this.refresh(path, signal);
    this.order ??= [...this.entries.keys()].sort();
    for (const key of this.order) {
      const line = this.entries.get(key);
      if (line !== undefined) yield line;
    }
  }
}

export interface KvPersist {
  /** Saves now (after a save in progress). */
  flush(): Promise<void>;
  /** Stops watching and saves what changed; nothing is saved after it. */
  close(): Promise<void>;
  /**
   * For Ctrl-C: abandons a save in progress, resolving once its temporary file is removed, with
   * whether there was one; nothing is saved after it, so the file stays the last complete save.
   */
  abort(): Promise<boolean>;
}

/**
 * Saves the buckets a moment after they change (and on flush), one write at a time, so a demo
 * stopped with Ctrl-C keeps nearly everything it did.
 */
export async function persistKv(path: string, buckets: readonly KvBucket[], options: { debounceMs?: number; onError?: (err: unknown) => void; now?: () => number } = {}): Promise<KvPersist> {
  const debounceMs = options.debounceMs ?? 1_000;
  const now = options.now ?? (() => performance.now());
  const stopped = new AbortController();
  const images = buckets.map((bucket) => new BucketImage(bucket));
  let dirty = false;
  let lastSaveMs = 0;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  const save = async (): Promise<void> => {
    const started = now();
    await writeSnapshotFile(path, images.map((image) => ({ bucket: image.bucket.name, entries: image.lines(path, stopped.signal) })), stopped.signal);
    lastSaveMs = now() - started;
  };
  const write = async (): Promise<void> => {
    while (writing) await writing;
    if (!dirty || stopped.signal.aborted) return;
    dirty = false;
    writing = save().finally(() => {
      writing = null;
    });
    await writing;
  };
  const arm = (): void => {
    dirty = true;
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      write().catch((err: unknown) => {
        if (!stopped.signal.aborted) options.onError?.(err);
      });
    }, nextSaveDelayMs(debounceMs, lastSaveMs));
  };
  let ready = false;
  // The watch tells every key's current value first: each is read on the first save.
  const unwatch = await Promise.all(images.map((image) => image.bucket.watch({ onEvent: (event) => {
    image.markChanged(event.key);
    if (ready) arm();
  } })));
  ready = true;
  const stop = (): void => {
    for (const end of unwatch.splice(0)) end();
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  return {
    async flush() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      dirty = true;
      await write();
    },
    async close() {
      stop();
      dirty = true;
      await write();
    },
    async abort() {
      stop();
      const inProgress = writing;
      stopped.abort();
      if (inProgress === null) return false;
      await inProgress.catch(() => undefined);
      return true;
    },
  };
}
