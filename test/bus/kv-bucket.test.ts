// One contract for both KvBucket implementations: what leases, membership, the NATS store and the
// capacity grants rely on. The memory bucket must behave as JetStream KV on server 2.9 does.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import type { KV } from '@nats-io/kv';
import { NatsBucket, openNatsKv, type SubjectLister } from '../../src/bus/nats-kv.ts';
import type { KvBucket, KvEvent } from '../../src/ports/index.ts';
import { KvConflict, KvUnavailable } from '../../src/ports/index.ts';
import { startNatsServer, type NatsServer } from '../support/nats-server.ts';
import { waitFor } from '../support/wait.ts';

let server: NatsServer;
let nc: NatsConnection;
let n = 0;
test.before(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
test.after.always(async () => {
  await nc?.close();
  await server?.dispose();
});

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);

type Open = (ttlMs?: number) => Promise<KvBucket>;
const impls: Array<[string, Open]> = [
  ['memory', async (ttlMs) => new MemoryKvStore().bucket(`b${n++}`, ttlMs ? { ttlMs } : {})],
  ['nats', (ttlMs) => openNatsKv(nc, `b${n++}`, ttlMs ? { ttlMs } : {})],
];

for (const [name, open] of impls) {
  test(`${name}: create is create-if-absent and update is compare-and-set by revision`, async (t) => {
    const kv = await open();
    const r1 = await kv.create('shard.1', bytes('a'));
    await t.throwsAsync(kv.create('shard.1', bytes('b')), { instanceOf: KvConflict });
    const r2 = await kv.update('shard.1', bytes('c'), r1);
    t.true(r2 > r1);
    await t.throwsAsync(kv.update('shard.1', bytes('d'), r1), { instanceOf: KvConflict });
    t.is(text((await kv.get('shard.1'))?.value), 'c');
  });

  test(`${name}: keys lists each key once, also while keys are being written (heartbeats)`, async (t) => {
    const kv = await open();
    for (let i = 0; i < 50; i++) await kv.put(`member.n${i}`, bytes('hb'));
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i = (i + 1) % 50) await kv.put(`member.n${i}`, bytes(`hb-${i}`));
    })();
    try {
      for (let round = 0; round < 30; round++) {
        const keys = await kv.keys('member.*');
        t.is(new Set(keys).size, keys.length, `round ${round}: ${keys.length} keys, ${new Set(keys).size} distinct`);
        t.is(new Set(keys).size, 50);
      }
    } finally {
      writing = false;
      await writer;
    }
  });

  test(`${name}: a revision-guarded delete refuses a stale revision, and the key can be created again with a higher revision`, async (t) => {
    const kv = await open();
    const r1 = await kv.create('k', bytes('a'));
    const r2 = await kv.update('k', bytes('b'), r1);
    await t.throwsAsync(kv.delete('k', { revision: r1 }), { instanceOf: KvConflict });
    await kv.delete('k', { revision: r2 });
    t.is(await kv.get('k'), null);
    const r3 = await kv.create('k', bytes('c'));
    t.true(r3 > r2, 'a later tenure always has a higher revision (the lease epoch)');
  });

  test(`${name}: keys and watch follow NATS wildcards; watch replays current values, then changes`, async (t) => {
    const kv = await open();
    await kv.put('node.a', bytes('1'));
    await kv.put('shard.1', bytes('x'));
    const seen: KvEvent[] = [];
    let ready = false;
    const stop = await kv.watch({ key: 'node.*', onEvent: (e) => seen.push(e), onReady: () => { ready = true; } });
    await waitFor(() => ready, 5_000, 'watch ready');
    t.deepEqual(seen.map((e) => `${e.op}:${e.key}`), ['put:node.a']);
    await kv.put('node.b', bytes('2'));
    await kv.delete('node.a');
    await kv.put('shard.2', bytes('y'));
    await waitFor(() => seen.length === 3, 5_000, 'two more node events');
    t.deepEqual(seen.map((e) => `${e.op}:${e.key}`), ['put:node.a', 'put:node.b', 'delete:node.a']);
    t.deepEqual((await kv.keys('node.*')).sort(), ['node.b']);
    stop();
  });
}

test('memory: the bucket TTL expires entries silently, as server 2.9 does', async (t) => {
  let now = 0;
  const kv = new MemoryKvStore({ now: () => now }).bucket('ttl', { ttlMs: 1_000 });
  const seen: KvEvent[] = [];
  await kv.watch({ onEvent: (e) => seen.push(e) });
  await kv.put('lease', bytes('a'));
  await waitFor(() => seen.length === 1);
  now = 999;
  t.truthy(await kv.get('lease'));
  now = 1_000;
  t.is(await kv.get('lease'), null);
  await kv.create('lease', bytes('b'));
  t.deepEqual(seen.map((e) => e.op), ['put', 'put'], 'no delete event for the expiry');
});

