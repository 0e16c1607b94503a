import test from 'ava';
import { ask, stop } from '../../src/actors/runtime/index.ts';
import type { CapacityFigures, CapacityMsg } from '../../src/actors/capacity/index.ts';
import { inUse, overGrant, poolKey, poolOfKey, type PoolRecord } from '../../src/actors/capacity/cluster/index.ts';
import { believersWithoutGrant, harness, type Harness, type Holder } from './capacity-cluster-harness.ts';

const poolKeyCases = ['fixture:default', 'ironic:http://127.0.0.1:6385', 'maas:https://maas.example/MAAS/', 'a_b.c', 'ünïcode:池', '-'];
const emptyRecordFor = (pool: string, limit: number): PoolRecord => ({ v: 1, pool, limit, epoch: 0, grants: [] });

async function withHarness(t: { teardown(fn: () => void): void }, limit: number): Promise<Harness> {
  const h = await harness({ limit });
  t.teardown(() => h.stop());
  return h;
}

/** Brokers A and B (A elected with epoch 1) and proxies on node-1 and node-2, settled. */
async function twoBrokers(t: { teardown(fn: () => void): void }, limit: number) {
  const h = await withHarness(t, limit);
  const a = h.broker('broker-a');
  const b = h.broker('broker-b');
  a.leadership.elect(1);
  const p1 = h.proxy('node-1');
  const p2 = h.proxy('node-2');
  await h.settle();
  return { h, a, b, p1, p2 };
}

test('capacity cluster - pool names encode reversibly into one valid KV key token', (t) => {
  for (const pool of poolKeyCases) {
    const key = poolKey(pool);
    t.regex(key, /^pool\.[A-Za-z0-9_-]+$/, pool);
    t.is(poolOfKey(key), pool);
  }
  t.is(poolKey('fixture:default'), 'pool.fixture_3Adefault');
  t.is(poolOfKey('pool.a_ZZ'), null);
  t.is(poolOfKey('other.x'), null);
});

test('capacity cluster - a write that adds grants beyond the limit is refused, a lowered limit revokes nothing', (t) => {
  const now = 1_000;
  const g = (id: string, exempt = false, expiresAt = 5_000) => ({ grantId: id, holder: `h-${id}`, node: 'n1', operation: 'provisioning', exempt, brokerEpoch: 1, grantedAt: 0, expiresAt });
  const base = { ...emptyRecordFor('p', 2), grants: [g('a'), g('b', true), g('old', false, 900)] };
  t.is(inUse(base, now), 1);
  t.is(overGrant(base, { ...base, grants: [...base.grants, g('c')] }, now), null);
  t.truthy(overGrant(base, { ...base, grants: [...base.grants, g('c'), g('d')] }, now));
  t.is(overGrant(base, { ...base, grants: [...base.grants, g('x', true), g('y', true)] }, now), null, 'exempt grants do not count');
  t.truthy(overGrant({ ...base, grants: [g('a'), g('c')] }, { ...base, grants: [g('a'), g('c'), { ...g('old'), expiresAt: 9_000 }] }, now), 'a lapsed grant cannot be revived over the limit');
  const full = { ...base, limit: 1, grants: [g('a'), g('c')] };
  t.is(overGrant(full, { ...full, grants: [g('a'), { ...g('c'), expiresAt: 9_000 }] }, now), null, 'renewing over a lowered limit is fine');
});

test('capacity cluster - limit 3 across two proxies: never more than 3, FIFO, and a release wakes the next waiter by push', async (t) => {
  const h = await withHarness(t, 3);
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const p1 = h.proxy('node-1');
  const p2 = h.proxy('node-2');
  await h.settle();
  const holders: Holder[] = [];
  for (let i = 0; i < 10; i++) {
    const x = h.holder(i % 2 === 0 ? p1 : p2, `default/host-${i}`);
    holders.push(x);
    x.acquire();
    await h.settle();
  }
  t.deepEqual(holders.map((x) => x.state), ['granted', 'granted', 'granted', ...Array(7).fill('queued')]);
  t.deepEqual(holders.slice(3).map((x) => (x.heard.at(-1) as { position: number }).position), [1, 2, 3, 4, 5, 6, 7]);
  t.is((await h.record())?.grants.length, 3);

  const order: string[] = holders.filter((x) => x.state === 'granted').map((x) => x.key);
  const start = h.clock.now();
  while (order.length < holders.length) {
    const releasing = holders.find((x) => x.key === order[order.length - 3]);
    releasing!.release();
    await h.settle();
    const now = holders.filter((x) => x.state === 'granted');
    t.true(now.length <= 3);
    for (const x of now) if (!order.includes(x.key)) order.push(x.key);
    t.deepEqual(believersWithoutGrant(await h.record(), holders, h.clock.now()), []);
  }
  // The clock never moved: every waiter was woken by the push of a release, not by a poll.
  t.is(h.clock.now(), start);
  t.deepEqual(order, holders.map((x) => x.key), 'granted in the order asked');
  t.deepEqual(h.violations, []);
  t.true(h.versions.every((r) => r.grants.filter((g) => !g.exempt).length <= 3));
});

