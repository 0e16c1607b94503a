import test from 'ava';
import { createMemoryBus, createMemoryTransport } from '../../src/bus/memory-transport.ts';
import { BusError } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';
import { CONTRACT_MAX_PAYLOAD, transportContract } from './transport-contract.ts';

transportContract('memory transport', async () => {
  const bus = createMemoryBus({ maxPayload: CONTRACT_MAX_PAYLOAD });
  const open: { close(): Promise<void> }[] = [];
  return {
    connect: async (name) => {
      const conn = bus.connect(name);
      open.push(conn);
      return conn;
    },
    dispose: async () => {
      await Promise.all(open.map((c) => c.close()));
    },
  };
});

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

test('memory transport - the default limit is 1 MiB, like nats-server', (t) => {
  t.is(createMemoryTransport().maxPayload, 1024 * 1024);
});

test('memory transport - connections on one bus share its KV store', async (t) => {
  const bus = createMemoryBus();
  const [a, b] = [bus.connect('a'), bus.connect('b')];
  const rev = await (await a.kv('leases')).create('shard.1', bytes('a'));
  const seen = await (await b.kv('leases')).get('shard.1');
  t.is(seen?.revision, rev);
  t.is(new TextDecoder().decode(seen?.value), 'a');
});

test('memory transport - separate buses do not hear each other', async (t) => {
  const one = createMemoryTransport();
  const two = createMemoryTransport();
  two.subscribe('x', (m) => m.respond(bytes('two')));
  t.is((await t.throwsAsync(one.request('x', bytes(''), { timeoutMs: 500 }), { instanceOf: BusError }))?.kind, 'noResponders');
});

test('memory transport - closing fails the requests still waiting for a reply', async (t) => {
  const bus = createMemoryBus();
  const [a, b] = [bus.connect('a'), bus.connect('b')];
  b.subscribe('slow', () => undefined);
  const pending = a.request('slow', bytes(''), { timeoutMs: 10_000 });
  await a.close();
  t.is((await t.throwsAsync(pending, { instanceOf: BusError }))?.kind, 'closed');
});

test('memory transport - invalid subjects are refused, wildcards only to subscribe', (t) => {
  const a = createMemoryTransport();
  for (const subject of ['', 'a..b', 'a b', 'a.*', 'a.>']) {
    t.is(t.throws(() => a.publish(subject, bytes('')), { instanceOf: BusError })?.kind, 'invalidMessage', subject);
  }
  t.is(t.throws(() => a.subscribe('a.>.b', () => undefined), { instanceOf: BusError })?.kind, 'invalidMessage');
  t.notThrows(() => a.subscribe('a.*.>', () => undefined));
});

test('memory transport - the handler error hook hears a throwing handler', async (t) => {
  const errors: unknown[] = [];
  const a = createMemoryTransport({ onHandlerError: (error) => errors.push(error) });
  a.subscribe('boom', () => {
    throw new Error('bug');
  });
  a.publish('boom', bytes(''));
  await waitFor(() => errors.length === 1, 2_000, 'hook called');
  t.is((errors[0] as Error).message, 'bug');
});

test('memory transport - a receiver gets its own copy of the bytes', async (t) => {
  const a = createMemoryTransport();
  let got: Uint8Array | null = null;
  a.subscribe('copy', (m) => (got = m.data));
  const data = bytes('original');
  a.publish('copy', data);
  data.fill(0);
  await waitFor(() => got !== null, 2_000, 'delivery');
  t.is(new TextDecoder().decode(got ?? new Uint8Array()), 'original');
});
