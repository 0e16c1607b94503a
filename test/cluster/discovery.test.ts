// Service discovery (ADR-32) over the in-memory bus: every verb on its three subjects, replies
// that match the protocol's schemas, and STATS that count what the endpoints really served.
import test from 'ava';
import { z } from 'zod';
import { createMemoryBus, decode, encode, serve, ok, subjects } from '../../src/bus/index.ts';
import { InfoResponse, PingResponse, StatsResponse } from '../../src/bus/messages/index.ts';
import { serveDiscovery } from '../../src/cluster/introspect/discovery.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { BusError } from '../../src/ports/index.ts';

const TIMEOUT = { timeoutMs: 1_000 };
const json = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

test('discovery - PING, INFO and STATS answer on $SRV.<verb>, .metalfleet and .metalfleet.<id>, as the protocol shapes them', async (t) => {
  const bus = createMemoryBus();
  const server = bus.connect('node');
  const client = bus.connect('client');
  const echo = serve(server, 'mf.introspect.a.echo', z.object({ n: z.number() }), async (req) => ok(req));
  const discovery = serveDiscovery(server, {
    version: '0.1.0', description: 'test node', metadata: { node: 'a' }, id: 'ID1',
    endpoints: () => [{ name: 'echo', subject: 'mf.introspect.a.echo', stats: echo.stats }],
    now: () => new Date('2026-12-01T00:00:00Z'),
  });
  try {
    t.is(discovery.id, 'ID1');
    for (const subject of ['$SRV.PING', '$SRV.PING.metalfleet', '$SRV.PING.metalfleet.ID1']) {
      t.deepEqual(PingResponse.parse(json(await client.request(subject, new Uint8Array(0), TIMEOUT))), {
        type: 'io.nats.micro.v1.ping_response', name: 'metalfleet', id: 'ID1', version: '0.1.0', metadata: { node: 'a' },
      });
    }
    const info = InfoResponse.parse(json(await client.request('$SRV.INFO.metalfleet', new Uint8Array(0), TIMEOUT)));
    t.is(info.description, 'test node');
    t.deepEqual(info.endpoints, [{ name: 'echo', subject: 'mf.introspect.a.echo', queue_group: '', metadata: {} }]);

    // Two good requests and one that does not match the endpoint's schema.
    for (const n of [1, 2]) t.true(decode('r', await client.request('mf.introspect.a.echo', encode({ n }), TIMEOUT), z.object({ ok: z.literal(true) }).passthrough()).ok);
    await client.request('mf.introspect.a.echo', encode({ n: 'x' }), TIMEOUT);
    const stats = StatsResponse.parse(json(await client.request('$SRV.STATS.metalfleet.ID1', new Uint8Array(0), TIMEOUT)));
    t.is(stats.started, '2026-12-01T00:00:00.000Z');
    const [e] = stats.endpoints;
    t.is(e?.num_requests, 3);
    t.is(e?.num_errors, 1);
    t.regex(e?.last_error ?? '', /^invalidMessage: .* at n: /);
    t.true((e?.processing_time ?? 0) > 0);
    t.is(e?.average_processing_time, Math.trunc((e?.processing_time ?? 0) / 3));

    // Another instance's id, or another service's name: nobody here answers.
    for (const subject of ['$SRV.PING.metalfleet.OTHER', '$SRV.INFO.other-service']) {
      const error = await t.throwsAsync(client.request(subject, new Uint8Array(0), { timeoutMs: 200 }));
      t.true(error instanceof BusError && error.kind === 'noResponders', subject);
    }
  } finally {
    await discovery.close();
    await echo.drain();
  }
  // Closed: no longer discoverable.
  const gone = await t.throwsAsync(client.request('$SRV.PING', new Uint8Array(0), { timeoutMs: 200 }));
  t.true(gone instanceof BusError && gone.kind === 'noResponders');
});

test('discovery - the introspection server registers every verb of its node', async (t) => {
  const bus = createMemoryBus();
  const server = bus.connect('node');
  const client = bus.connect('client');
  const unused = (): Promise<never> => Promise.reject(new Error('not asked'));
  const source: IntrospectionSource = { info: unused, hosts: unused, actors: unused, shards: unused, capacity: unused, inspect: unused, close: () => undefined };
  const svc = serveIntrospection(server, source, { node: 'n7' });
  try {
    const info = InfoResponse.parse(json(await client.request(`$SRV.INFO.metalfleet.${svc.discoveryId}`, new Uint8Array(0), TIMEOUT)));
    t.deepEqual(info.metadata, { node: 'n7' });
    t.deepEqual(info.endpoints.map((e) => e.subject), ['info', 'hosts', 'actors', 'shards', 'capacity', 'inspect', 'clusters'].map((v) => subjects().introspectVerb('n7', v)));
  } finally {
    await svc.close();
  }
});
