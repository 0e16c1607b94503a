import { jetstream, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import type { KvBucket, KvBucketOptions, KvEntry, KvWatchOptions } from '../ports/index.ts';
import { KvConflict, KvUnavailable } from '../ports/index.ts';

// JetStream's "wrong last sequence": the compare-and-set lost (reference/runtime.md §2.2).
const WRONG_LAST_SEQUENCE = 10071;

/**
 * How long a key listing may take. The client ends one when the last key says nothing is pending
 * or at the consumer's idle heartbeat; should neither come (a consumer lost under load), the
 * caller gets KvUnavailable instead of waiting for ever.
 */
export const KEYS_DEADLINE_MS = 15_000;

/** Opens (creating when absent) a JetStream KV bucket behind the KvBucket port. */
export async function openNatsKv(nc: NatsConnection, bucket: string, options: KvBucketOptions = {}): Promise<KvBucket> {
  const kvm = new Kvm(jetstream(nc));
  let kv: KV;
  try {
    kv = await kvm.create(bucket, {
      history: options.history ?? 1,
      ...(options.ttlMs ? { ttl: options.ttlMs } : {}),
      ...(options.replicas ? { replicas: options.replicas } : {}),
    });
  } catch (err) {
    // Made earlier with other settings (say by an older node): use it as it is.
    try {
      kv = await kvm.open(bucket);
    } catch {
      throw new KvUnavailable(bucket, `cannot open or create the bucket: ${message(err)}`, { cause: err });
    }
  }
  return new NatsBucket(bucket, kv);
}

/** The port over an opened KV; exported for tests that drive it with a stand-in. */
export class NatsBucket implements KvBucket {
  constructor(readonly name: string, private readonly kv: KV, private readonly keysDeadlineMs = KEYS_DEADLINE_MS) {}

  async get(key: string): Promise<KvEntry | null> {
    const e = await this.guard(key, () => this.kv.get(key));
    if (!e || e.operation !== 'PUT') return null;
    return { key, value: e.value, revision: e.revision };
  }

  create(key: string, value: Uint8Array): Promise<number> {
    return this.guard(key, () => this.kv.create(key, value));
  }

  update(key: string, value: Uint8Array, revision: number): Promise<number> {
    return this.guard(key, () => this.kv.update(key, value, revision));
  }

  put(key: string, value: Uint8Array): Promise<number> {
    return this.guard(key, () => this.kv.put(key, value));
  }

  async delete(key: string, options: { revision?: number } = {}): Promise<void> {
    await this.guard(key, () => this.kv.delete(key, options.revision !== undefined ? { previousSeq: options.revision } : {}));
  }

  async keys(pattern = '>'): Promise<string[]> {
    // A key written while the listing runs (a heartbeat) can come twice: the listing is a
    // consumer over the stream, which delivers the new write too. Callers expect each key once.
    const out = new Set<string>();
    const iter = await this.guard(pattern, () => this.kv.keys(pattern));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        iter.stop();
        reject(new KvUnavailable(this.name, `${pattern}: listing the keys did not finish within ${this.keysDeadlineMs} ms; try again`));
      }, this.keysDeadlineMs);
    });
    try {
      await Promise.race([(async () => {
        for await (const k of iter) out.add(k);
      })(), deadline]);
    } finally {
      clearTimeout(timer);
    }
    return [...out];
  }

  async watch(options: KvWatchOptions): Promise<() => void> {
    const pattern = options.key ?? '>';
    const iter = await this.guard(pattern, () => this.kv.watch({ key: pattern }));
    // The iterator's isUpdate is off by one on 2.9 (reference/runtime.md §2.4); an entry with
    // nothing pending behind it means the replay has caught up instead.
    let ready = false;
    const markReady = (): void => {
      if (ready) return;
      ready = true;
      options.onReady?.();
    };
    const existing = await this.keys(pattern);
    if (existing.length === 0) markReady();
    void (async () => {
      try {
        for await (const e of iter) {
          if (e.operation === 'PUT') options.onEvent({ op: 'put', key: e.key, value: e.value, revision: e.revision });
          else options.onEvent({ op: 'delete', key: e.key, revision: e.revision });
          if (!ready && (e.delta ?? 0) === 0) markReady();
        }
      } catch {
        // The connection closed: the watcher ends with it; owners re-watch on reconnect.
      }
    })();
    return () => iter.stop();
  }

  private async guard<T>(key: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE) {
        throw new KvConflict(this.name, key, 'revision changed (compare-and-set lost)');
      }
      throw new KvUnavailable(this.name, `${key}: ${message(err)}`, { cause: err });
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
