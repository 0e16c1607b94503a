// The fleet picture the page draws: one sample of the introspection API (the same verbs
// `metalfleet hosts/nodes/shards/capacity/clusters/top` ask), flattened for the browser. Every field comes
// from introspection replies, which carry no credential (src/bus/messages/introspect.ts).
import { z } from 'zod';
import { announcedShardCount, gather, listNodes, storedClusters, storedHosts } from '../cluster/introspect/index.ts';
import { ClusterRow, HostRow, PoolRow } from '../bus/messages/introspect.ts';
import type { Transport } from '../ports/index.ts';
import { countStates } from './state-order.ts';

export const NodeLine = z.object({
  node: z.string(),
  hosts: z.number(),
  shards: z.number(),
  broker: z.boolean(),
  uptimeMs: z.number(),
  rssBytes: z.number(),
  eventLoopLagMs: z.number(),
  /** Since the node's last heartbeat; null when the node answered but has no membership entry (embedded). */
  lastSeenMs: z.number().nullable(),
});
export type NodeLine = z.infer<typeof NodeLine>;

export const ShardCell = z.object({ shard: z.number(), node: z.string(), epoch: z.number(), hosts: z.number(), leaseAgeMs: z.number() });
export type ShardCell = z.infer<typeof ShardCell>;

export const FleetPicture = z.object({
  at: z.number(),
  hostsTotal: z.number(),
  /** Hosts per state, in lifecycle order. */
  states: z.array(z.tuple([z.string(), z.number()])),
  provisioned: z.number(),
  /** Hosts per second reaching provisioned over the last `throughputWindowMs`. */
  throughput: z.number(),
  errors: z.number(),
  pools: z.array(PoolRow.extend({ node: z.string() })),
  nodes: z.array(NodeLine),
  shards: z.array(ShardCell),
  /** Node running the capacity broker, or null when no answering node holds it. */
  broker: z.string().nullable(),
  /** Nodes listed as members that did not answer in time. */
  missing: z.array(z.string()),
  problems: z.array(z.string()),
  hosts: z.array(HostRow.extend({ node: z.string() })),
  /** MaasClusters by key, each from the node owning its shard. */
  clusters: z.array(ClusterRow.extend({ node: z.string() })),
  /** Hosts per state over time, the oldest first (the stacked bar). */
  history: z.array(z.object({ at: z.number(), states: z.record(z.string(), z.number()) })),
});
export type FleetPicture = z.infer<typeof FleetPicture>;

export interface SampleOptions {
  readonly timeoutMs: number;
  /** Ask only these nodes (default: the live members). */
  readonly nodes?: readonly string[];
}

type Sample = Omit<FleetPicture, 'throughput' | 'history'>;

/** One sample of every node, asked at once. */
export async function samplePicture(transport: Transport, options: SampleOptions, now: () => number = Date.now): Promise<Sample> {
  const members = await listNodes(transport);
  const asked = options.nodes && options.nodes.length > 0 ? [...options.nodes] : members.map((m) => m.node);
  const o = { timeoutMs: options.timeoutMs, nodes: asked };
  const [info, hosts, shards, capacity, clusters] = await Promise.all([
    gather(transport, 'info', {}, o),
    gather(transport, 'hosts', {}, o),
    gather(transport, 'shards', {}, o),
    gather(transport, 'capacity', {}, o),
    gather(transport, 'clusters', {}, o),
  ]);
  const all = [info, hosts, shards, capacity, clusters];
  const answered = new Set(all.flatMap((g) => g.replies.map((r) => r.node)));
  const missing = [...new Set(all.flatMap((g) => g.missing))].filter((n) => !answered.has(n)).sort();
  const problems = all.flatMap((g) => g.errors.map((e) => `node ${e.node}: ${e.message}`));
  if (answered.size === 0 && problems.length === 0) problems.push(`no metalfleet node answered within ${options.timeoutMs} ms`);
  const seen = new Map(members.map((m) => [m.node, m.lastSeenMs]));
  // The hosts of shards no answering node holds (a node killed a moment ago keeps its leases
  // until their TTL), as a live node's store last had them, so they do not vanish from the page.
  const stored = await storedHosts(transport, {}, hosts, shards, announcedShardCount(members), { timeoutMs: options.timeoutMs, nodes: options.nodes });
  if (stored && stored.hosts.length > 0) problems.push(`${stored.hosts.length} host(s) on shards no answering node holds are shown as ${stored.from}'s store last had them (node -), not as driven now`);
  // So are the MaasClusters of those shards, with their machines.
  const storedMc = await storedClusters(transport, clusters, shards, announcedShardCount(members), { timeoutMs: options.timeoutMs, nodes: options.nodes });
  if (storedMc && storedMc.clusters.length > 0) problems.push(`${storedMc.clusters.length} MaasCluster(s) on shards no answering node holds are shown as ${storedMc.from}'s store last had them (node -), not as driven now`);
  const hostRows = [
    ...hosts.replies.flatMap((r) => r.value.hosts.map((h) => ({ ...h, node: r.node }))),
    ...(stored?.hosts ?? []).map((h) => ({ ...h, node: '-' })),
  ];
  const states = countStates(hostRows);
  return {
    at: now(),
    hostsTotal: hostRows.length,
    states,
    provisioned: hostRows.filter((h) => h.state === 'provisioned' || h.state === 'Deployed').length,
    errors: hostRows.filter((h) => h.errorType !== '').length,
    pools: capacity.replies.filter((r) => r.value.broker).flatMap((r) => r.value.pools.map((p) => ({ ...p, node: r.node }))),
    nodes: info.replies.map((r) => ({
      node: r.node, hosts: r.value.hosts, shards: r.value.shards, broker: r.value.broker, uptimeMs: r.value.uptimeMs,
      rssBytes: r.value.memory.rss, eventLoopLagMs: r.value.eventLoopLagMs, lastSeenMs: seen.get(r.node) ?? null,
    })),
    shards: shards.replies.flatMap((r) => r.value.shards.map((s) => ({ ...s, node: r.node }))).sort((a, b) => a.shard - b.shard),
    broker: info.replies.find((r) => r.value.broker)?.node ?? null,
    missing,
    problems,
    hosts: hostRows,
    clusters: [
      ...clusters.replies.flatMap((r) => r.value.clusters.map((c) => ({ ...c, node: r.node }))),
      ...(storedMc?.clusters ?? []).map((c) => ({ ...c, node: '-' })),
    ].sort((a, b) => a.key.localeCompare(b.key) || a.node.localeCompare(b.node)),
  };
}
