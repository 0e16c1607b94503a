import { randomBytes } from 'node:crypto';
import test from 'ava';
import { unpack } from 'msgpackr';
import { z } from 'zod';
import { encode } from '../../src/bus/codec.ts';
import { createMemoryBus, createMemoryTransport } from '../../src/bus/memory-transport.ts';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { call, fail, ok, RemoteError, replyEnvelope, serve } from '../../src/bus/rpc.ts';
import type { Reply } from '../../src/bus/rpc.ts';
import type { Transport } from '../../src/ports/index.ts';
import { BusError } from '../../src/ports/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { deferred, waitFor } from '../support/wait.ts';

const PowerRequest = z.object({ host: z.string(), power: z.enum(['on', 'off']) });
const PowerReply = z.object({ host: z.string(), accepted: z.boolean() });
const AnyReply = replyEnvelope(z.unknown());

const powerService = (transport: Transport, subject = 'mf.power', maxBytes?: number) =>
  serve(transport, subject, PowerRequest, async (req) => {
    if (req.host === 'missing') return fail('notFound', `host ${req.host} is not known`);
    if (req.host === 'buggy') throw new Error('handler bug');
    return ok({ host: req.host, accepted: req.power === 'on' });
  }, maxBytes === undefined ? {} : { maxBytes });

/** Sends raw bytes and returns the decoded reply envelope. */
async function rawRequest(transport: Transport, subject: string, data: Uint8Array): Promise<Reply<unknown>> {
  const raw = await transport.request(subject, data, { timeoutMs: 5_000 });
  const parsed = AnyReply.safeParse(unpack(raw));
  if (!parsed.success) throw new Error(`reply is not an envelope: ${parsed.error.message}`);
  return parsed.data;
}

test('rpc - a call returns the validated value of an ok reply', async (t) => {
  const bus = createMemoryTransport();
  powerService(bus);
  t.deepEqual(await call(bus, 'mf.power', { host: 'h1', power: 'on' }, PowerReply, { timeoutMs: 1_000 }), { host: 'h1', accepted: true });
});

test('rpc - an error reply throws RemoteError with its kind, message and retry flag', async (t) => {
  const bus = createMemoryTransport();
  const service = powerService(bus);
  const error = await t.throwsAsync(call(bus, 'mf.power', { host: 'missing', power: 'on' }, PowerReply, { timeoutMs: 1_000 }), { instanceOf: RemoteError });
  t.like(error, { kind: 'notFound', message: 'host missing is not known', retryable: false, subject: 'mf.power' });
  t.is(service.stats.served, 1);
});

test('rpc - a handler that throws gets an internal error reply and the service goes on', async (t) => {
  const bus = createMemoryTransport();
  const service = powerService(bus);
  const error = await t.throwsAsync(call(bus, 'mf.power', { host: 'buggy', power: 'on' }, PowerReply, { timeoutMs: 1_000 }), { instanceOf: RemoteError });
  t.like(error, { kind: 'internal', message: 'mf.power: handler bug', retryable: false });
  t.is(service.stats.failed, 1);
  t.true((await call(bus, 'mf.power', { host: 'h2', power: 'off' }, PowerReply, { timeoutMs: 1_000 })).host === 'h2');
});

test('rpc - a request of the wrong shape is refused naming the subject and the field', async (t) => {
  const bus = createMemoryTransport();
  const service = powerService(bus);
  const reply = await rawRequest(bus, 'mf.power', encode({ host: 'h1', power: 'sideways' }));
  t.false(reply.ok);
  if (reply.ok) return;
  t.is(reply.error.kind, 'invalidMessage');
  t.regex(reply.error.message, /^mf\.power: invalid message at power:/);
  t.is(service.stats.rejected, 1);
  t.is(service.stats.served, 0);
});

