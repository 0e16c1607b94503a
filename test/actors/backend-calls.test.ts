// The per-backend bound on calls that hold no slot (issue 30), alone: a FIFO of places per
// backend, slot holders beside it, limits looked up by pool name then kind.
import test from 'ava';
import { BackendCalls, callLimitOf, DEFAULT_CALL_LIMITS } from '../../src/actors/calls/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

const limits = (l: Record<string, number>, defaultLimit = 50) => ({ limits: l, defaultLimit });

test('backend calls - a limit is the pool\'s own, else its kind\'s, else the default', (t) => {
  const l = limits({ ironic: 100, 'ironic:http://b:6385': 7, constructor: 3 }, 40);
  t.is(callLimitOf(l, 'ironic:http://a:6385'), 100);
  t.is(callLimitOf(l, 'ironic:http://b:6385'), 7);
  t.is(callLimitOf(l, 'maas:http://maas:5240/MAAS'), 40);
  t.is(callLimitOf(limits({}, 40), 'toString:x'), 40, 'nothing is read off Object\'s prototype');
  t.is(callLimitOf(DEFAULT_CALL_LIMITS, 'ironic:http://a:6385'), 50);
  t.is(callLimitOf(DEFAULT_CALL_LIMITS, 'fixture:default'), Number.POSITIVE_INFINITY);
});

