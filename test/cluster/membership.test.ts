import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { startMembership } from '../../src/cluster/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { KvUnavailable } from '../../src/ports/index.ts';
import { flush, run } from '../support/manual-time.ts';

const HB = 1_000;
const DEAD = 5_000;

// Writes fail with KvUnavailable while `down` is set; watches keep delivering.
function faultyPut(inner: KvBucket): KvBucket & { down: boolean } {
  const w = Object.create(inner) as KvBucket & { down: boolean };
  w.down = false;
  w.put = async (k, v) => {
    if (w.down) throw new KvUnavailable(inner.name, 'test: bucket unreachable');
    return inner.put(k, v);
  };
  return w;
}

function setup() {
  const clock = createManualClock(0);
  const bucket = new MemoryKvStore(clock).bucket('members', { ttlMs: DEAD });
  const start = (self: string, b: KvBucket = bucket) => startMembership({ bucket: b, self, heartbeatMs: HB, deadAfterMs: DEAD, clock, info: { pid: '1' } });
  return { clock, bucket, start };
}

test('membership - nodes see each other and report changes', async (t) => {
  const { start } = setup();
  const a = await start('a');
  const seen: string[][] = [];
  a.onChange((live) => seen.push([...live]));
  t.deepEqual(a.live(), ['a']);
  const b = await start('b');
  await flush();
  t.deepEqual(a.live(), ['a', 'b']);
  t.deepEqual(b.live(), ['a', 'b']);
  t.deepEqual(seen, [['a', 'b']]);
  await a.stop();
  await b.stop();
});

test('membership - a silent node is dropped by local timers after deadAfterMs, not before', async (t) => {
  const { clock, start } = setup();
  const a = await start('a');
  const b = await start('b');
  await run(clock, 3 * HB);
  await b.stop();
  const stoppedAt = clock.now();
  await run(clock, DEAD - 2 * HB);
  t.deepEqual(a.live(), ['a', 'b']);
  await run(clock, 2 * HB + 100);
  t.deepEqual(a.live(), ['a']);
  t.true(clock.now() - stoppedAt <= DEAD + 100);
  await a.stop();
});

test('membership - leave() deletes the heartbeat so the others drop the node at once', async (t) => {
  const { clock, bucket, start } = setup();
  const a = await start('a');
  const b = await start('b');
  await run(clock, HB);
  await b.leave();
  await flush();
  t.deepEqual(a.live(), ['a']);
  t.is(await bucket.get('node.b'), null);
  await run(clock, 3 * HB);
  t.deepEqual(a.live(), ['a']);
  await a.stop();
});

test('membership - a node that cannot write keeps running, reports unhealthy, and recovers', async (t) => {
  const { clock, bucket, start } = setup();
  const faulty = faultyPut(bucket);
  const a = await start('a');
  const b = await start('b', faulty);
  t.true(b.healthy);
  faulty.down = true;
  await run(clock, HB + 50);
  t.false(b.healthy);
  t.deepEqual(b.live(), ['a', 'b']);
  await run(clock, DEAD);
  t.deepEqual(a.live(), ['a']);
  faulty.down = false;
  await run(clock, HB + 50);
  t.true(b.healthy);
  t.deepEqual(a.live(), ['a', 'b']);
  await a.stop();
  await b.stop();
});

test('membership - settles after one heartbeat round', async (t) => {
  const { clock, start } = setup();
  const a = await start('a');
  let settled = false;
  void a.settled.then(() => (settled = true));
  await run(clock, HB - 100);
  t.false(settled);
  await run(clock, HB);
  t.true(settled);
  await a.stop();
});

test('membership - a peer that joins while a node waits to settle starts the wait again: nodes starting together settle on the view with all of them', async (t) => {
  const { clock, start } = setup();
  const a = await start('a');
  let settledWith: string[] | null = null;
  void a.settled.then(() => (settledWith = a.live()));
  // Three processes started together, each a little slower than the one before (a loaded
  // machine): before, a settled 1.5 heartbeats after its start on [a, b] and took c's shards,
  // to hand them over a moment later, their hosts started and drained twice.
  await run(clock, HB);
  const b = await start('b');
  await run(clock, 900);
  const c = await start('c');
  await run(clock, HB);
  t.is(settledWith, null, 'still waiting: c joined a moment ago');
  await run(clock, HB);
  t.deepEqual(settledWith, ['a', 'b', 'c']);
  for (const m of [a, b, c]) await m.stop();
});

test('membership - a view that keeps changing settles anyway, deadAfterMs after the start', async (t) => {
  const { clock, start } = setup();
  const a = await start('a');
  let settledAt: number | null = null;
  void a.settled.then(() => (settledAt = clock.now()));
  const others = [];
  for (let i = 0; i < 8 && settledAt === null; i++) {
    await run(clock, HB);
    others.push(await start(`n${i}`));
  }
  await run(clock, HB);
  t.not(settledAt, null);
  t.true(settledAt! <= DEAD, `settled at ${settledAt}`);
  for (const o of [a, ...others]) await o.stop();
});

test('membership - a node id that cannot be a key token is refused', async (t) => {
  const { start } = setup();
  await t.throwsAsync(start('a.b'), { instanceOf: RangeError });
});