test('rpc - bytes that are not MessagePack and oversized requests are refused', async (t) => {
  const bus = createMemoryTransport();
  const service = powerService(bus, 'mf.power', 256);
  const junk = await rawRequest(bus, 'mf.power', Uint8Array.of(0xc1));
  t.like(junk, { ok: false, error: { kind: 'invalidMessage' } });
  const big = await rawRequest(bus, 'mf.power', encode({ host: 'x'.repeat(300), power: 'on' }));
  t.like(big, { ok: false, error: { kind: 'tooLarge' } });
  t.regex(big.ok ? '' : big.error.message, /^mf\.power: request of \d+ bytes is over the limit of 256 bytes$/);
  t.is(service.stats.rejected, 2);
});

test('rpc - a reply the caller cannot read is an invalidMessage BusError', async (t) => {
  const bus = createMemoryTransport();
  serve(bus, 'mf.odd', PowerRequest, async () => ok({ host: 7 }));
  const error = await t.throwsAsync(call(bus, 'mf.odd', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 1_000 }), { instanceOf: BusError });
  t.is(error?.kind, 'invalidMessage');
  t.regex(error?.message ?? '', /value\.host/);
});

test('rpc - a reply too large for the bus becomes a tooLarge error reply', async (t) => {
  const bus = createMemoryTransport({ maxPayload: 1024 });
  serve(bus, 'mf.huge', PowerRequest, async () => ok({ host: 'x'.repeat(2_000), accepted: true }));
  const error = await t.throwsAsync(call(bus, 'mf.huge', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 1_000 }), { instanceOf: RemoteError });
  t.is(error?.kind, 'tooLarge');
});

test('rpc - bus failures reach the caller as BusError', async (t) => {
  const bus = createMemoryTransport();
  const error = await t.throwsAsync(call(bus, 'mf.nobody', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 200 }), { instanceOf: BusError });
  t.is(error?.kind, 'noResponders');
});

test('rpc - with retry, a call waits out a service that is still starting', async (t) => {
  const net = createMemoryBus();
  const [client, server] = [net.connect('client'), net.connect('server')];
  let attempts = 0;
  const counting = client.request.bind(client);
  client.request = (subject, data, options) => {
    attempts++;
    // The service comes up after the third refusal.
    if (attempts === 3) powerService(server);
    return counting(subject, data, options);
  };
  const value = await call(client, 'mf.power', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 500, deadlineMs: 5_000, retry: true });
  t.is(value.host, 'h');
  t.is(attempts, 3, 'two refusals, then the answer');
});

test('rpc - with retry, remote errors marked retryable are retried, others are not', async (t) => {
  const bus = createMemoryTransport();
  let busy = 2;
  let refusals = 0;
  serve(bus, 'mf.busy', PowerRequest, async (req) => {
    if (req.host === 'never') return (refusals++, fail('badImage', 'image checksum mismatch', false));
    return busy-- > 0 ? fail('busy', 'try later', true) : ok({ host: req.host, accepted: true });
  });
  const value = await call(bus, 'mf.busy', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 500, deadlineMs: 5_000, retry: true });
  t.is(value.host, 'h');
  t.is(busy, -1);
  await t.throwsAsync(call(bus, 'mf.busy', { host: 'never', power: 'on' }, PowerReply, { timeoutMs: 500, deadlineMs: 5_000, retry: true }), { instanceOf: RemoteError });
  t.is(refusals, 1);
});

test('rpc - with retry, the last error is thrown once the deadline has passed', async (t) => {
  const bus = createMemoryTransport();
  const started = Date.now();
  const error = await t.throwsAsync(call(bus, 'mf.nobody', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 100, deadlineMs: 400, retry: true }), { instanceOf: BusError });
  t.is(error?.kind, 'noResponders');
  const took = Date.now() - started;
  t.true(took >= 200 && took < 3_000, `took ${took} ms`);
});

