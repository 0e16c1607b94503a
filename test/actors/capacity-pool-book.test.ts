import test from 'ava';
import { PoolBook, UNLIMITED } from '../../src/actors/capacity/index.ts';

const IRONIC = 'ironic:http://127.0.0.1:6385';
const MAAS = 'maas:http://maas.example:5240/MAAS';
const t0 = 1_000_000;

function book(limits: Record<string, number> = { [IRONIC]: 2 }, ttlMs = 30_000) {
  return new PoolBook<string>({ limits, defaultLimit: 5, ttlMs });
}

test('capacity - grants up to the limit, then queues in arrival order', (t) => {
  const b = book();
  const r = ['h1', 'h2', 'h3', 'h4'].map((h, i) => b.acquire(h, IRONIC, 'provisioning', false, t0 + i));
  t.deepEqual(
    r.map((x) => (x.status === 'granted' ? 'granted' : `queued ${x.position}`)),
    ['granted', 'granted', 'queued 1', 'queued 2'],
  );
  t.is(b.stateOf('h3', IRONIC), 'waiting');
  t.is(b.stateOf('h9', IRONIC), 'none');
});

test('capacity - a freed slot wakes the oldest waiter', (t) => {
  const b = book();
  for (const [i, h] of ['h1', 'h2', 'h3', 'h4', 'h5'].entries()) b.acquire(h, IRONIC, 'inspecting', false, t0 + i);
  const first = b.release('h2', IRONIC, t0 + 100);
  t.is(first.outcome, 'released');
  t.deepEqual(first.granted.map((g) => g.holder), ['h3']);
  const g = first.granted[0]!;
  t.is(g.grantedAt - g.requestedAt, 98);
  t.is(g.expiresAt, t0 + 100 + 30_000);
  t.is(g.operation, 'inspecting');
  t.deepEqual(b.release('h1', IRONIC, t0 + 200).granted.map((x) => x.holder), ['h4']);
  t.deepEqual(b.release('h3', IRONIC, t0 + 300).granted.map((x) => x.holder), ['h5']);
  t.deepEqual(b.release('h4', IRONIC, t0 + 400).granted, []);
});

test('capacity - a repeated acquire keeps the grant or the queue place', (t) => {
  const b = book();
  const a1 = b.acquire('h1', IRONIC, 'provisioning', false, t0);
  b.acquire('h2', IRONIC, 'provisioning', false, t0);
  b.acquire('h3', IRONIC, 'provisioning', false, t0 + 1);
  b.acquire('h4', IRONIC, 'provisioning', false, t0 + 2);
  b.acquire('h5', IRONIC, 'provisioning', false, t0 + 3);
  const a2 = b.acquire('h1', IRONIC, 'provisioning', false, t0 + 10);
  t.true(a1.status === 'granted' && a2.status === 'granted' && a2.repeated);
  if (a1.status !== 'granted' || a2.status !== 'granted') return;
  t.is(a2.grant.grantId, a1.grant.grantId);
  t.is(a2.grant.expiresAt, t0 + 10 + 30_000, 'asking again proves the holder alive');
  t.like(b.acquire('h4', IRONIC, 'provisioning', false, t0 + 11), { status: 'queued', position: 2, repeated: true });
  t.like(b.acquire('h3', IRONIC, 'provisioning', false, t0 + 12), { status: 'queued', position: 1, repeated: true });
  t.like(b.acquire('h5', IRONIC, 'provisioning', false, t0 + 13), { status: 'queued', position: 3, repeated: true });
  const f = b.figures(t0 + 20).pools.find((p) => p.pool === IRONIC)!;
  t.is(f.inUse, 2);
  t.deepEqual(f.queue.map((w) => w.holder), ['h3', 'h4', 'h5']);
  t.is(f.longestWaitMs, 19, 'a repeated acquire does not reset the wait');
});

test('capacity - a repeated acquire takes the newest tag and operation', (t) => {
  const b = book({ [IRONIC]: 1 });
  b.acquire('h1', IRONIC, 'inspecting', false, t0, 'old-h1');
  b.acquire('h2', IRONIC, 'inspecting', false, t0, 'old-h2');
  b.acquire('h2', IRONIC, 'provisioning', false, t0, 'new-h2');
  const [g] = b.release('h1', IRONIC, t0 + 5).granted;
  t.like(g, { holder: 'h2', tag: 'new-h2', operation: 'provisioning' });
});

