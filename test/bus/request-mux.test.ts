// Requests over the transport's own inbox subscription: a late reply is dropped, a closed
// connection fails its requests at once, and a JetStream compare-and-set write over it is
// refused as KvConflict exactly when the revision moved.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { requestMux } from '../../src/bus/request-mux.ts';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { BusError } from '../../src/ports/index.ts';
import { startNatsServer, type NatsServer } from '../support/nats-server.ts';

let server: NatsServer;
test.before(async () => {
  server = await startNatsServer();
});
test.after.always(async () => {
  await server?.dispose();
});

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

test('request mux - each reply reaches its own request, and a reply after the timeout is dropped', async (t) => {
  const nc = await connect({ servers: server.url });
  t.teardown(() => nc.close());
  const held: Array<() => void> = [];
  nc.subscribe('svc.slow', {
    callback: (_err, msg) => {
      held.push(() => msg.respond(bytes(`late ${text(msg.data)}`)));
    },
  });
  nc.subscribe('svc.echo', {
    callback: (_err, msg) => {
      msg.respond(bytes(`echo ${text(msg.data)}`));
    },
  });
  await nc.flush();
  const mux = requestMux(nc, undefined);
  const late = await t.throwsAsync(mux.request('svc.slow', bytes('x'), { timeoutMs: 100 }), { instanceOf: BusError });
  t.is(late?.kind, 'timeout');
  for (const answer of held) answer();
  const replies = await Promise.all(['a', 'b', 'c'].map((s) => mux.request('svc.echo', bytes(s), { timeoutMs: 2_000 })));
  t.deepEqual(replies.map((m) => text(m.data)), ['echo a', 'echo b', 'echo c']);
});

test('request mux - nobody listening fails with noResponders before the timeout', async (t) => {
  const nc = await connect({ servers: server.url });
  t.teardown(() => nc.close());
  const started = Date.now();
  const error = await t.throwsAsync(requestMux(nc, undefined).request('nobody.here', bytes('x'), { timeoutMs: 5_000 }), { instanceOf: BusError });
  t.is(error?.kind, 'noResponders');
  t.true(Date.now() - started < 2_000);
});

test('request mux - closing the connection fails the requests waiting on it at once', async (t) => {
  const nc = await connect({ servers: server.url });
  nc.subscribe('svc.never', { callback: () => undefined });
  await nc.flush();
  const waiting = requestMux(nc, undefined).request('svc.never', bytes('x'), { timeoutMs: 30_000 });
  const started = Date.now();
  await nc.close();
  const error = await t.throwsAsync(waiting, { instanceOf: BusError });
  t.is(error?.kind, 'closed');
  t.true(Date.now() - started < 5_000);
});

test('request mux - a publish the server refuses fails its request at once, as forbidden by the transport', async (t) => {
  const limited = await startNatsServer({
    config: 'authorization { users = [ { user: limited, password: pw-limited, permissions: { publish: { deny: ["secret.>"] } } } ] }',
  });
  t.teardown(() => limited.dispose());
  const nc = await connect({ servers: limited.url, user: 'limited', pass: 'pw-limited' });
  t.teardown(() => nc.close());
  const started = Date.now();
  const refused = await t.throwsAsync(requestMux(nc, undefined).request('secret.plans', bytes('x'), { timeoutMs: 20_000 }));
  t.true(Date.now() - started < 10_000, 'refused, not timed out');
  t.regex(String(refused?.message), /publish/i);
  const transport = await connectNats({ servers: limited.url, name: 'limited', auth: { user: 'limited', pass: 'pw-limited' } });
  t.teardown(() => transport.close());
  const mapped = await t.throwsAsync(transport.request('secret.plans', bytes('x'), { timeoutMs: 20_000 }), { instanceOf: BusError });
  t.is(mapped?.kind, 'forbidden');
  t.regex(mapped?.message ?? '', /does not allow this connection's user to publish to secret\.plans/);
});
