import type { ClusterRow, HostRow, IntrospectReply, IntrospectRequest } from '../../bus/messages/introspect.ts';
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
  options: StoredOptions,
): Promise<StoredHosts | null> {
  const { conditions: _unused, ...filters } = request;
  const asked = await askStored(transport, 'hosts', filters, listed, (v) => v.hosts.map((h) => h.shard), owned, shardCount, options);
  return asked ? { from: asked.from, hosts: asked.value.hosts } : null;
}

/** MaasClusters of shards that no answering node holds, as an answering node's store last had them. */
export interface StoredClusters {
  readonly from: string;
  readonly clusters: readonly ClusterRow[];
}

/** As storedHosts, for the MaasClusters (with their MaasMachines) of those shards. */
export async function storedClusters(
  transport: Transport,
  listed: Listed<IntrospectReply<'clusters'>>,
  owned: Listed<IntrospectReply<'shards'>> | null,
  shardCount: number | undefined,
  options: StoredOptions,
): Promise<StoredClusters | null> {
  const asked = await askStored(transport, 'clusters', {}, listed, (v) => v.clusters.map((c) => c.shard), owned, shardCount, options);
  return asked ? { from: asked.from, clusters: asked.value.clusters } : null;
}

interface StoredOptions {
  readonly timeoutMs: number;
  readonly nodes?: readonly string[] | undefined;
}

// The verb asked again of the first answering node (by name), for the shards none of them holds.
async function askStored<V extends 'hosts' | 'clusters'>(
  transport: Transport,
  verb: V,
  request: Omit<IntrospectRequest<V>, 'storedShards'>,
  listed: Listed<IntrospectReply<V>>,
  shardsOf: (value: IntrospectReply<V>) => readonly number[],
  owned: Listed<IntrospectReply<'shards'>> | null,
  shardCount: number | undefined,
  options: StoredOptions,
): Promise<{ from: string; value: IntrospectReply<V> } | null> {
  if ((options.nodes && options.nodes.length > 0) || shardCount === undefined || owned === null) return null;
  const from = listed.replies.map((r) => r.node).sort()[0];
  if (from === undefined) return null;
  const storedShards = unheldShards(listed, shardsOf, owned, shardCount);
  if (storedShards.length === 0) return null;
  const asked = await gather(transport, verb, { ...request, storedShards } as IntrospectRequest<V>, { timeoutMs: options.timeoutMs, nodes: [from] });
  const reply = asked.replies[0];
  return reply ? { from, value: reply.value } : null;
}