test('capacity - cancelling a waiter keeps the order of the others', (t) => {
  const b = book({ [IRONIC]: 1 });
  for (const h of ['h1', 'h2', 'h3', 'h4']) b.acquire(h, IRONIC, 'deprovisioning', false, t0);
  t.is(b.release('h3', IRONIC, t0).outcome, 'cancelled');
  t.is(b.stateOf('h3', IRONIC), 'none');
  t.like(b.acquire('h4', IRONIC, 'deprovisioning', false, t0), { status: 'queued', position: 2 });
  t.deepEqual(b.release('h1', IRONIC, t0).granted.map((g) => g.holder), ['h2']);
  t.deepEqual(b.release('h2', IRONIC, t0).granted.map((g) => g.holder), ['h4']);
  t.is(b.release('h3', IRONIC, t0).outcome, 'unknown');
  t.is(b.release('h3', 'nowhere', t0).outcome, 'unknown');
});

test('capacity - exempt holders are granted at once, listed, and not counted', (t) => {
  const b = book({ [IRONIC]: 1 });
  b.acquire('h1', IRONIC, 'provisioning', false, t0);
  b.acquire('h2', IRONIC, 'provisioning', false, t0);
  const v = b.acquire('vm1', IRONIC, 'provisioning', true, t0);
  t.like(v, { status: 'granted' });
  const f = b.figures(t0).pools[0]!;
  t.like(f, { inUse: 1, exempt: 1, waiting: 1 });
  t.deepEqual(f.holders.map((h) => [h.holder, h.exempt]), [['h1', false], ['vm1', true]]);
  t.deepEqual(b.release('vm1', IRONIC, t0).granted, [], 'an exempt release frees no counted slot');
  t.like(b.acquire('h2', IRONIC, 'provisioning', true, t0), { status: 'granted', repeated: true });
  t.like(b.figures(t0).pools[0], { inUse: 1, exempt: 1, waiting: 0 });
});

test('capacity - an expired grant is lost and its slot handed on', (t) => {
  const b = book({ [IRONIC]: 1 }, 1_000);
  b.acquire('h1', IRONIC, 'provisioning', false, t0);
  b.acquire('h2', IRONIC, 'provisioning', false, t0 + 10);
  t.is(b.nextExpiry(), t0 + 1_000);
  const early = b.expire(t0 + 999);
  t.deepEqual([early.lost, early.granted], [[], []]);
  const r = b.expire(t0 + 1_000);
  t.deepEqual(r.lost.map((g) => g.holder), ['h1']);
  t.deepEqual(r.granted.map((g) => [g.holder, g.grantedAt - g.requestedAt]), [['h2', 990]]);
  t.is(b.nextExpiry(), t0 + 2_000);
  t.is(b.renew('h1', IRONIC, t0 + 1_001).status, 'unknown');
  t.is(b.release('h1', IRONIC, t0 + 1_001).outcome, 'unknown');
});

test('capacity - renew extends a live grant and refuses an expired one', (t) => {
  const b = book({ [IRONIC]: 2 }, 1_000);
  b.acquire('h1', IRONIC, 'provisioning', false, t0);
  b.acquire('h2', IRONIC, 'provisioning', false, t0);
  b.acquire('h3', IRONIC, 'provisioning', false, t0);
  t.like(b.renew('h1', IRONIC, t0 + 900), { status: 'renewed', grant: { expiresAt: t0 + 1_900 } });
  t.is(b.renew('h3', IRONIC, t0 + 900).status, 'waiting');
  t.is(b.nextExpiry(), t0 + 1_000, 'the unrenewed grant is now the earliest');
  t.is(b.renew('h2', IRONIC, t0 + 1_000).status, 'unknown', 'at expiresAt it is already gone');
  const r = b.expire(t0 + 1_000);
  t.deepEqual(r.lost.map((g) => g.holder), ['h2']);
  t.deepEqual(r.granted.map((g) => g.holder), ['h3']);
  t.is(b.stateOf('h1', IRONIC), 'granted');
  t.deepEqual(b.expire(t0 + 1_899).lost, []);
  t.deepEqual(b.expire(t0 + 1_900).lost.map((g) => g.holder), ['h1']);
});

