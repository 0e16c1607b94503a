// The actors verb for a node driving 10,000 hosts: 10,000 host actors
// (`/shard-<n>-e<epoch>/<namespace>~<name>`) are about 1.3 MB of MessagePack, over NATS's default
// 1 MiB, so in one reply `metalfleet actors` and `metalfleet top` got an error from that node
// instead of its actors. The node answers a page at a time by path and gather() follows `next`,
// as for hosts and clusters (test/cluster/host-pages.test.ts).
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { gather, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import type { ActorRow } from '../../src/bus/messages/introspect.ts';

// Rows as a node lists them (test/cli/introspect-embedded.test.ts shows the paths).
const hostActor = (i: number): ActorRow => {
  const shard = `/shard-${i % 256}-e${(i % 256) + 2}`;
  return { path: `${shard}/fleet~host-${String(i).padStart(5, '0')}`, kind: 'host', parent: shard, mailboxDepth: 0, highWater: 2, processed: 25, restarts: 0, lastError: null, busy: false };
};

test('actors - a node with 10,000 host actors answers them all, in pages under the bus limit', async (t) => {
  const bus = createMemoryBus({ maxPayload: 1024 * 1024 });
  const rows = Array.from({ length: 10_000 }, (_, i) => hostActor(i));
  const source = { actors: async () => rows } as unknown as IntrospectionSource;
  const server = serveIntrospection(bus.connect('n1'), source, { node: 'n1' });
  t.teardown(() => server.close());
  const got = await gather(bus.connect('client'), 'actors', {}, { timeoutMs: 5_000, nodes: ['n1'] });
  t.deepEqual(got.errors, []);
  const actors = got.replies[0]?.value.actors ?? [];
  t.is(actors.length, 10_000);
  t.is(new Set(actors.map((a) => a.path)).size, 10_000, 'each actor once across the pages');
  t.is(got.replies[0]?.value.next, undefined, 'the last page says no more follow');
});

test('actors - pages keep the prefix filter: only the asked shard\'s actors, all of them', async (t) => {
  const bus = createMemoryBus({ maxPayload: 1024 * 1024 });
  const rows = Array.from({ length: 10_000 }, (_, i) => hostActor(i));
  const asked: Array<{ prefix?: string; after?: string }> = [];
  const source = { actors: async (filter: { prefix?: string }) => {
    asked.push(filter);
    return rows.filter((r) => filter.prefix === undefined || r.path.startsWith(filter.prefix));
  } } as unknown as IntrospectionSource;
  const server = serveIntrospection(bus.connect('n1'), source, { node: 'n1' });
  t.teardown(() => server.close());
  // '/shard-1' spans shards 1, 10–19 and 100–199: over 4,000 actors, more than one page.
  const wide = await gather(bus.connect('client'), 'actors', { prefix: '/shard-1' }, { timeoutMs: 5_000, nodes: ['n1'] });
  const expected = rows.filter((r) => r.path.startsWith('/shard-1')).map((r) => r.path).sort();
  t.deepEqual(wide.replies[0]?.value.actors.map((a) => a.path), expected);
  t.true(asked.length > 1, `paged: ${asked.length} asks`);
  t.true(asked.every((f) => f.prefix === '/shard-1'), 'every page asked with the prefix');
});
