// The embedded default's host store in tests: the KV store on a memory substrate, and what tests
// need to look past it (its status writes, a record put where admission never saw it).
import { randomUUID } from 'node:crypto';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { hostKeyFromKv, hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { decodeKvRecord } from '../../src/adapters/store/kv-value.ts';
import type { Transport } from '../../src/ports/index.ts';

export interface StatusWrites {
  /** Status writes seen since the counter started, of one host or of all. */
  (key?: string): number;
  stop(): void;
}

/** Counts the status writes that reach the status bucket from now on. */
export async function countStatusWrites(transport: Pick<Transport, 'kv'>): Promise<StatusWrites> {
  const bucket = await transport.kv(NATS_STATUS_BUCKET);
  const byKey = new Map<string, number>();
  let total = 0;
  let ready = false;
  const stop = await bucket.watch({
    onEvent: (event) => {
      if (!ready || event.op !== 'put') return;
      const key = hostKeyFromKv(event.key) ?? event.key;
      byKey.set(key, (byKey.get(key) ?? 0) + 1);
      total += 1;
    },
    onReady: () => {
      ready = true;
    },
  });
  return Object.assign((key?: string) => (key === undefined ? total : byKey.get(key) ?? 0), { stop });
}

/**
 * Puts a host record straight into the hosts bucket, as a writer without the admission rules
 * would (an older node, a hand edit): what the engine must cope with when validation was skipped.
 */
export async function putHostRecord(transport: Pick<Transport, 'kv'>, object: unknown): Promise<void> {
  const host = object as { metadata: { name: string; namespace?: string } };
  const bucket = await transport.kv(NATS_HOSTS_BUCKET);
  const namespace = host.metadata.namespace ?? 'default';
  const record = { ...host, metadata: { uid: randomUUID(), generation: 1, creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), ...host.metadata, namespace } };
  await bucket.put(hostKvKey(`${namespace}/${host.metadata.name}`), new TextEncoder().encode(JSON.stringify(record)));
}

/** A host bucket's value as the store reads it (a msgpackr record, or an older node's JSON). */
export function kvRecord(value: Uint8Array): unknown {
  const decoded = decodeKvRecord(value);
  if (!decoded.ok) throw new Error(`not a KV record: ${decoded.reason}`);
  return decoded.value;
}
