import test from 'ava';
import { EventAggregator } from '../../src/adapters/kube/event-aggregator.ts';

const event = { namespace: 'lab', kind: 'BareMetalHost', name: 'h1', uid: 'u1', type: 'Warning' as const, reason: 'RegistrationError', message: 'BMC credentials Secret lab/bmc not found' };

test('event aggregation - the same event again within the window counts into the first one', (t) => {
  const agg = new EventAggregator({ windowMs: 60_000 });
  const first = agg.plan(event, 1_000);
  t.is(first.action, 'create');
  t.true(first.name.startsWith('h1.'));
  const again = agg.plan(event, 30_000);
  t.deepEqual([again.action, again.name, again.count], ['patch', first.name, 2]);
  t.is(agg.plan(event, 50_000).count, 3);
});

test('event aggregation - another message or reason, or the window passed, creates a new event', (t) => {
  const agg = new EventAggregator({ windowMs: 60_000 });
  const first = agg.plan(event, 0);
  const other = agg.plan({ ...event, message: 'something else' }, 1);
  t.is(other.action, 'create');
  t.not(other.name, first.name);
  t.is(agg.plan(event, 200_000).action, 'create');
});

test('event aggregation - at most capacity identities are remembered, the least recent forgotten', (t) => {
  const agg = new EventAggregator({ capacity: 2 });
  agg.plan({ ...event, reason: 'a' }, 0);
  agg.plan({ ...event, reason: 'b' }, 1);
  agg.plan({ ...event, reason: 'a' }, 2);
  agg.plan({ ...event, reason: 'c' }, 3);
  t.is(agg.size, 2);
  t.is(agg.plan({ ...event, reason: 'a' }, 4).action, 'patch');
  t.is(agg.plan({ ...event, reason: 'b' }, 5).action, 'create');
});
