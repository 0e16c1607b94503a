import type { HostRow, IntrospectReply, IntrospectRequest } from '../../bus/messages/introspect.ts';
import type { Transport } from '../../ports/index.ts';
import { gather } from './client.ts';

/** What a gather of the nodes came back with (client.ts's Gathered, read only). */
interface Listed<T> {
  readonly replies: ReadonlyArray<{ readonly node: string; readonly value: T }>;
}

/**
 * The shards of the cluster's `shardCount` that no node listed in `listed` holds: neither in its
 * `owned` reply nor as the shard of an object it listed (its node may have given the shard up
 * between the two asks). One reckoning for the stored hosts below and the CLI's ownerless warning.
 */
export function unheldShards<T>(
  listed: Listed<T>,
  shardsOf: (value: T) => readonly number[],
  owned: Listed<{ readonly shards: ReadonlyArray<{ readonly shard: number }> }>,
  shardCount: number,
): number[] {
  const answered = new Set(listed.replies.map((r) => r.node));
  const covered = new Set(owned.replies.filter((r) => answered.has(r.node)).flatMap((r) => r.value.shards.map((s) => s.shard)));
  for (const r of listed.replies) for (const s of shardsOf(r.value)) covered.add(s);
  return Array.from({ length: shardCount }, (_, i) => i).filter((i) => !covered.has(i));
}

/** Hosts of shards that no answering node holds, as an answering node's store last had them. */
export interface StoredHosts {
  /** The node whose store answered. */
  readonly from: string;
  readonly hosts: readonly HostRow[];
}

/**
 * The hosts of the shards no answering node holds: a node killed a moment ago keeps its shard
 * leases until their TTL (answering nothing, and once its heartbeat lapses, not even a member),
 * and a shard moving between nodes is held by neither for a moment. Their hosts vanished from
 * the listing until the shards moved; they are asked of one node that answered, from its store,
 * which sees the whole fleet's writes. Only when the whole cluster was asked (--node leaves
 * nodes out on purpose) and the shard count is known; null when there is nothing to ask or the
 * asked node did not answer.
 */
export async function storedHosts(
  transport: Transport,
  request: IntrospectRequest<'hosts'>,
  listed: Listed<IntrospectReply<'hosts'>>,
  owned: Listed<IntrospectReply<'shards'>> | null,
  shardCount: number | undefined,
  options: { readonly timeoutMs: number; readonly nodes?: readonly string[] | undefined },
): Promise<StoredHosts | null> {
  if ((options.nodes && options.nodes.length > 0) || shardCount === undefined || owned === null) return null;
  const from = listed.replies.map((r) => r.node).sort()[0];
  if (from === undefined) return null;
  const storedShards = unheldShards(listed, (v) => v.hosts.map((h) => h.shard), owned, shardCount);
  if (storedShards.length === 0) return null;
  const { conditions: _unused, ...filters } = request;
  const asked = await gather(transport, 'hosts', { ...filters, storedShards }, { timeoutMs: options.timeoutMs, nodes: [from] });
  const reply = asked.replies[0];
  return reply ? { from, hosts: reply.value.hosts } : null;
}
