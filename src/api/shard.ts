import { fnv1a32 } from './hash.ts';

// In api, not actors: clients compute `mf.cmd.<shard>` with it from metalfleet/api, and every layer may import api.
// shard = FNV-1a(namespace/name) mod S. FNV is stable across processes and versions, which is all
// the mapping needs; S is fixed for the life of a cluster (default 256).
export function shardOf(key: string, shardCount: number): number {
  return fnv1a32(key) % shardCount;
}
