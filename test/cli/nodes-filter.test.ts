// `metalfleet nodes --node a` prints node a's line; `--json` (and `-o yaml`) must say the same.
// The members list in the data was the whole cluster's, so a script reading `.members` with
// `--node a` saw every node and took the others for part of the answer.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { nodesView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { MEMBER_BUCKET, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';

const info = (pid: number): IntrospectionSource => ({
  info: async () => ({ version: '0.1.0', startedAt: 1, uptimeMs: 1_000, pid, hosts: 0, shards: 0, memory: { rss: 1, heapUsed: 1 }, eventLoopLagMs: 0, broker: pid === 1 }),
  close: () => undefined,
}) as unknown as IntrospectionSource;

test('nodes - --node a: the JSON names the members asked for, as the table does', async (t) => {
  const bus = createMemoryBus();
  const client = bus.connect('cli');
  const members = await client.kv(MEMBER_BUCKET);
  const services = ['a', 'b'].map((node, i) => serveIntrospection(bus.connect(node), info(i + 1), { node }));
  t.teardown(() => Promise.all(services.map((s) => s.close())));
  for (const node of ['a', 'b']) await members.put(`node.${node}`, new TextEncoder().encode(JSON.stringify({ node, at: Date.now() })));
  const base: ViewOptions = { format: 'table', width: 200, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['a'] };

  const table = (await nodesView(client, base)).stdout.split('\n').filter(Boolean);
  t.deepEqual(table.slice(1).map((l) => l.split(/\s+/)[0]), ['a']);

  type Nodes = { members: Array<{ node: string }>; replies: Array<{ node: string }>; missing: string[] };
  const json = JSON.parse((await nodesView(client, { ...base, format: 'json' })).stdout) as Nodes;
  t.deepEqual(json.replies.map((r) => r.node), ['a']);
  t.deepEqual(json.members.map((m) => m.node), ['a'], 'members: only the node asked for');

  // Without --node both are there, in the table and the data.
  const all = JSON.parse((await nodesView(client, { ...base, nodes: undefined, format: 'json' })).stdout) as Nodes;
  t.deepEqual(all.members.map((m) => m.node), ['a', 'b']);
  t.deepEqual(all.replies.map((r) => r.node), ['a', 'b']);
});
