// Which nonces were used, cluster-wide: a request replayed to another node of the queue group
// must be refused as surely as one replayed to the same node. A KV create is atomic, so exactly
// one node wins each nonce; the bucket's TTL forgets them once their signing time is too old to
// pass the freshness check anyway.
import { KvConflict, type KvBucket, type Transport } from '../ports/index.ts';

export const NONCE_BUCKET = 'mf-nonces';

export interface NonceLedger {
  /** True the first time (signer, nonce) is seen; false for a replay. Throws when the ledger is unreachable (retryable). */
  claim(signer: string, nonce: string): Promise<boolean>;
}

/** How long a nonce must be kept: a request signed `windowMs` in the future is fresh for another 2 × windowMs. */
export function nonceTtlMs(windowMs: number): number {
  return 2 * windowMs + 60_000;
}

export function kvNonceLedger(bucket: KvBucket): NonceLedger {
  return {
    async claim(signer, nonce) {
      try {
        await bucket.create(`${signer}.${nonce}`, new Uint8Array(0));
        return true;
      } catch (error) {
        if (error instanceof KvConflict) return false;
        throw error;
      }
    },
  };
}

export async function openNonceLedger(transport: Transport, windowMs: number, replicas?: number): Promise<NonceLedger> {
  return kvNonceLedger(await transport.kv(NONCE_BUCKET, { ttlMs: nonceTtlMs(windowMs), history: 1, ...(replicas && replicas > 1 ? { replicas } : {}) }));
}
