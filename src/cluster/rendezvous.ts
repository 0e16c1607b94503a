import { fmix32, fnv1a32 } from '../api/index.ts';
// Highest-random-weight (rendezvous) hashing: every node computes the same owner of a shard from
// the same member list, with no coordinator, and a join or leave moves only the shards the
// changed node wins or held (about 1/N of them).

/** The node with the highest weight for this shard; undefined when there are no nodes. */
export function ownerOf(shard: number, nodes: readonly string[]): string | undefined {
  const s = fmix32((shard + 0x9e3779b9) | 0);
  let best: string | undefined;
  let bestWeight = -1;
  for (const node of nodes) {
    const w = weight(nodeHash(node), s);
    // Ties (rare with 32-bit weights) go to the smaller id so every node agrees.
    if (w > bestWeight || (w === bestWeight && best !== undefined && node < best)) {
      best = node;
      bestWeight = w;
    }
  }
  return best;
}

/** The shards in [0, shardCount) that rendezvous hashing gives to `self` among `nodes`. */
export function desiredShards(self: string, nodes: readonly string[], shardCount: number): Set<number> {
  const out = new Set<number>();
  if (!nodes.includes(self)) return out;
  for (let shard = 0; shard < shardCount; shard++) {
    if (ownerOf(shard, nodes) === self) out.add(shard);
  }
  return out;
}

function weight(node: number, shard: number): number {
  // Two rounds so the weight of one node over consecutive shards is not correlated with another's.
  return fmix32((fmix32(node ^ shard) + node) | 0);
}

const hashes = new Map<string, number>();

function nodeHash(node: string): number {
  let h = hashes.get(node);
  if (h === undefined) {
    h = fmix32(fnv1a32(node));
    if (hashes.size > 10_000) hashes.clear();
    hashes.set(node, h);
  }
  return h;
}
