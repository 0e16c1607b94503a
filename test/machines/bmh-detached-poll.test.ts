import test from 'ava';
import type { BmhEffect } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, makeHost, reply, T0, tick } from '../support/bmh.ts';

// reference/bmo.md §0 and §1.7: BMO requeues a detached host on a slow poll ("unmanaged/detached
// poll 10 min"), both when the detach completes and on every later reconcile of it.
const DETACHED = 'baremetalhost.metal3.io/detached';
const image = makeHost().spec.image;
const provisioned = { poweredOn: true, provisioning: { state: 'provisioned' as const, ID: 'n', image } };
const deleted = { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['baremetalhost.metal3.io'] };

const requeues = (effects: readonly BmhEffect[]): number[] => effects.flatMap((e) => (e.type === 'requeue' ? [e.afterMs] : []));

test('bmh detached poll - a completed detach requeues after detachedPollMs', (t) => {
  const s0 = tick(atState('provisioned', { annotations: { [DETACHED]: '' }, status: provisioned }, { detachedPollMs: 600_000 }));
  t.deepEqual(calls(s0.effects), [{ op: 'detach', force: false }]);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.operationalStatus, 'detached');
  t.deepEqual(requeues(s1.effects), [600_000]);
});

test('bmh detached poll - a detached host at rest calls nothing and polls again after detachedPollMs', (t) => {
  const s = tick(atState('provisioned', { annotations: { [DETACHED]: '' }, status: { ...provisioned, operationalStatus: 'detached' } }, { detachedPollMs: 123_000 }), T0 + 5_000);
  t.deepEqual(calls(s.effects), []);
  t.deepEqual(requeues(s.effects), [123_000]);
  // The poll's own tick polls again, at the same pace: no hot loop, no poll lost.
  const again = tick(s.state, T0 + 5_000 + 123_000);
  t.deepEqual(calls(again.effects), []);
  t.deepEqual(requeues(again.effects), [123_000]);
});

test('bmh detached poll - a deleted host detached with deleteAction delay polls after detachedPollMs while it is kept', (t) => {
  const s = tick(atState('provisioned', { ...deleted, annotations: { [DETACHED]: '{"deleteAction":"delay"}' }, status: { ...provisioned, operationalStatus: 'detached' } }, { detachedPollMs: 77_000 }));
  t.is(s.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(calls(s.effects), []);
  t.deepEqual(requeues(s.effects), [77_000]);
});

test('bmh detached poll - an attached host in the same state is not put on the detached poll', (t) => {
  const s = tick(atState('provisioned', { status: provisioned }, { detachedPollMs: 600_000 }));
  t.false(requeues(s.effects).includes(600_000));
});