test('capacity cluster - a new broker resumes persisted grants, waiters are re-sent, and the limit holds', async (t) => {
  const { h, a, b, p1, p2 } = await twoBrokers(t, 3);
  const holders = Array.from({ length: 5 }, (_, i) => h.holder(i % 2 === 0 ? p1 : p2, `default/host-${i}`));
  for (const x of holders) {
    x.acquire();
    // A moment apart, so the queue order is by time and must survive the failover.
    await h.advance(10);
  }
  const before = await h.record();
  t.deepEqual(before?.grants.map((g) => g.holder), holders.slice(0, 3).map((x) => x.key));

  a.leadership.depose('lease lost');
  t.is(a.broker.epoch, null);
  b.leadership.elect(2);
  await h.settle();
  const resumed = await h.record();
  t.is(resumed?.epoch, 2);
  t.deepEqual(resumed?.grants.map((g) => g.grantId), before?.grants.map((g) => g.grantId), 'the same grants, resumed');
  t.true(resumed!.grants.every((g) => g.expiresAt >= h.clock.now() + h.ttlMs));

  // Two TTLs pass: the holders renew against the new broker and keep their slots.
  await h.advance(2 * h.ttlMs);
  t.deepEqual(holders.map((x) => x.state), ['granted', 'granted', 'granted', 'queued', 'queued']);
  const figures = await ask<CapacityMsg, CapacityFigures>(p1, (reply) => ({ type: 'figures', reply }), 5_000);
  t.is(figures.pools[0]?.waiting, 2, 'the waiters were re-sent to the new broker');
  t.is(figures.pools[0]?.inUse, 3);

  holders[0]!.release();
  await h.settle();
  t.is(holders[3]!.state, 'granted');
  t.is(holders[4]!.state, 'queued');
  t.deepEqual(believersWithoutGrant(await h.record(), holders, h.clock.now()), []);
  t.deepEqual(h.violations, []);
});

test('capacity cluster - a new broker announces itself: the waiters are re-sent at once, and a slot freed right after the failover goes to the next of them without waiting for a renew', async (t) => {
  const { h, a, b, p1, p2 } = await twoBrokers(t, 3);
  const holders = Array.from({ length: 5 }, (_, i) => h.holder(i % 2 === 0 ? p1 : p2, `default/host-${i}`));
  for (const x of holders) {
    x.acquire();
    await h.advance(10);
  }
  a.leadership.depose('lease lost');
  b.leadership.elect(2);
  // No time passes: the waiters were queued in the old broker's memory only, and their proxies
  // used to hear of the new one at their next renew (a sixth of the TTL), the freed slot idle.
  await h.settle();
  const figures = await ask<CapacityMsg, CapacityFigures>(p1, (reply) => ({ type: 'figures', reply }), 5_000);
  t.is(figures.pools[0]?.waiting, 2, 'both waiters queued at the new broker');
  holders[0]!.release();
  await h.settle();
  t.deepEqual(holders.map((x) => x.state), ['idle', 'granted', 'granted', 'granted', 'queued']);
  t.deepEqual(h.violations, []);
});

test('capacity cluster - a deposed broker that has not noticed cannot push the total over the limit', async (t) => {
  const { h, a, b, p1, p2 } = await twoBrokers(t, 2);
  const holders = Array.from({ length: 6 }, (_, i) => h.holder(i % 2 === 0 ? p1 : p2, `default/host-${i}`));
  holders[0]!.acquire();
  await h.settle();
  // B is elected while A never hears it was deposed: both answer on the queue group, in turn.
  b.leadership.elect(2);
  await h.settle();
  t.is(a.broker.epoch, 1, 'A still believes it serves');
  for (const x of holders.slice(1)) {
    x.acquire();
    await h.settle();
    t.deepEqual(h.violations, []);
    const r = await h.record();
    t.true(inUse(r!, h.clock.now()) <= 2);
  }
  for (const x of holders.slice(0, 4)) {
    x.release();
    await h.settle();
    t.deepEqual(h.violations, []);
    t.true(inUse((await h.record())!, h.clock.now()) <= 2);
    t.deepEqual(believersWithoutGrant(await h.record(), holders, h.clock.now()), []);
  }
  t.is(a.broker.epoch, null, 'A stepped down when it met a record of epoch 2');
  await h.advance(h.ttlMs);
  t.deepEqual(holders.slice(4).map((x) => x.state), ['granted', 'granted'], 'the waiters lost by A were re-sent and granted');
  t.deepEqual(h.violations, []);
});

