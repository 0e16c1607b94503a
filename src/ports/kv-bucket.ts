import { MetalfleetError } from '../api/index.ts';
// A key-value bucket with compare-and-set, as JetStream KV offers it. Leases, membership, the
// NATS host store and persisted capacity grants are written against this, never against the NATS
// client, so their logic runs the same on the in-memory bucket in unit tests.

export interface KvEntry {
  readonly key: string;
  readonly value: Uint8Array;
  /** The write's sequence in the bucket: it only grows, across all keys (a lease epoch). */
  readonly revision: number;
}

export type KvEvent =
  | { readonly op: 'put'; readonly key: string; readonly value: Uint8Array; readonly revision: number }
  | { readonly op: 'delete'; readonly key: string; readonly revision: number };

export interface KvWatchOptions {
  /** A key or a NATS-style pattern (`shard.*`, `hosts.>`); default every key. */
  readonly key?: string;
  /** Called for the current value of each key first, then for every change. */
  readonly onEvent: (event: KvEvent) => void;
  /** Called once the current values have all been delivered. */
  readonly onReady?: () => void;
}

export interface KvBucket {
  readonly name: string;
  /**
   * The TTL the bucket really has (0: none), which may differ from the one asked for when an
   * earlier opener created it. Absent where unknown (a wrapper that does not pass it on).
   */
  readonly ttlMs?: number;
  get(key: string): Promise<KvEntry | null>;
  /** Only if the key is absent (or deleted); throws KvConflict otherwise. Returns the revision. */
  create(key: string, value: Uint8Array): Promise<number>;
  /** Only if the key's revision is still `revision`; throws KvConflict otherwise. */
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
  put(key: string, value: Uint8Array): Promise<number>;
  /** With `revision`, only if the key is still at that revision (KvConflict otherwise). */
  delete(key: string, options?: { revision?: number }): Promise<void>;
  keys(pattern?: string): Promise<string[]>;
  /** Resolves once the watch is in place; call the returned function to stop it. */
  watch(options: KvWatchOptions): Promise<() => void>;
}

export interface KvBucketOptions {
  /** Entries older than this vanish (a bucket-wide TTL: server 2.9 has no per-key TTL). */
  readonly ttlMs?: number;
  readonly history?: number;
  /** Replicas on a clustered server; production sets 3 explicitly (reference/peers.md B4). */
  readonly replicas?: number;
}

/** A compare-and-set lost: someone else wrote the key first. Retry after re-reading. */
export class KvConflict extends MetalfleetError {
  constructor(readonly bucket: string, readonly key: string, detail: string) {
    super('kvConflict', `kv ${bucket}/${key}: ${detail}`, true);
    this.name = 'KvConflict';
  }
}

/** The bucket could not be reached (disconnected, timeout, server error). */
export class KvUnavailable extends MetalfleetError {
  constructor(readonly bucket: string, detail: string, options?: ErrorOptions) {
    super('kvUnavailable', `kv ${bucket}: ${detail}`, true, undefined, options);
    this.name = 'KvUnavailable';
  }
}
