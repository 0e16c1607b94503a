// During a shard hand-off (a node joining or leaving) the shard being moved is answered by neither
// node for a moment: `metalfleet hosts` listed fewer hosts and said nothing, so an operator took
// the hosts for gone. It now names the shards no answering node owned, against the shard count
// the nodes announce in their heartbeats.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { hostsView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { MEMBER_BUCKET, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { HostRow, IntrospectionSource, ShardRow } from '../../src/cluster/introspect/index.ts';
import type { Transport } from '../../src/ports/index.ts';

const host = (key: string, shard: number): HostRow => ({
  key, kind: 'BareMetalHost', backend: 'fixture', state: 'provisioned', poweredOn: true, operationalStatus: 'OK', errorType: '', shard, stateSinceMs: 1_000,
});
const shard = (n: number): ShardRow => ({ shard: n, epoch: n + 1, hosts: 1, leaseAgeMs: 1_000 });

/**
 * A node owning `shards`, with one host in each (or hosts in `hostShards`: a shard taken between
 * the two asks). Asked for stored shards, it answers as every node's store would: one host a shard.
 */
const owning = (name: string, shards: readonly number[], hostShards: readonly number[] = shards, storeAnswers = true): IntrospectionSource => ({
  hosts: async (req: { storedShards?: number[] }) => {
    if (!req.storedShards) return hostShards.map((s) => host(`lab/${name}-${s}`, s));
    if (!storeAnswers) throw new Error('the store is not readable');
    return req.storedShards.map((s) => ({ ...host(`lab/stored-${s}`, s), stored: true }));
  },
  shards: async () => shards.map(shard),
  close: () => undefined,
}) as unknown as IntrospectionSource;

/** Nodes serving the given sources, with heartbeats announcing `announced` shards (a map: per node). */
async function cluster(
  t: { teardown(f: () => Promise<unknown>): void },
  nodes: Record<string, readonly number[] | null>,
  announced: string | Record<string, string | undefined>,
  hostShards: Record<string, readonly number[]> = {},
  storeAnswers = true,
): Promise<Transport> {
  const bus = createMemoryBus();
  const client = bus.connect('cli');
  const members = await client.kv(MEMBER_BUCKET);
  // null: a member whose heartbeat is there but which does not answer (stopped, or stuck).
  const services = Object.entries(nodes).flatMap(([node, shards]) => (shards === null ? [] : [serveIntrospection(bus.connect(node), owning(node, shards, hostShards[node], storeAnswers), { node })]));
  t.teardown(() => Promise.all(services.map((s) => s.close())));
  for (const node of Object.keys(nodes)) {
    const count = typeof announced === 'string' ? announced : announced[node];
    const hb = { node, at: Date.now(), info: { pid: '1', ...(count === undefined ? {} : { shards: count }) } };
    await members.put(`node.${node}`, new TextEncoder().encode(JSON.stringify(hb)));
  }
  return client;
}

const base: ViewOptions = { format: 'table', width: 200, timeoutMs: 500, natsUrl: 'memory' };

test('hosts - a shard no answering node owns (moving between nodes) has its hosts listed from a live node\'s store, NODE -, and said so', async (t) => {
  // 8 shards: a owns 0-2, b owns 4 and 5; 3, 6 and 7 are between owners.
  const client = await cluster(t, { a: [0, 1, 2], b: [4, 5] }, '8');
  const out = await hostsView(client, {}, base);
  t.deepEqual(out.stderr, ['warning: 3 host(s) on shards no answering node holds are shown as a\'s store last had them (NODE -), not as driven now; their shards move to the live nodes within the lease time']);
  t.deepEqual(out.stdout.split('\n').filter((l) => l.startsWith('lab/stored-')).map((l) => l.split(/\s+/)[0]), ['lab/stored-3', 'lab/stored-6', 'lab/stored-7']);
  t.is(out.stdout.split('\n').filter((l) => l.startsWith('lab/')).length, 8);
});

test('hosts - a shard no answering node owns, when no store answers either, is named in a warning, in the table and --json forms', async (t) => {
  // 8 shards: a owns 0-2, b owns 4 and 5; 3, 6 and 7 are between owners.
  const client = await cluster(t, { a: [0, 1, 2], b: [4, 5] }, '8', {}, false);
  const warning = 'warning: shards 3, 6, 7 had no owner when asked (moving between nodes): their hosts are not listed; try again';

  const table = await hostsView(client, {}, base);
  t.is(table.exitCode, 0);
  t.deepEqual(table.stderr, [warning]);
  // The hosts that are there are still listed.
  t.is(table.stdout.split('\n').filter((l) => l.startsWith('lab/')).length, 5);

  const json = await hostsView(client, {}, { ...base, format: 'json' });
  t.deepEqual(json.stderr, [warning]);
  t.is((JSON.parse(json.stdout) as { replies: unknown[] }).replies.length, 2);

  // One shard: said in the singular.
  const one = await cluster(t, { a: [0, 1], b: [3] }, '4', {}, false);
  t.deepEqual((await hostsView(one, {}, base)).stderr, ['warning: shard 2 had no owner when asked (moving between nodes): its hosts are not listed; try again']);
});

