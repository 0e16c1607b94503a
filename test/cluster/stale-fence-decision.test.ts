// Issue 30, the pure decision: which refusals give a shard up, and the floor the retake claims above.
import test from 'ava';
import fc from 'fast-check';
import { claimAbove, DEFAULT_STALE_FENCE_POLICY, initialStaleFence, stepStaleFence } from '../../src/cluster/index.ts';
import type { StaleFenceEvent, StaleFencePolicy, StaleFenceState } from '../../src/cluster/index.ts';

const held = (epoch: number): StaleFenceState => stepStaleFence(initialStaleFence, { type: 'acquired', epoch }, 0).state;
const refused = (epoch: number, current: number, by: 'store' | 'backend' = 'store'): StaleFenceEvent => ({ type: 'refused', epoch, current, by });

test('stale fence - one refusal of the held tenure gives the shard up, naming both epochs', (t) => {
  const { state, effects, counted } = stepStaleFence(held(40), refused(40, 57), 1_000);
  t.true(counted);
  t.deepEqual(effects, [{ type: 'giveUp', retake: { epoch: 40, lostTo: 57, by: 'store', at: 1_000 }, refusals: 1 }]);
  t.is(state.epoch, null);
  t.is(state.retakes, 1);
  t.is(claimAbove(state), 58);
});

test('stale fence - a refusal of an earlier tenure, or with none held, changes nothing', (t) => {
  const now = held(80);
  const old = stepStaleFence(now, refused(40, 57), 1_000);
  t.false(old.counted);
  t.deepEqual(old.effects, []);
  t.is(old.state, now);
  const none = stepStaleFence(initialStaleFence, refused(40, 57), 1_000);
  t.deepEqual(none.effects, []);
  t.false(none.counted);
});

test('stale fence - a refusal against a lower epoch is no fence verdict and is not trusted', (t) => {
  const { effects, counted } = stepStaleFence(held(40), refused(40, 12), 1_000);
  t.deepEqual(effects, []);
  t.false(counted);
});

test('stale fence - the same epoch held by another holder is refused too: the retake claims above it', (t) => {
  const { state, effects } = stepStaleFence(held(40), refused(40, 40, 'backend'), 1_000);
  t.is(effects.length, 1);
  t.is(claimAbove(state), 41);
});

test('stale fence - while the tenure is given up, its writes still in flight add no second give-up', (t) => {
  const first = stepStaleFence(held(40), refused(40, 57), 1_000);
  const second = stepStaleFence(first.state, refused(40, 90, 'backend'), 1_010);
  t.deepEqual(second.effects, []);
  t.is(second.state.retakes, 1);
});

test('stale fence - with a threshold, N refusals inside the window give up; older ones fall out of it', (t) => {
  const policy: StaleFencePolicy = { threshold: 3, windowMs: 1_000 };
  let s = held(40);
  const at = (now: number): readonly unknown[] => {
    const step = stepStaleFence(s, refused(40, 57), now, policy);
    s = step.state;
    return step.effects;
  };
  t.deepEqual(at(0), []);
  t.deepEqual(at(500), []);
  // The first has left the window: two inside it.
  t.deepEqual(at(1_200), []);
  t.is(at(1_300).length, 1);
});

test('stale fence - every epoch the bucket shows raises the floor, and a new tenure starts with no refusals', (t) => {
  let s = stepStaleFence(initialStaleFence, { type: 'seen', epoch: 120 }, 0).state;
  s = stepStaleFence(s, { type: 'seen', epoch: 90 }, 0).state;
  t.is(claimAbove(s), 121);
  s = stepStaleFence(s, { type: 'acquired', epoch: 121 }, 0).state;
  t.is(s.epoch, 121);
  t.deepEqual(s.refusedAt, []);
  s = stepStaleFence(s, { type: 'ended' }, 0).state;
  t.is(s.epoch, null);
});

test('stale fence - property: the floor never falls, every give-up is of the held tenure and leaves a floor above what refused it', (t) => {
  const event: fc.Arbitrary<StaleFenceEvent> = fc.oneof(
    fc.record({ type: fc.constant('acquired' as const), epoch: fc.integer({ min: 1, max: 200 }) }),
    fc.record({ type: fc.constant('seen' as const), epoch: fc.integer({ min: 1, max: 200 }) }),
    fc.constant({ type: 'ended' as const }),
    fc.record({ type: fc.constant('refused' as const), epoch: fc.integer({ min: 1, max: 200 }), current: fc.integer({ min: 1, max: 300 }), by: fc.constantFrom('store' as const, 'backend' as const) }),
  );
  fc.assert(fc.property(fc.array(fc.tuple(event, fc.integer({ min: 0, max: 5_000 })), { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (steps, threshold) => {
    let s = initialStaleFence;
    let now = 0;
    for (const [e, dt] of steps) {
      now += dt;
      const before = s;
      const step = stepStaleFence(s, e, now, { ...DEFAULT_STALE_FENCE_POLICY, threshold });
      s = step.state;
      if (s.floor < before.floor) return false;
      for (const effect of step.effects) {
        if (e.type !== 'refused' || before.epoch !== e.epoch) return false;
        if (claimAbove(s) <= e.current || effect.retake.epoch !== e.epoch) return false;
      }
    }
    return true;
  }));
  t.pass();
});
