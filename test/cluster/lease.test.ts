import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { acquireLease, decodeLeaseValue } from '../../src/cluster/index.ts';
import type { LeaseLostReason, LeaseOptions } from '../../src/cluster/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { KvUnavailable } from '../../src/ports/index.ts';
import { flush, run } from '../support/manual-time.ts';

const TTL = 3_000;

// Every call fails with KvUnavailable while `down` is set, as a node cut off from NATS sees it.
function faulty(inner: KvBucket): KvBucket & { down: boolean } {
  const w = { down: false } as KvBucket & { down: boolean };
  const gate = <A extends unknown[], R>(op: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    if (w.down) throw new KvUnavailable(inner.name, 'test: bucket unreachable');
    return op(...a);
  };
  return Object.assign(w, {
    name: inner.name, ttlMs: inner.ttlMs,
    get: gate(inner.get.bind(inner)), create: gate(inner.create.bind(inner)), update: gate(inner.update.bind(inner)),
    put: gate(inner.put.bind(inner)), delete: gate(inner.delete.bind(inner)), keys: gate(inner.keys.bind(inner)), watch: gate(inner.watch.bind(inner)),
  });
}

function setup() {
  const clock = createManualClock(1_000);
  const raw = new MemoryKvStore(clock).bucket('leases', { ttlMs: TTL });
  const bucket = faulty(raw);
  const lost: Array<{ holder: string; reason: LeaseLostReason; at: number }> = [];
  const opts = (holder: string, extra: Partial<LeaseOptions> = {}): LeaseOptions => ({
    bucket, key: 'broker', holder, ttlMs: TTL, clock, onLost: (reason) => lost.push({ holder, reason, at: clock.now() }), ...extra,
  });
  return { clock, raw, bucket, lost, opts };
}

test('lease - create-if-absent: the second contender gets null, the epoch is the create revision', async (t) => {
  const { raw, opts } = setup();
  const a = await acquireLease(opts('a'));
  t.truthy(a);
  t.is(await acquireLease(opts('b')), null);
  const entry = await raw.get('broker');
  t.is(entry?.revision, a?.epoch);
  t.like(decodeLeaseValue(entry!.value), { holder: 'a', leaseId: a?.leaseId });
});

test('lease - renews by revision every ttl/3 and outlives the TTL many times over', async (t) => {
  const { clock, raw, lost, opts } = setup();
  const a = (await acquireLease(opts('a')))!;
  const epoch = a.epoch;
  await run(clock, TTL * 10);
  t.true(a.held);
  t.deepEqual(lost, []);
  t.is(a.epoch, epoch);
  t.true(a.revision > epoch + 20, `revision ${a.revision}`);
  t.is((await raw.get('broker'))?.revision, a.revision);
  t.true(a.deadline > clock.now());
});

test('lease - self-fences before the server TTL when renews fail', async (t) => {
  const { clock, raw, bucket, lost, opts } = setup();
  const a = (await acquireLease(opts('a')))!;
  await run(clock, 2_000);
  const lastWrite = (await raw.get('broker'))!;
  const writtenAt = decodeLeaseValue(lastWrite.value)!.at;
  bucket.down = true;
  while (lost.length === 0 && clock.now() < writtenAt + 2 * TTL) {
    clock.advance(10);
    await flush();
  }
  // The key still exists on the server when the holder gives up: nobody else can have it yet.
  const keyAtLoss = await raw.get('broker');
  t.deepEqual(lost.map((l) => l.reason), ['expired']);
  t.true(lost[0]!.at < writtenAt + TTL, `lost at ${lost[0]!.at}, server expiry at ${writtenAt + TTL}`);
  t.truthy(keyAtLoss);
  t.false(a.held);
  await run(clock, TTL);
  t.is(lost.length, 1);
});

test('lease - asked for a longer TTL than its bucket keeps keys, it counts on the bucket\'s: cut off, it fences before another holder can take the key', async (t) => {
  // A bucket made by nodes of an older, shorter default keeps its TTL: the server forgets the key
  // after TTL, not after the 3 x TTL this holder was configured with.
  const { clock, raw, bucket, lost, opts } = setup();
  const a = (await acquireLease(opts('a', { ttlMs: 3 * TTL })))!;
  await run(clock, 2_000);
  t.true(a.held);
  bucket.down = true;
  let b = null;
  const giveUpAt = clock.now() + 3 * TTL;
  while (b === null && clock.now() < giveUpAt) {
    clock.advance(10);
    await flush();
    b = await acquireLease(opts('b', { bucket: raw }));
    // The moment the server has forgotten the key and another node holds it, this one must not.
    if (b !== null) t.false(a.held, `a still held its lease when b took the key at ${clock.now()}`);
  }
  t.truthy(b, 'the key expired on the server');
  t.deepEqual(lost.map((l) => `${l.holder}:${l.reason}`), ['a:expired']);
  await b?.release();
});

