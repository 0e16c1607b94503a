// A MaasCluster is answered by the node owning its shard. While a shard moves between nodes (a
// node joining, leaving, or dead past its lease) neither node answers for it: `metalfleet clusters`
// listed fewer clusters and said nothing, as `hosts` once did, so the operator took a cluster for
// deleted. It now names the ownerless shards as `hosts` does; with --node, or when a node did not
// answer (its warning says so), there is nothing to add.
import test from 'ava';
import type { ClusterRow, ShardRow } from '../../src/bus/messages/introspect.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { clustersView, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { MEMBER_BUCKET, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import type { Transport } from '../../src/ports/index.ts';

const cluster = (name: string, shard: number): ClusterRow => ({
  key: `capi/${name}`, cluster: name, shard, phase: 'active', ready: true, failureDomains: [], dnsName: `${name}.maas`, addresses: ['10.0.0.1'],
  addressesSeenMs: 1_000, machines: [], conditions: [], lastError: null, waiting: null,
});
const shard = (n: number): ShardRow => ({ shard: n, epoch: n + 1, hosts: 1, leaseAgeMs: 1_000 });

/**
 * Nodes owning the given shards (a cluster in each); null: a member that does not answer. Asked
 * for stored shards, a node answers as every node's store would (one cluster a shard), or with
 * `storeAnswers` false, fails as a store that cannot be read.
 */
async function nodes(t: { teardown(f: () => Promise<unknown>): void }, owned: Record<string, readonly number[] | null>, announced: string, storeAnswers = false): Promise<Transport> {
  const bus = createMemoryBus();
  const client = bus.connect('cli');
  const members = await client.kv(MEMBER_BUCKET);
  const services = Object.entries(owned).flatMap(([node, shards]) => (shards === null ? [] : [serveIntrospection(bus.connect(node), {
    clusters: async (storedShards?: readonly number[]) => {
      if (!storedShards) return shards.map((s) => cluster(`${node}-${s}`, s));
      if (!storeAnswers) throw new Error('the store is not readable');
      return storedShards.map((s) => ({ ...cluster(`stored-${s}`, s), phase: 'stored', stored: true }));
    },
    shards: async () => shards.map(shard),
    close: () => undefined,
  } as unknown as IntrospectionSource, { node })]));
  t.teardown(() => Promise.all(services.map((s) => s.close())));
  for (const node of Object.keys(owned)) {
    await members.put(`node.${node}`, new TextEncoder().encode(JSON.stringify({ node, at: Date.now(), info: { pid: '1', shards: announced } })));
  }
  return client;
}

const base: ViewOptions = { format: 'table', width: 200, timeoutMs: 500, natsUrl: 'memory' };

test('introspect clusters - shards no answering node owns have their MaasClusters listed from a live node\'s store, NODE -, and said so', async (t) => {
  // 8 shards: a owns 0-2, b owns 4 and 5; 3, 6 and 7 are between owners (or their node was killed).
  const client = await nodes(t, { a: [0, 1, 2], b: [4, 5] }, '8', true);
  const table = await clustersView(client, base);
  t.deepEqual(table.stderr, ['warning: 3 MaasCluster(s) on shards no answering node holds are shown as a\'s store last had them (NODE -, PHASE stored), not as driven now; their shards move to the live nodes within the lease time']);
  const rows = table.stdout.split('\n').filter((l) => l.startsWith('capi/') && l.includes('.maas'));
  t.is(rows.length, 8);
  t.deepEqual(rows.filter((l) => l.startsWith('capi/stored-')).map((l) => [l.split(/\s+/)[0], l.split(/\s+/)[1]]), [3, 6, 7].map((n) => [`capi/stored-${n}`, 'stored']));
  const json = JSON.parse((await clustersView(client, { ...base, format: 'json' })).stdout) as { stored: { from: string; clusters: Array<{ key: string; stored: boolean }> } };
  t.is(json.stored.from, 'a');
  t.deepEqual(json.stored.clusters.map((c) => [c.key, c.stored]), [3, 6, 7].map((n) => [`capi/stored-${n}`, true]));
  // With --node the others are left out on purpose: nothing is filled in.
  t.deepEqual((await clustersView(client, { ...base, nodes: ['a'] })).stderr, []);
});

test('introspect clusters - shards no answering node owns, when no store answers either, are named in a warning, in the table and --json forms', async (t) => {
  // 8 shards: a owns 0-2, b owns 4 and 5; 3, 6 and 7 are between owners.
  const client = await nodes(t, { a: [0, 1, 2], b: [4, 5] }, '8');
  const warning = 'warning: shards 3, 6, 7 had no owner when asked (moving between nodes): their MaasClusters are not listed; try again';
  const table = await clustersView(client, base);
  t.is(table.exitCode, 0);
  t.deepEqual(table.stderr, [warning]);
  // The clusters that are there are still listed.
  t.is(table.stdout.split('\n').filter((l) => l.startsWith('capi/') && l.includes('.maas')).length, 5);
  const json = await clustersView(client, { ...base, format: 'json' });
  t.deepEqual(json.stderr, [warning]);
  t.is((JSON.parse(json.stdout) as { replies: unknown[] }).replies.length, 2);
});

test('introspect clusters - no shard warning when every shard is owned, with --node, or when a node did not answer', async (t) => {
  t.deepEqual((await clustersView(await nodes(t, { a: [0, 1, 2, 3], b: [4, 5, 6, 7] }, '8'), base)).stderr, []);
  t.deepEqual((await clustersView(await nodes(t, { a: [0, 1, 2] }, '8'), { ...base, nodes: ['a'] })).stderr, []);
  // b's shards are unknown, not ownerless: the missing-node warning alone.
  t.deepEqual((await clustersView(await nodes(t, { a: [0, 1, 2, 3], b: null }, '8'), base)).stderr, ['warning: no answer from node(s) b within 0.5s']);
});
