import { createMemoryBus } from '../bus/index.ts';
import type { MemoryKvStore } from '../bus/index.ts';
import type { Transport } from '../ports/index.ts';

/**
 * What a node runs on: a transport for requests and KV buckets. NATS for a cluster; for the
 * embedded default, the in-memory bus and KV of one process. The node is the same on both.
 */
export interface Substrate {
  readonly transport: Transport;
  /**
   * False on a private bus no other node can join: the node then need not wait a heartbeat round
   * for peers before it takes its shards.
   */
  readonly shared: boolean;
  /** The in-memory KV behind a memory substrate (snapshots for --persist), else null. */
  readonly memoryKv: MemoryKvStore | null;
}

/** One process's private bus and KV: a one-node cluster, the embedded default. */
export function memorySubstrate(options: { readonly kv?: MemoryKvStore; readonly onHandlerError?: (error: unknown, subject: string) => void } = {}): Substrate {
  const bus = createMemoryBus({ ...(options.kv ? { kv: options.kv } : {}), ...(options.onHandlerError ? { onHandlerError: options.onHandlerError } : {}) });
  return { transport: bus.connect('node'), shared: false, memoryKv: bus.kv };
}

/** A shared bus (NATS) other nodes join. */
export function sharedSubstrate(transport: Transport): Substrate {
  return { transport, shared: true, memoryKv: null };
}
