// gather's timeout is the deadline of each node's answer, but a node that answers in pages was
// given the whole timeout again for every page: a slow node of many pages held `metalfleet hosts
// --timeout 2s` (and the dashboard's picture) for pages × 2 s, where the others' answers were long
// in, before it was named as missing. The pages of one node now share the node's one deadline.
import test from 'ava';
import type { HostRow } from '../../src/bus/messages/introspect.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { gather, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';

const row = (i: number): HostRow => ({
  key: `fleet/host-${String(i).padStart(5, '0')}`, kind: 'BareMetalHost', backend: 'fixture', state: 'provisioned', poweredOn: true,
  operationalStatus: 'OK', errorType: '', errorMessage: 'x'.repeat(200), shard: i % 256, stateSinceMs: 1_000,
});

test('introspection deadline - a slow node answering many pages is named missing within the one timeout, and the quick node is listed', async (t) => {
  // 64 KiB messages: about 20 pages of 32 KiB for the slow node.
  const bus = createMemoryBus({ maxPayload: 64 * 1024 });
  const rows = Array.from({ length: 1_500 }, (_, i) => row(i));
  let pagesAsked = 0;
  // Each page takes 150 ms on the slow node: any one page is well inside the 500 ms timeout.
  const slow = {
    hosts: async () => {
      pagesAsked += 1;
      await new Promise((resolve) => setTimeout(resolve, 150));
      return rows;
    },
  } as unknown as IntrospectionSource;
  const quick = { hosts: async () => rows.slice(0, 10) } as unknown as IntrospectionSource;
  const servers = [serveIntrospection(bus.connect('slow'), slow, { node: 'slow' }), serveIntrospection(bus.connect('quick'), quick, { node: 'quick' })];
  t.teardown(() => Promise.all(servers.map((s) => s.close())).then(() => undefined));

  const got = await gather(bus.connect('client'), 'hosts', {}, { timeoutMs: 500, nodes: ['slow', 'quick'] });
  t.deepEqual(got.missing, ['slow'], 'the slow node did not answer all its hosts within the timeout');
  t.deepEqual(got.replies.map((r) => r.node), ['quick']);
  t.is(got.replies[0]?.value.hosts.length, 10);
  t.true(pagesAsked < 10, `asked ${pagesAsked} pages: the slow node was not given the timeout again for each`);
});

test('introspection deadline - a node of several quick pages still answers them all within the timeout', async (t) => {
  const bus = createMemoryBus({ maxPayload: 64 * 1024 });
  const rows = Array.from({ length: 1_500 }, (_, i) => row(i));
  const server = serveIntrospection(bus.connect('n1'), { hosts: async () => rows } as unknown as IntrospectionSource, { node: 'n1' });
  t.teardown(() => server.close());
  const got = await gather(bus.connect('client'), 'hosts', {}, { timeoutMs: 5_000, nodes: ['n1'] });
  t.deepEqual(got.missing, []);
  t.is(got.replies[0]?.value.hosts.length, rows.length);
});