test('capacity - raising the limit wakes waiters at once, lowering revokes nothing', (t) => {
  const b = book({ [IRONIC]: 1 });
  for (const h of ['h1', 'h2', 'h3', 'h4']) b.acquire(h, IRONIC, 'inspecting', false, t0);
  t.deepEqual(b.setLimit(IRONIC, 3, t0 + 5).map((g) => g.holder), ['h2', 'h3']);
  t.deepEqual(b.setLimit(IRONIC, 1, t0 + 6), []);
  t.like(b.figures(t0 + 6).pools[0], { limit: 1, inUse: 3, waiting: 1 });
  t.deepEqual(b.release('h1', IRONIC, t0 + 7).granted, [], 'drains down to the new limit first');
  t.deepEqual(b.release('h2', IRONIC, t0 + 7).granted, []);
  t.deepEqual(b.release('h3', IRONIC, t0 + 7).granted.map((g) => g.holder), ['h4']);
  t.deepEqual(b.setLimit(IRONIC, 0, t0 + 8), []);
  t.is(b.limitOf(IRONIC), UNLIMITED);
});

test('capacity - 0 and Infinity mean unlimited, nonsense limits are refused', (t) => {
  const b = new PoolBook({ limits: { [IRONIC]: 0, [MAAS]: Infinity }, defaultLimit: 0 });
  for (let i = 0; i < 100; i++) {
    t.is(b.acquire(`h${i}`, IRONIC, 'provisioning', false, t0).status, 'granted');
    t.is(b.acquire(`h${i}`, MAAS, 'deploying', false, t0).status, 'granted');
    t.is(b.acquire(`h${i}`, 'fixture:default', 'provisioning', false, t0).status, 'granted');
  }
  t.throws(() => b.setLimit(IRONIC, -1, t0), { instanceOf: RangeError, message: /limit of pool ironic/ });
  t.throws(() => b.setLimit(IRONIC, 2.5, t0), { instanceOf: RangeError });
  t.throws(() => new PoolBook({ defaultLimit: Number.NaN }), { instanceOf: RangeError, message: /defaultLimit/ });
  t.throws(() => new PoolBook({ defaultLimit: 1, ttlMs: 0 }), { instanceOf: RangeError, message: /ttlMs/ });
});

test('capacity - unknown pools get the default limit, pools are independent', (t) => {
  const b = book({ [IRONIC]: 1 });
  b.acquire('h1', IRONIC, 'provisioning', false, t0);
  t.like(b.acquire('h1', MAAS, 'deploying', false, t0), { status: 'granted' });
  t.like(b.acquire('h2', IRONIC, 'provisioning', false, t0), { status: 'queued', position: 1 });
  t.is(b.limitOf(MAAS), 5);
  t.is(b.limitOf('never:seen'), 5);
});

test('capacity - figures show in-use, waiting and the longest wait', (t) => {
  const b = book({ [IRONIC]: 5 });
  for (let i = 0; i < 20; i++) b.acquire(`h${i}`, IRONIC, i % 2 ? 'inspecting' : 'provisioning', false, t0 + i * 10);
  b.acquire('vm', MAAS, 'deploying', true, t0);
  const f = b.figures(t0 + 1_000);
  const ironic = f.pools.find((p) => p.pool === IRONIC)!;
  t.like(ironic, { limit: 5, inUse: 5, exempt: 0, waiting: 15, longestWaitMs: 1_000 - 50 });
  t.deepEqual(ironic.holders.map((h) => h.holder), ['h0', 'h1', 'h2', 'h3', 'h4']);
  t.deepEqual(ironic.holders[1], { holder: 'h1', operation: 'inspecting', grantId: ironic.holders[1]!.grantId, exempt: false, sinceMs: 990 });
  t.deepEqual(ironic.queue[0], { holder: 'h5', operation: 'inspecting', waitingMs: 950 });
  t.is(ironic.queue.at(-1)!.holder, 'h19');
  t.deepEqual(f.totals, { pools: 2, inUse: 5, exempt: 1, waiting: 15, longestWaitMs: 950 });
  t.deepEqual(b.summary(), { pools: 2, inUse: 5, exempt: 1, waiting: 15 });
});

test('capacity - grant ids are unique and carry the prefix', (t) => {
  const b = new PoolBook({ defaultLimit: 1, idPrefix: 'b7-' });
  const ids = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const r = b.acquire('h', IRONIC, 'provisioning', false, t0 + i);
    if (r.status === 'granted') ids.add(r.grant.grantId);
    b.release('h', IRONIC, t0 + i);
  }
  t.is(ids.size, 50);
  t.true([...ids].every((id) => id.startsWith('b7-')));
});
