import type { Clock, KvBucket, KvBucketOptions, KvEntry, KvEvent, KvWatchOptions } from '../ports/index.ts';
import { KvConflict } from '../ports/index.ts';
import { subjectMatches } from './subject-match.ts';

interface Stored {
  readonly value: Uint8Array;
  readonly revision: number;
  readonly at: number;
}

/**
 * JetStream KV semantics in memory, for the embedded mode and for unit tests of the code built on
 * KV (leases, membership, stores): one revision sequence per bucket, CAS create/update/delete,
 * a bucket-wide TTL that expires entries silently (as server 2.9 does: no watch event), and
 * watch events delivered asynchronously, never inside the write that caused them.
 */
export class MemoryKvStore {
  private readonly buckets = new Map<string, MemoryBucket>();

  constructor(private readonly clock: Pick<Clock, 'now'> = { now: () => Date.now() }) {}

  /** Writes (puts and deletes) each bucket has taken so far: its last revision. For benches. */
  revisions(): Record<string, number> {
    return Object.fromEntries([...this.buckets].map(([name, b]) => [name, b.revision]));
  }

  bucket(name: string, options: KvBucketOptions = {}): KvBucket {
    let b = this.buckets.get(name);
    if (!b) {
      b = new MemoryBucket(name, options.ttlMs ?? 0, this.clock);
      this.buckets.set(name, b);
    }
    return b;
  }
}

interface Watcher {
  readonly pattern: string;
  readonly onEvent: (e: KvEvent) => void;
}

class MemoryBucket implements KvBucket {
  private readonly entries = new Map<string, Stored>();
  private readonly watchers = new Set<Watcher>();
  private seq = 0;

  constructor(readonly name: string, private readonly ttlMs: number, private readonly clock: Pick<Clock, 'now'>) {}

  get revision(): number {
    return this.seq;
  }

  async get(key: string): Promise<KvEntry | null> {
    const e = this.live(key);
    return e ? { key, value: e.value, revision: e.revision } : null;
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    if (this.live(key)) throw new KvConflict(this.name, key, 'key exists');
    return this.write(key, value);
  }

  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    const e = this.live(key);
    if (!e || e.revision !== revision) throw new KvConflict(this.name, key, `wrong last revision: expected ${revision}, is ${e?.revision ?? 'absent'}`);
    return this.write(key, value);
  }

  async put(key: string, value: Uint8Array): Promise<number> {
    return this.write(key, value);
  }

  async delete(key: string, options: { revision?: number } = {}): Promise<void> {
    const e = this.live(key);
    if (options.revision !== undefined && e?.revision !== options.revision) {
      throw new KvConflict(this.name, key, `wrong last revision: expected ${options.revision}, is ${e?.revision ?? 'absent'}`);
    }
    this.entries.delete(key);
    const revision = ++this.seq;
    this.emit({ op: 'delete', key, revision });
  }

  async keys(pattern = '>'): Promise<string[]> {
    return [...this.entries.keys()].filter((k) => this.live(k) && subjectMatches(pattern, k));
  }

  async watch(options: KvWatchOptions): Promise<() => void> {
    const watcher: Watcher = { pattern: options.key ?? '>', onEvent: options.onEvent };
    const snapshot = [...this.entries].filter(([k]) => this.live(k) && subjectMatches(watcher.pattern, k));
    this.watchers.add(watcher);
    queueMicrotask(() => {
      for (const [key, e] of snapshot) options.onEvent({ op: 'put', key, value: e.value, revision: e.revision });
      options.onReady?.();
    });
    return () => {
      this.watchers.delete(watcher);
    };
  }

  private live(key: string): Stored | undefined {
    const e = this.entries.get(key);
    if (e && this.ttlMs > 0 && this.clock.now() - e.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private write(key: string, value: Uint8Array): number {
    const revision = ++this.seq;
    this.entries.set(key, { value, revision, at: this.clock.now() });
    this.emit({ op: 'put', key, value, revision });
    return revision;
  }

  private emit(event: KvEvent): void {
    for (const w of this.watchers) {
      if (!subjectMatches(w.pattern, event.key)) continue;
      queueMicrotask(() => {
        if (this.watchers.has(w)) w.onEvent(event);
      });
    }
  }
}
