import test from 'ava';
import { SlotLease, spawnCapacityBroker } from '../../src/actors/capacity/index.ts';
import type { SlotNotice } from '../../src/actors/capacity/index.ts';
import { createManualClock, startSystem } from '../../src/actors/runtime/index.ts';
import { waitFor } from '../support/wait.ts';

test('capacity - a slot lease renews within the TTL while held and stops once released', async (t) => {
  const clock = createManualClock(0);
  const system = startSystem({ name: 'lease-test', clock });
  const broker = spawnCapacityBroker(system, { limits: { p: 1 }, defaultLimit: 1, ttlMs: 3_000, clock });
  let renewals = 0;
  const notices: SlotNotice[] = [];
  const lease = new SlotLease(broker, 'h1', clock, 3_000, () => {
    renewals += 1;
    lease.renew();
  });
  lease.request('p', 'provision', false, (n) => notices.push(n));
  await waitFor(() => notices.some((n) => n.type === 'slotGranted'), 2_000, 'granted');
  t.true(lease.held);
  // A third of the TTL at a time: the grant never lapses while the holder lives.
  for (let i = 0; i < 5; i++) clock.advance(1_000);
  t.is(renewals, 5);
  t.false(notices.some((n) => n.type === 'slotLost'));
  lease.release();
  t.false(lease.held);
  clock.advance(10_000);
  t.is(renewals, 5);
  // drain() polls on the system clock, a manual one here: stop instead.
  system.stop();
});
