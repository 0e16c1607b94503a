import { headers } from '@nats-io/nats-core';
import { Bucket } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import { KvConflict, KvUnavailable } from '../ports/index.ts';
import type { RequestMux } from './request-mux.ts';

// A KV compare-and-set write (update: the key's last revision must be `revision`) sent as the
// client's kv.update sends it, a publish to the key's subject with the expected-sequence header,
// but over the connection's request mux (request-mux.ts), so a write costs no Error object.
// The subject is the client's own (subjectForKey), so a bucket's prefixes are honoured as there.

/** JetStream's "wrong last sequence": the compare-and-set lost (reference/runtime.md §2.2). */
export const WRONG_LAST_SEQUENCE = 10071;
/** The client's default JetStream request timeout, which kv.update waits for too. */
const PUBLISH_TIMEOUT_MS = 5_000;
const EXPECTED_LAST_SUBJECT_SEQUENCE = 'Nats-Expected-Last-Subject-Sequence';

export type KvUpdate = (key: string, value: Uint8Array, revision: number) => Promise<number>;

interface PubAck {
  readonly seq?: unknown;
  readonly error?: { readonly code?: number; readonly err_code?: number; readonly description?: string };
}

/** null when `kv` is not the client's own Bucket (a stand-in in tests): then kv.update is used. */
export function kvUpdateOver(bucket: string, kv: KV, mux: RequestMux): KvUpdate | null {
  if (!(kv instanceof Bucket)) return null;
  const decoder = new TextDecoder();
  return async (key, value, revision) => {
    const encoded = kv.encodeKey(key);
    kv.validateKey(encoded);
    const h = headers();
    h.set(EXPECTED_LAST_SUBJECT_SEQUENCE, String(revision));
    const reply = await mux.request(kv.subjectForKey(encoded, true), value, { timeoutMs: PUBLISH_TIMEOUT_MS, headers: h });
    let ack: PubAck;
    try {
      ack = JSON.parse(decoder.decode(reply.data)) as PubAck;
    } catch {
      throw new KvUnavailable(bucket, `${key}: the write's acknowledgement is not JSON`);
    }
    if (ack.error) {
      if (ack.error.err_code === WRONG_LAST_SEQUENCE) throw new KvConflict(bucket, key, 'revision changed (compare-and-set lost)');
      throw new KvUnavailable(bucket, `${key}: ${ack.error.description ?? `JetStream error ${ack.error.err_code ?? ack.error.code ?? '?'}`}`);
    }
    if (typeof ack.seq !== 'number') throw new KvUnavailable(bucket, `${key}: the write's acknowledgement has no sequence`);
    return ack.seq;
  };
}
