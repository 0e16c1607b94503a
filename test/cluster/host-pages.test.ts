import test from 'ava';
import { pageOfHosts } from '../../src/cluster/introspect/host-pages.ts';
import type { HostRow } from '../../src/bus/messages/introspect.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { gather, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';

const row = (i: number): HostRow => ({
  key: `fleet/host-${String(i).padStart(5, '0')}`, kind: 'BareMetalHost', backend: 'fixture', state: 'provisioned', poweredOn: true,
  operationalStatus: 'OK', errorType: '', errorMessage: 'x'.repeat(i % 7 === 0 ? 400 : 0), shard: i % 256, stateSinceMs: 1_000,
});

test('host pages - in key order, each under the budget, every host once', (t) => {
  const rows = Array.from({ length: 2_000 }, (_, i) => row(1_999 - i));
  const seen: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = pageOfHosts(rows, after, 32 * 1024);
    t.true(JSON.stringify(page.hosts).length <= 32 * 1024 + 1_000);
    seen.push(...page.hosts.map((h) => h.key));
    if (page.next === undefined) break;
    after = page.next;
  }
  t.deepEqual(seen, rows.map((r) => r.key).sort());
});

// 10,000 hosts are about 1.4 MB of rows, over NATS's 1 MiB default: the verb used to fail
// outright ("payload ... over the bus limit"), so `metalfleet hosts`, top and the dashboard showed
// nothing for a big node.
test('host pages - gather follows the pages: a node with 12,000 hosts answers them all under the bus limit', async (t) => {
  const bus = createMemoryBus({ maxPayload: 1024 * 1024 });
  const rows = Array.from({ length: 12_000 }, (_, i) => row(i));
  const source = { hosts: async () => rows } as unknown as IntrospectionSource;
  const server = serveIntrospection(bus.connect('n1'), source, { node: 'n1' });
  t.teardown(() => server.close());
  const got = await gather(bus.connect('client'), 'hosts', {}, { timeoutMs: 5_000, nodes: ['n1'] });
  t.deepEqual(got.errors, []);
  t.is(got.replies[0]?.value.hosts.length, 12_000);
  t.is(new Set(got.replies[0]?.value.hosts.map((h) => h.key)).size, 12_000);
});

// A BareMetalHost and a MaasMachine may share a namespace/name. Pages were cut by key alone, so
// when a page ended between the two, the next page began after that key and the second of them
// was never listed: `metalfleet hosts` silently lost a machine on a big node.
test('host pages - a BareMetalHost and a MaasMachine of one name on a page boundary are both listed', (t) => {
  const rows: HostRow[] = Array.from({ length: 30 }, (_, i) => row(i)).flatMap((r) => [r, { ...r, kind: 'MaasMachine' as const, backend: 'maas' as const }]);
  const size = Math.max(...rows.map((r) => JSON.stringify(r).length));
  const seen: string[] = [];
  let after: string | undefined;
  // Three rows a page: every other page ends between the two rows of one name.
  for (let pages = 0; pages < 100; pages++) {
    const page = pageOfHosts(rows, after, size * 3 + 10);
    seen.push(...page.hosts.map((h) => `${h.kind} ${h.key}`));
    if (page.next === undefined) break;
    after = page.next;
  }
  t.deepEqual(seen.sort(), rows.map((r) => `${r.kind} ${r.key}`).sort());
});
