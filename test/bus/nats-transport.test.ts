import { inspect } from 'node:util';
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import type { BusStatus, Transport } from '../../src/ports/index.ts';
import { BusError } from '../../src/ports/index.ts';
import { freePort } from '../support/ironic.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { waitFor } from '../support/wait.ts';
import { CONTRACT_MAX_PAYLOAD, transportContract, waitForResponder } from './transport-contract.ts';

transportContract('nats transport', async () => {
  const server = await startNatsServer({ config: `max_payload: ${CONTRACT_MAX_PAYLOAD}` });
  const open: Transport[] = [];
  return {
    connect: async (name) => {
      const conn = await connectNats({ servers: server.url, name });
      open.push(conn);
      return conn;
    },
    dispose: async () => {
      await Promise.all(open.map((c) => c.close()));
      await server.dispose();
    },
  };
});

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

test('nats transport - maxPayload comes from the server (1 MiB by default)', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const nc = await connectNats({ servers: server.url, name: 'payload' });
  t.teardown(() => nc.close());
  t.is(nc.maxPayload, 1024 * 1024);
});

test('nats transport - after a server restart the connection comes back and requests work again', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const opts = { servers: server.url, reconnectTimeWaitMs: 50 };
  const [client, service] = [await connectNats({ ...opts, name: 'client' }), await connectNats({ ...opts, name: 'service' })];
  t.teardown(() => Promise.all([client.close(), service.close()]).then(() => undefined));
  const statuses: BusStatus[] = [];
  client.onStatus((s) => statuses.push(s));
  service.subscribe('svc.ping', (m) => m.respond(bytes('pong')));
  await waitForResponder(client, 'svc.ping');

  await server.restart();
  await waitFor(() => statuses.includes('connected'), 10_000, 'client reconnected');
  t.deepEqual(statuses.filter((s) => s !== 'reconnecting'), ['disconnected', 'connected']);
  t.true(statuses.indexOf('reconnecting') > 0, statuses.join(','));
  // The service's subscription is replayed on its own reconnect; wait for it, then ask.
  await waitForResponder(client, 'svc.ping');
  t.is(new TextDecoder().decode(await client.request('svc.ping', bytes(''), { timeoutMs: 2_000 })), 'pong');
});

test('nats transport - answers: a server that pongs is answering; one paused with its socket open is not, and the transport is then stalled', async (t) => {
  const server = await startNatsServer();
  t.teardown(async () => {
    server.resume();
    await server.dispose();
  });
  const client = await connectNats({ servers: server.url, name: 'client' });
  t.teardown(() => client.close());
  const statuses: BusStatus[] = [];
  client.onStatus((s) => statuses.push(s));
  t.true(await client.answers(5_000));
  t.deepEqual(statuses, []);

  await server.pause();
  t.false(await client.answers(300));
  t.deepEqual(statuses, ['stalled']);
  t.like(JSON.parse(JSON.stringify(client)), { status: 'stalled' });
  // Stalled: no more pings, and close does not wait for a drain the server would never answer.
  t.false(await client.answers(5_000));
  await client.close();
});

test('nats transport - a request while the server is down fails as timeout, not a crash', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const client = await connectNats({ servers: server.url, name: 'client', reconnectTimeWaitMs: 50 });
  t.teardown(() => client.close());
  const statuses: BusStatus[] = [];
  client.onStatus((s) => statuses.push(s));
  await server.stop();
  await waitFor(() => statuses.includes('disconnected'), 5_000, 'disconnected');
  const error = await t.throwsAsync(client.request('svc.any', bytes(''), { timeoutMs: 200 }), { instanceOf: BusError });
  t.log(error?.message);
  t.true(error?.kind === 'timeout' || error?.kind === 'unavailable', `${error?.kind}: ${error?.message}`);
  t.true(error?.retryable);
});

test('nats transport - no server: connect fails with a retryable error that names the server', async (t) => {
  const port = await freePort();
  const error = await t.throwsAsync(connectNats({ servers: `nats://127.0.0.1:${port}`, name: 'lonely', timeoutMs: 1_000 }), { instanceOf: BusError });
  t.is(error?.kind, 'unavailable');
  t.true(error?.retryable);
  t.regex(error?.message ?? '', new RegExp(`127\\.0\\.0\\.1:${port}`));
});

test('nats transport - inspect and JSON show name, servers and status, nothing of the connection', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const nc = await connectNats({ servers: server.url, name: 'shown' });
  t.teardown(() => nc.close());
  t.deepEqual(JSON.parse(JSON.stringify(nc)), { name: 'shown', servers: server.url, status: 'connected' });
  t.regex(inspect(nc), /NatsTransport .*shown/);
});

test('nats transport - the handler error hook hears a throwing handler and the connection lives on', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const errors: unknown[] = [];
  const nc = await connectNats({ servers: server.url, name: 'hooked', onHandlerError: (e) => errors.push(e) });
  t.teardown(() => nc.close());
  nc.subscribe('boom', () => {
    throw new Error('bug');
  });
  nc.subscribe('fine', (m) => m.respond(bytes('ok')));
  nc.publish('boom', bytes(''));
  await waitFor(() => errors.length === 1, 2_000, 'hook called');
  t.is(new TextDecoder().decode(await nc.request('fine', bytes(''), { timeoutMs: 2_000 })), 'ok');
});