test('rpc - drain waits for the handlers already running to reply', async (t) => {
  const bus = createMemoryTransport();
  const gate = deferred();
  let entered = false;
  const service = serve(bus, 'mf.slow', PowerRequest, async (req) => {
    entered = true;
    await gate.promise;
    return ok({ host: req.host, accepted: true });
  });
  const pending = call(bus, 'mf.slow', { host: 'h', power: 'on' }, PowerReply, { timeoutMs: 5_000 });
  await waitFor(() => entered, 2_000, 'handler entered');
  let drained = false;
  const draining = service.drain().then(() => (drained = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.false(drained, 'drain waits for the running handler');
  gate.resolve();
  await draining;
  t.is((await pending).host, 'h');
});

test('rpc - 10,000 malformed requests over NATS each get an error reply, then a valid one is served', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const [client, node] = [await connectNats({ servers: server.url, name: 'fuzzer' }), await connectNats({ servers: server.url, name: 'node' })];
  t.teardown(() => Promise.all([client.close(), node.close()]).then(() => undefined));
  const service = powerService(node, 'mf.power', 512);
  await call(client, 'mf.power', { host: 'warmup', power: 'on' }, PowerReply, { timeoutMs: 500, deadlineMs: 5_000, retry: true });

  const wrongShapes = [{ host: 42, power: 'on' }, { power: 'on' }, 'a string', [1, 2, 3], { host: 'h', power: 'maybe' }, null];
  const makeBad = (i: number): { data: Uint8Array; kind: string } => {
    if (i % 3 === 0) return { data: randomBytes(1 + (i % 200)), kind: 'invalidMessage' };
    if (i % 3 === 1) return { data: encode(wrongShapes[i % wrongShapes.length]), kind: 'invalidMessage' };
    return { data: randomBytes(513 + (i % 1000)), kind: 'tooLarge' };
  };
  const wrongKinds: string[] = [];
  const total = 10_000;
  const batch = 500;
  for (let start = 0; start < total; start += batch) {
    await Promise.all(Array.from({ length: batch }, async (_, j) => {
      const bad = makeBad(start + j);
      const reply = await rawRequest(client, 'mf.power', bad.data);
      if (reply.ok || reply.error.kind !== bad.kind) wrongKinds.push(`${start + j}: ${JSON.stringify(reply)}`);
    }));
  }
  t.deepEqual(wrongKinds.slice(0, 5), []);
  t.is(service.stats.rejected, total);
  t.deepEqual(await call(client, 'mf.power', { host: 'after', power: 'off' }, PowerReply, { timeoutMs: 2_000 }), { host: 'after', accepted: false });
  t.is(service.stats.served, 2);
});

test('rpc - a JetStream delivery pushed onto a request subject is refused unread, audited and never answered', async (t) => {
  // A stranger's push consumer aims stream records at a service subject (nats-server cannot refuse
  // the deliver subject): the service must not run the handler on it nor acknowledge it.
  let handled = 0;
  const unread: Array<{ code: string; sender: string; size: number }> = [];
  let deliver: ((msg: { subject: string; data: Uint8Array; reply?: string; respond(data: Uint8Array): boolean }) => void) | undefined;
  const transport = {
    ...createMemoryTransport(),
    subscribe: (_subject: string, handler: NonNullable<typeof deliver>) => {
      deliver = handler;
      return { unsubscribe: () => undefined, drain: async () => undefined };
    },
  } as Transport;
  const service = serve(transport, 'mf.power', PowerRequest, async () => {
    handled += 1;
    return ok({ host: 'h1', accepted: true });
  }, { onUnread: async (r) => { unread.push({ code: r.code, sender: r.sender, size: r.size }); } });
  const responded: Uint8Array[] = [];
  const body = encode({ host: 'h1', power: 'on' });
  deliver?.({ subject: 'mf.power', data: body, reply: '$JS.ACK.mf-audit.sniff.1.7.7.1700000000000000000.0', respond: (d) => { responded.push(d); return true; } });
  await service.drain();
  t.is(handled, 0);
  t.deepEqual(responded, []);
  t.deepEqual(unread, [{ code: 'streamDelivery', sender: 'consumer mf-audit/sniff', size: body.length }]);
  t.is(service.stats.rejected, 1);
  // The same body as a client's request is served.
  deliver?.({ subject: 'mf.power', data: body, reply: '_INBOX_operator.abc', respond: (d) => { responded.push(d); return true; } });
  await service.drain();
  t.is(handled, 1);
  t.is(responded.length, 1);
});