test('hosts - a long list of ownerless shards is cut: the first ten, then how many more', async (t) => {
  const client = await cluster(t, { a: [0], b: [1] }, '64', {}, false);
  t.deepEqual((await hostsView(client, {}, base)).stderr, [
    'warning: shards 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 52 more had no owner when asked (moving between nodes): their hosts are not listed; try again',
  ]);
});

test('hosts - no shard warning when every shard has an owner, or the shard count is not known', async (t) => {
  const covered = await cluster(t, { a: [0, 1, 2, 3], b: [4, 5, 6, 7] }, '8');
  t.deepEqual((await hostsView(covered, {}, base)).stderr, []);
  // Two owners of one shard for a moment (the hand-off's overlap) still covers it.
  const overlap = await cluster(t, { a: [0, 1, 2, 3], b: [3, 4, 5, 6, 7] }, '8');
  t.deepEqual((await hostsView(overlap, {}, base)).stderr, []);
  // b gave shard 3 up between the hosts ask and the shards ask, but its hosts are listed: not ownerless.
  const between = await cluster(t, { a: [0, 1, 2], b: [4, 5, 6, 7] }, '8', { b: [3, 4, 5, 6, 7] });
  t.deepEqual((await hostsView(between, {}, base)).stderr, []);
  // The nodes disagree on the count (a rolling change of --shards), or one does not announce it.
  const disagree = await cluster(t, { a: [0, 1], b: [4] }, { a: '8', b: '16' });
  t.deepEqual((await hostsView(disagree, {}, base)).stderr, []);
  const unannounced = await cluster(t, { a: [0, 1], b: [4] }, { a: '8', b: undefined });
  t.deepEqual((await hostsView(unannounced, {}, base)).stderr, []);
});

test('hosts - a node that does not answer: its hosts are listed from a live node\'s store, NODE -, and said so; its shards are not called ownerless', async (t) => {
  // c's shards (4-7) are c's until its leases lapse: not ownerless, and their hosts are not gone.
  // A killed node's hosts vanished from the listing for up to the lease time.
  const client = await cluster(t, { a: [0, 1], b: [2, 3], c: null }, '8');
  const out = await hostsView(client, {}, base);
  t.deepEqual(out.stderr, [
    'warning: no answer from node(s) c within 0.5s',
    'warning: 4 host(s) on shards no answering node holds are shown as a\'s store last had them (NODE -), not as driven now; their shards move to the live nodes within the lease time',
  ]);
  const rows = out.stdout.split('\n').filter((l) => l.startsWith('lab/'));
  t.deepEqual(rows.map((l) => l.split(/\s+/)[0]), ['lab/a-0', 'lab/a-1', 'lab/b-2', 'lab/b-3', 'lab/stored-4', 'lab/stored-5', 'lab/stored-6', 'lab/stored-7']);
  t.true(rows.filter((l) => l.startsWith('lab/stored-')).every((l) => / - /.test(l)), 'a stored row names no node');
  const json = JSON.parse((await hostsView(client, {}, { ...base, format: 'json' })).stdout) as { stored: { from: string; hosts: Array<{ key: string; stored: boolean }> } };
  t.is(json.stored.from, 'a');
  t.deepEqual(json.stored.hosts.map((h) => [h.key, h.stored]), [4, 5, 6, 7].map((s) => [`lab/stored-${s}`, true]));
  // Asked of one node by name, the others are left out on purpose: nothing is filled in from a store.
  const narrowed = await hostsView(client, {}, { ...base, nodes: ['a', 'c'] });
  t.deepEqual(narrowed.stderr, ['warning: no answer from node(s) c within 0.5s']);
});

test('hosts - --node narrows the ask: the other nodes\' shards are not taken for ownerless', async (t) => {
  const client = await cluster(t, { a: [0, 1, 2, 3], b: [4, 5, 6, 7] }, '8');
  const out = await hostsView(client, {}, { ...base, nodes: ['a'] });
  t.deepEqual(out.stderr, []);
  t.is(out.stdout.split('\n').filter((l) => l.startsWith('lab/')).length, 4);
});