test('backend calls - never more than the limit run at once; the rest start in arrival order', async (t) => {
  const calls = new BackendCalls(limits({ ironic: 3 }));
  const gates = Array.from({ length: 10 }, () => deferred());
  const started: number[] = [];
  let running = 0;
  let most = 0;
  const all = gates.map((g, i) => calls.run('ironic:http://a', async () => {
    started.push(i);
    most = Math.max(most, ++running);
    await g.promise;
    running -= 1;
    return i;
  }));
  await waitFor(() => started.length === 3);
  t.like(calls.figures()[0], { backend: 'ironic:http://a', limit: 3, inFlight: 3, waiting: 7 });
  // Finish them out of order: whichever ends, the oldest waiter starts next.
  for (const i of [2, 0, 1, 5, 3, 4, 8, 6, 7, 9]) {
    gates[i]!.resolve();
    await new Promise((r) => setImmediate(r));
  }
  t.deepEqual(await Promise.all(all), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  t.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  t.is(most, 3);
  t.like(calls.figures()[0], { inFlight: 0, waiting: 0, maxInFlight: 3, waitedTotal: 7 });
});

test('backend calls - a newcomer never overtakes a waiter (no starvation under a steady stream)', async (t) => {
  const calls = new BackendCalls(limits({ x: 1 }));
  const order: string[] = [];
  const first = deferred();
  const a = calls.run('x:1', async () => { order.push('a'); await first.promise; });
  const b = calls.run('x:1', async () => { order.push('b'); });
  // The place frees and a newcomer arrives before b had a turn to run: the place passed to b.
  first.resolve();
  await a;
  t.like(calls.figures()[0], { inFlight: 1, waiting: 0 });
  const c = calls.run('x:1', async () => { order.push('c'); });
  t.like(calls.figures()[0], { inFlight: 1, waiting: 1 });
  await Promise.all([b, c]);
  t.deepEqual(order, ['a', 'b', 'c']);
});

test('backend calls - a call that throws frees its place', async (t) => {
  const calls = new BackendCalls(limits({ x: 1 }));
  await t.throwsAsync(calls.run('x:1', async () => { throw new Error('boom'); }), { message: 'boom' });
  t.is(await calls.run('x:1', async () => 'next'), 'next');
  t.like(calls.figures()[0], { inFlight: 0, waiting: 0 });
});

test('backend calls - a slot holder\'s call runs at once beside a full bound, and is counted apart', async (t) => {
  const calls = new BackendCalls(limits({ x: 1 }));
  const stuck = deferred();
  void calls.run('x:1', () => stuck.promise);
  void calls.run('x:1', async () => undefined);
  await waitFor(() => calls.figures()[0]?.waiting === 1);
  const holder = deferred();
  let ran = false;
  const held = calls.runHoldingSlot('x:1', async () => { ran = true; await holder.promise; return 'deployed'; });
  t.true(ran, 'the slot holder did not wait for the ungated call that holds the only place');
  t.like(calls.figures()[0], { inFlight: 1, waiting: 1, slotHolderInFlight: 1 });
  holder.resolve();
  t.is(await held, 'deployed');
  t.like(calls.figures()[0], { slotHolderInFlight: 0 });
  stuck.resolve();
});

test('backend calls - no bound (Infinity) never queues; the figures say none', async (t) => {
  const calls = new BackendCalls(limits({ fixture: Number.POSITIVE_INFINITY }));
  const gates = Array.from({ length: 500 }, () => deferred());
  const all = gates.map((g) => calls.run('fixture:default', () => g.promise));
  t.like(calls.figures()[0], { limit: null, inFlight: 500, waiting: 0 });
  for (const g of gates) g.resolve();
  await Promise.all(all);
});

test('backend calls - bad limits are refused naming the backend', (t) => {
  t.throws(() => new BackendCalls(limits({ ironic: 0 })), { message: /call limit of backend "ironic": expected a whole number >= 1 \(or no bound\), got 0/ });
  t.throws(() => new BackendCalls(limits({ maas: 2.5 })), { message: /backend "maas".*got 2\.5/ });
  t.throws(() => new BackendCalls(limits({}, -1)), { message: /default call limit: .*got -1/ });
});

test('backend calls - a pool name\'s userinfo is never shown', async (t) => {
  const calls = new BackendCalls(limits({}));
  await calls.run('ironic:https://admin:s3cret@ironic.lab:6385', async () => undefined);
  t.is(calls.figures()[0]?.backend, 'ironic:https://ironic.lab:6385');
});

test('backend calls - waiters are served by their caller\'s start number, FIFO among equals, thousands at once', async (t) => {
  const calls = new BackendCalls(limits({ x: 1 }));
  const first = deferred();
  const running = calls.run('x:1', () => first.promise, -1);
  const served: Array<[number, number]> = [];
  // Orders drawn at random among 300 callers, several calls each: the heap must keep them sorted.
  let seed = 7;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const all = Array.from({ length: 3_000 }, (_, i) => {
    const order = Math.floor(random() * 300);
    return calls.run('x:1', async () => { served.push([order, i]); }, order);
  });
  t.like(calls.figures()[0], { inFlight: 1, waiting: 3_000 });
  first.resolve();
  await Promise.all([running, ...all]);
  const sorted = [...served].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  t.deepEqual(served, sorted, 'least start number first, then arrival');
  t.like(calls.figures()[0], { inFlight: 0, waiting: 0, waitedTotal: 3_000 });
});

test('backend calls - a host that started first goes on before the first call of one that starts later', async (t) => {
  const calls = new BackendCalls(limits({ x: 1 }));
  const older = calls.startNumber();
  const newer = calls.startNumber();
  t.true(older < newer);
  const order: string[] = [];
  const gate = deferred();
  const a = calls.run('x:1', async () => { order.push('older:register'); await gate.promise; }, older);
  const b = calls.run('x:1', async () => { order.push('newer:register'); }, newer);
  // The older host's next call arrives after the newer host's first call, and goes first.
  const c = calls.run('x:1', async () => { order.push('older:prepare'); }, older);
  // A call without a start number ranks as a caller starting now: after both.
  const d = calls.run('x:1', async () => { order.push('unnumbered'); });
  gate.resolve();
  await Promise.all([a, b, c, d]);
  t.deepEqual(order, ['older:register', 'older:prepare', 'newer:register', 'unnumbered']);
});

test('backend calls - a call that waited agedMs goes before older callers\' calls (no starvation)', async (t) => {
  let now = 0;
  const calls = new BackendCalls(limits({ x: 1 }), () => now, 1_000);
  const order: string[] = [];
  let gate = deferred();
  const a = calls.run('x:1', async () => { await gate.promise; }, 0);
  const late = calls.run('x:1', async () => { order.push('late'); }, 99);
  t.like(calls.figures()[0], { waiting: 1, longestWaitMs: 0 });
  // An older caller keeps calling: while the late call is young it is overtaken.
  const keep = async (label: string): Promise<void> => {
    const g = gate;
    gate = deferred();
    const next = calls.run('x:1', async () => { order.push(label); await gate.promise; }, 0);
    g.resolve();
    await waitFor(() => order.at(-1) === label || order.at(-1) === 'late');
    void next;
  };
  await keep('old-1');
  now = 999;
  await keep('old-2');
  t.like(calls.figures()[0], { waiting: 1, longestWaitMs: 999 });
  now = 1_000;
  // Aged: served before the older caller's new call.
  const old3 = calls.run('x:1', async () => { order.push('old-3'); }, 0);
  gate.resolve();
  await Promise.all([a, late, old3]);
  t.deepEqual(order, ['old-1', 'old-2', 'late', 'old-3']);
});
