import { MetalfleetError } from '../api/index.ts';
import type { KvBucket, KvBucketOptions } from './kv-bucket.ts';

// How nodes and clients reach each other: NATS in a cluster, an in-process bus in the embedded
// mode. Payloads are bytes here; message shapes (zod + msgpackr) live in src/bus/messages.

export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /**
   * The subject the sender asked the reply on, as the server delivered it (NATS only). A client's
   * replies go to its connection's inbox, so this is who sent the message as far as a receiver can
   * know: NATS does not say which user published.
   */
  readonly reply?: string;
  /** False when the sender asked for no reply (a publish) or the connection is gone. */
  respond(data: Uint8Array): boolean;
}

export interface BusSubscription {
  unsubscribe(): void;
  /** Stop taking new messages, let handlers already called finish their replies. */
  drain(): Promise<void>;
}

export interface SubscribeOptions {
  /** Members of one queue group share the messages (one of them gets each). */
  readonly queue?: string;
}

// stalled: connected, but the server did not answer a ping in time (paused or wedged, its socket
// open); nothing sent will be answered until the client hears from it again.
export type BusStatus = 'connected' | 'stalled' | 'disconnected' | 'reconnecting' | 'closed';

export interface Transport {
  readonly name: string;
  request(subject: string, data: Uint8Array, options: { timeoutMs: number }): Promise<Uint8Array>;
  publish(subject: string, data: Uint8Array): void;
  subscribe(subject: string, handler: (msg: BusMessage) => void, options?: SubscribeOptions): BusSubscription;
  kv(bucket: string, options?: KvBucketOptions): Promise<KvBucket>;
  /** Largest payload the server takes (bytes). */
  readonly maxPayload: number;
  /** A new subject under this connection's own inbox prefix: the only inbox its user may subscribe to. */
  newInbox(): string;
  onStatus(listener: (status: BusStatus) => void): () => void;
  /**
   * Why this connection's view of its KV buckets is stale for good: a bucket's stream was made
   * anew by the server since it was opened (bus/kv-stream-identity.ts). Null while all is well;
   * absent on a bus whose KV cannot be lost apart from the process (the memory bus).
   */
  kvReplaced?(): string | null;
  /** kvReplaced's check run now (it runs on every reconnect, and on a cluster on a period too): the reason, or null. */
  checkKv?(): Promise<string | null>;
  /** The cluster of the server this connection is on, as it says (NATS INFO); null for a lone server; absent on the memory bus. */
  readonly serverCluster?: { readonly name: string; readonly servers: number } | null;
  /**
   * Whether the server answers a ping within `withinMs`. One that does not leaves the transport
   * `stalled` (listeners hear it), so nothing after waits on its answers: drains and close skip them.
   */
  answers(withinMs: number): Promise<boolean>;
  /** Flush what is pending and close. */
  close(): Promise<void>;
}

// forbidden: the server's permissions refuse this user the subject; trying again cannot help.
export type BusErrorKind = 'noResponders' | 'timeout' | 'closed' | 'invalidMessage' | 'tooLarge' | 'forbidden' | 'unavailable';

/** A failure of the bus itself; `retryable` says whether trying again can help. */
export class BusError extends MetalfleetError {
  constructor(readonly kind: BusErrorKind, readonly subject: string, detail: string, options?: ErrorOptions) {
    super(kind, `${subject}: ${detail}`, kind === 'noResponders' || kind === 'timeout' || kind === 'unavailable', undefined, options);
    this.name = 'BusError';
  }
}
