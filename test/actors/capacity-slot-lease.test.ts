import test from 'ava';
import { SlotLease } from '../../src/actors/capacity/index.ts';
import type { SlotNotice } from '../../src/actors/capacity/index.ts';
import { harness, POOL } from './capacity-cluster-harness.ts';

test('capacity - a slot lease renews within the TTL while held and stops once released', async (t) => {
  const h = await harness({ limit: 1, ttlMs: 3_000 });
  t.teardown(() => h.stop());
  const broker = h.broker('broker-a');
  broker.leadership.elect(1);
  const proxy = h.proxy('node-1');
  await h.settle();
  let renewals = 0;
  const notices: SlotNotice[] = [];
  const lease = new SlotLease(proxy, 'default/h1', h.clock, h.ttlMs, () => {
    renewals += 1;
    lease.renew();
  });
  lease.request(POOL, 'provisioning', false, (n) => notices.push(n));
  await h.settle();
  t.true(lease.held);
  t.deepEqual(notices.map((n) => n.type), ['slotGranted']);
  const grantId = (notices[0] as Extract<SlotNotice, { type: 'slotGranted' }>).grantId;
  // A third of the TTL at a time: the grant never lapses while the holder lives, well past one TTL.
  await h.advance(5 * (h.ttlMs / 3));
  t.is(renewals, 5);
  t.deepEqual(notices.map((n) => n.type), ['slotGranted']);
  const held = (await h.record())?.grants.find((g) => g.holder === 'default/h1');
  t.is(held?.grantId, grantId);
  t.true(held!.expiresAt > h.clock.now());

  lease.release();
  t.false(lease.held);
  await h.settle();
  t.deepEqual((await h.record())?.grants, []);
  await h.advance(10_000);
  t.is(renewals, 5);
  t.deepEqual(h.violations, []);
});

test('capacity - a release that overtakes its own acquire (releases go first) leaves no grant behind', async (t) => {
  const h = await harness({ limit: 1, ttlMs: 3_000 });
  t.teardown(() => h.stop());
  const broker = h.broker('broker-a');
  broker.leadership.elect(1);
  const proxy = h.proxy('node-1');
  await h.settle();
  const notices: SlotNotice[] = [];
  const lease = new SlotLease(proxy, 'default/h1', h.clock, h.ttlMs, () => lease.renew());
  // In one go, before the proxy has taken either: the release lands first in its mailbox.
  lease.request(POOL, 'provisioning', false, (n) => notices.push(n));
  lease.release();
  await h.settle();
  t.deepEqual(notices, [], 'the overtaken acquire was dropped, not granted');
  t.deepEqual((await h.record())?.grants ?? [], []);
  // The slot is free for the next holder at once.
  const next: SlotNotice[] = [];
  const other = new SlotLease(proxy, 'default/h2', h.clock, h.ttlMs, () => other.renew());
  other.request(POOL, 'provisioning', false, (n) => next.push(n));
  await h.settle();
  t.deepEqual(next.map((n) => n.type), ['slotGranted']);
  // A later request of the same holder is not mistaken for the overtaken one.
  lease.request(POOL, 'provisioning', false, (n) => notices.push(n));
  await h.settle();
  t.deepEqual(notices.map((n) => n.type), ['slotQueued']);
  t.deepEqual(h.violations, []);
});