test('memory: watch events of a burst of writes come after the writes, in write order, not to a stopped watch, and a listener\'s own write after them', async (t) => {
  const kv = new MemoryKvStore().bucket('burst');
  const a: string[] = [];
  const b: string[] = [];
  await kv.watch({ onEvent: (e) => {
    a.push(`${e.key}@${e.revision}`);
    // A listener that writes: its write is told after the events being delivered.
    if (e.key === 'k2') void kv.put('k4', bytes('from-listener'));
  } });
  const stopB = await kv.watch({ onEvent: (e) => b.push(`${e.key}@${e.revision}`) });
  await Promise.resolve();
  void kv.put('k1', bytes('1'));
  void kv.put('k2', bytes('2'));
  t.deepEqual(a, [], 'nothing is told inside the writes');
  stopB();
  void kv.put('k3', bytes('3'));
  await waitFor(() => a.length === 4);
  t.deepEqual(a, ['k1@1', 'k2@2', 'k3@3', 'k4@4']);
  t.deepEqual(b, [], 'a stopped watch is told nothing still queued');
});

test('nats: the bucket TTL expires a key, after which another holder can create it', async (t) => {
  const kv = await openNatsKv(nc, 'ttl-real', { ttlMs: 1_000 });
  // Timed from before the write: the key's age is never more than this, however slow the turns
  // between (timed after the conflict, a busy machine's 100 ms there read as an early expiry).
  const started = Date.now();
  await kv.create('lease', bytes('a'));
  await t.throwsAsync(kv.create('lease', bytes('b')), { instanceOf: KvConflict });
  let created = false;
  while (!created && Date.now() - started < 10_000) {
    try {
      await kv.create('lease', bytes('b'));
      created = true;
    } catch (err) {
      if (!(err instanceof KvConflict)) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  t.true(created);
  t.true(Date.now() - started >= 900, 'not before the TTL');
});

test('nats: a key listing the server never answers is given up at its deadline, with the bucket named', async (t) => {
  const never: SubjectLister = () => new Promise<string[]>(() => undefined);
  const bucket = new NatsBucket('mf-members', {} as KV, never, { keysDeadlineMs: 200 });
  const started = performance.now();
  const error = await t.throwsAsync(bucket.keys('node.*'), { instanceOf: KvUnavailable });
  t.is(error!.message, 'kv mf-members: node.*: listing the keys did not finish within 200 ms; try again');
  t.true(performance.now() - started < 5_000);
});

test('nats: keys leaves out keys whose last message is a delete marker', async (t) => {
  const kv = await openNatsKv(nc, `b${n++}`);
  await kv.put('node.a', bytes('1'));
  await kv.put('node.b', bytes('2'));
  await kv.delete('node.a');
  t.deepEqual(await kv.keys('node.*'), ['node.b']);
  t.deepEqual(await kv.keys('shard.*'), []);
});

// The race the client's own listing loses: node.b was pending when the watch began and expired
// before delivery, so node.a (delta 1) is the last entry the replay ever shows.
test('nats: a TTL bucket watch whose last pending key expired undelivered still becomes ready', async (t) => {
  const stream = {
    stopped: false,
    stop() {
      this.stopped = true;
    },
    async *[Symbol.asyncIterator]() {
      yield { key: 'node.a', operation: 'PUT', value: bytes('1'), revision: 1, delta: 1 };
      while (!stream.stopped) await new Promise((r) => setTimeout(r, 20));
    },
  };
  let live = ['node.a', 'node.b'];
  const kv = {
    watch: async () => stream,
    get: async (key: string) => (live.includes(key) ? { key, value: bytes('x'), revision: 1, operation: 'PUT' } : null),
  } as unknown as KV;
  const bucket = new NatsBucket('mf-members', kv, async () => live, { ttlMs: 5_000, catchUpCheckMs: 50 });
  let ready = false;
  const seen: string[] = [];
  const stop = await bucket.watch({ key: 'node.*', onEvent: (e) => seen.push(e.key), onReady: () => { ready = true; } });
  try {
    await new Promise((r) => setTimeout(r, 300));
    t.false(ready, 'not while node.b still has a value that was never delivered');
    live = ['node.a'];
    await waitFor(() => ready, 5_000, 'ready once node.b expired');
    t.deepEqual(seen, ['node.a']);
  } finally {
    stop();
  }
});

// Every node sees every write of the fleet: an entry's operation is read from its headers, which
// the client decodes for it; a value with bytes in it is a put, so only an empty one is asked.
test('nats: a watch reads the operation of an entry only when its value is empty', async (t) => {
  const operationReads: string[] = [];
  const entry = (key: string, value: Uint8Array, revision: number, op: string) => ({
    key, value, revision, delta: 0,
    get operation() {
      operationReads.push(key);
      return op;
    },
  });
  const stream = {
    stop() {},
    async *[Symbol.asyncIterator]() {
      yield entry('node.a', bytes('1'), 1, 'PUT');
      yield entry('node.b', bytes('2'), 2, 'PUT');
      yield entry('node.a', new Uint8Array(0), 3, 'DEL');
      yield entry('node.c', new Uint8Array(0), 4, 'PUT');
    },
  };
  const kv = { watch: async () => stream } as unknown as KV;
  const bucket = new NatsBucket('mf-status', kv, async () => ['node.b']);
  const seen: KvEvent[] = [];
  const stop = await bucket.watch({ onEvent: (e) => seen.push(e) });
  await waitFor(() => seen.length === 4, 5_000, 'four events');
  stop();
  t.deepEqual(seen.map((e) => [e.op, e.key, e.revision]), [['put', 'node.a', 1], ['put', 'node.b', 2], ['delete', 'node.a', 3], ['put', 'node.c', 4]]);
  t.deepEqual(operationReads, ['node.a', 'node.c'], 'only the empty values had their headers read');
});