// Found by the property test: A granted, B (overlapping, epoch 2) took the release, and A answered
// the next acquire from its stale copy, so the holder believed in a grant KV did not have.
test('capacity cluster - an acquire answered by a broker whose copy is stale is confirmed in KV first', async (t) => {
  const { h, a, b, p1, p2 } = await twoBrokers(t, 1);
  b.leadership.elect(2);
  await h.settle();
  const holder = h.holder(p1, 'ns/host-2');
  const other = h.holder(p2, 'ns/host-3');
  for (const step of [() => holder.acquire(), () => holder.release(), () => holder.acquire(), () => other.acquire()]) {
    step();
    await h.advance(10);
    t.deepEqual(h.violations, []);
    t.deepEqual(believersWithoutGrant(await h.record(), [holder, other], h.clock.now()), []);
  }
  t.is(holder.state, 'granted');
  t.is(other.state, 'queued', 'limit 1: the slot is the first holder\'s');
  t.is(a.broker.epoch, null, 'A stepped down when its write met the record of epoch 2');
});

test("capacity cluster - a dead node's grant expires after its TTL and goes to the next waiter", async (t) => {
  const h = await withHarness(t, 1);
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const p1 = h.proxy('node-1');
  const p2 = h.proxy('node-2');
  await h.settle();
  const dead = h.holder(p2, 'default/dead');
  const waiter = h.holder(p1, 'default/waiter');
  dead.acquire();
  await h.settle();
  waiter.acquire();
  await h.settle();
  t.is(waiter.state, 'queued');
  // node-2 dies: its proxy and holder stop; nothing renews the grant any more.
  stop(p2);
  const last = await h.record();
  const deadExpiry = last!.grants.find((g) => g.holder === 'default/dead')!.expiresAt;
  await h.advance(deadExpiry - h.clock.now() - 1);
  t.is(waiter.state, 'queued', 'not before the dead grant lapses');
  await h.advance(h.ttlMs / 4);
  t.is(waiter.state, 'granted');
  const r = await h.record();
  t.deepEqual(r?.grants.map((g) => g.holder), ['default/waiter']);
  t.true(r!.grants[0]!.grantedAt >= deadExpiry);
  t.deepEqual(h.violations, []);
});

test('capacity cluster - a late renew reply for a released grant is not taken as a grant for the holder\'s next request', async (t) => {
  // Issue 19.1: a host ends inspection and releases its slot while a renew of that grant is on
  // its way back; it then asks for a slot to provision. The late "renewed" must not grant it:
  // the broker has given the released slot to the next waiter.
  const h = await withHarness(t, 1);
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const p1 = h.proxy('node-1', { holdReplies: new Set(['renew']) });
  const p2 = h.proxy('node-2');
  await h.settle();
  const host = h.holder(p1, 'default/host');
  const next = h.holder(p2, 'default/next');
  host.acquire();
  await h.settle();
  t.is(host.state, 'granted');
  next.acquire();
  await h.settle();
  t.is(next.state, 'queued');
  // The proxy's renew of the host's grant reaches the broker; its reply is late.
  await h.advance(Math.ceil(h.ttlMs / 6) + 1);
  t.true(h.held.some((x) => x.node === 'node-1' && x.type === 'renew'), 'a renew reply is held');
  host.release();
  await h.settle();
  t.is(next.state, 'granted', 'the released slot went to the waiter');
  host.acquire();
  await h.settle();
  t.is(host.state, 'queued');
  h.deliverHeld();
  await h.settle();
  t.is(host.state, 'queued', 'the late renew reply did not grant the new request');
  t.deepEqual([host, next].filter((x) => x.state === 'granted').map((x) => x.key), ['default/next']);
  t.deepEqual(believersWithoutGrant(await h.record(), [host, next], h.clock.now()), []);
  t.deepEqual(h.violations, []);
});