test('lease - a renew that loses the CAS reports conflict', async (t) => {
  const { clock, raw, lost, opts } = setup();
  const a = (await acquireLease(opts('a')))!;
  await raw.put('broker', new TextEncoder().encode('{"holder":"intruder","leaseId":"x","at":0}'));
  await run(clock, TTL / 3 + 50);
  t.deepEqual(lost.map((l) => l.reason), ['conflict']);
  t.false(a.held);
});

test('lease - release lets another holder acquire at once, with a higher epoch', async (t) => {
  const { lost, opts } = setup();
  const a = (await acquireLease(opts('a')))!;
  await a.release();
  t.false(a.held);
  const b = await acquireLease(opts('b'));
  t.truthy(b);
  t.true(b!.epoch > a.epoch);
  t.deepEqual(lost, []);
});

test('lease - epochs grow across tenures, also after an expiry', async (t) => {
  const { clock, bucket, lost, opts } = setup();
  const epochs: number[] = [];
  for (const holder of ['a', 'b', 'c']) {
    const l = (await acquireLease(opts(holder)))!;
    t.truthy(l);
    epochs.push(l.epoch);
    // Cut this holder off until the server TTL frees the key.
    bucket.down = true;
    await run(clock, TTL + 100);
    bucket.down = false;
    t.false(l.held);
  }
  t.deepEqual([...epochs].sort((x, y) => x - y), epochs);
  t.is(new Set(epochs).size, 3);
  t.deepEqual(lost.map((l) => `${l.holder}:${l.reason}`), ['a:expired', 'b:expired', 'c:expired']);
});

test('lease - renewMs at or above the deadline is refused before anything is written', async (t) => {
  const { raw, opts } = setup();
  await t.throwsAsync(acquireLease(opts('a', { renewMs: TTL })), { instanceOf: RangeError });
  t.is(await raw.get('broker'), null);
});

test('lease - a renew that succeeds only after the holder gave up hands the key back', async (t) => {
  const { clock, raw, lost, opts } = setup();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const slow = Object.create(raw) as KvBucket;
  slow.update = async (k, v, r) => {
    await gate;
    return raw.update(k, v, r);
  };
  const a = (await acquireLease(opts('a', { bucket: slow })))!;
  await run(clock, TTL);
  t.deepEqual(lost.map((l) => l.reason), ['expired']);
  open();
  await flush();
  await flush();
  t.is(await raw.get('broker'), null, 'the late write was deleted, not left to block the key for a TTL');
  t.truthy(await acquireLease(opts('b')));
  t.false(a.held);
});

test('lease - safelyHeld is false once the clock passes the deadline, before the lost timer has run', async (t) => {
  const { clock, opts } = setup();
  const base = opts('a');
  // The process was paused: now() has moved on, and no timer has fired yet.
  let jump = 0;
  const paused = { ...clock, now: () => clock.now() + jump, setTimeout: clock.setTimeout.bind(clock), clearTimeout: clock.clearTimeout.bind(clock) };
  const a = (await acquireLease({ ...base, clock: paused }))!;
  t.true(a.safelyHeld());
  jump = a.deadline - clock.now();
  t.true(a.held, 'the lost timer has not fired');
  t.false(a.safelyHeld());
});

test('lease - its deadline is on the monotonic clock: a wall clock stepped back does not make a lapsed lease safely held', async (t) => {
  const { clock, opts } = setup();
  // Wall time steps back by an hour while monotonic time runs on past the deadline.
  let wallStep = 0;
  let monotonicRun = 0;
  const stepped = {
    now: () => clock.now() + wallStep,
    monotonic: () => clock.now() + monotonicRun,
    setTimeout: clock.setTimeout.bind(clock),
    clearTimeout: clock.clearTimeout.bind(clock),
  };
  const a = (await acquireLease({ ...opts('a'), clock: stepped }))!;
  t.true(a.safelyHeld());
  wallStep = -3_600_000;
  t.true(a.safelyHeld(), 'a wall clock step alone changes nothing');
  monotonicRun = TTL;
  t.false(a.safelyHeld(), 'monotonic time past the deadline ends it, whatever the wall clock says');
});
