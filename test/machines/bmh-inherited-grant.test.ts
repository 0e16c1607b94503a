import test from 'ava';
import { initialState, PAUSED } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, BmhState, OpResult } from '../../src/machines/bmh/index.ts';
import { atState, done, grant, makeHost, reply, settle, T0, tick, types } from '../support/bmh.ts';

// Issue 30.1: a host whose earlier incarnation stopped (its shard moved, its node stopped, its actor
// restarted) may have left a capacity grant in its name that nobody renews. Its next incarnation
// adopts it (asks for its slot: the acquire moves a live grant to it) when its work still runs, or
// gives it back (releaseGrant) once a backend answer shows none runs. Never before that answer: the
// old owner may have started a deploy and stopped before its status said so.

const releases = (effects: readonly BmhEffect[]) => effects.filter((e) => e.type === 'releaseGrant').length;
// As a resumed actor builds it (atState pretends an actor already ran it): no power read made
// yet, and a grant an earlier incarnation may have left.
const resumed = (s: BmhState): BmhState => ({ ...s, powerCheckAt: null, grantInherited: true });

test('bmh inherited grant - a host resumed inside a gated operation adopts the grant: it asks for its slot and releases nothing', (t) => {
  const first = tick(resumed(atState('provisioning')), T0);
  t.true(types(first.effects).includes('requestSlot'));
  t.is(releases(first.effects), 0);
  t.false(first.state.grantInherited, 'settled: the acquire adopts');
  // The deploy ends: the slot goes back as any slot does (releaseSlot), never as an inherited one.
  const { all } = settle(first);
  t.true(all.some((e) => e.type === 'releaseSlot'));
  t.is(releases(all), 0);
});

test('bmh inherited grant - a registered host waiting for inspection adopts after registering again', (t) => {
  const first = tick(resumed(atState('registering')), T0);
  t.is(releases(first.effects), 0);
  const registered = reply(first, done, T0 + 5);
  t.deepEqual(registered.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'inspect' }]);
  t.is(releases(registered.effects), 0);
  t.false(registered.state.grantInherited);
});

test('bmh inherited grant - a host resumed at rest gives the grant back after its first backend answer, not before', (t) => {
  const first = tick(resumed(atState('provisioned', { status: { poweredOn: true } })), T0);
  t.deepEqual(types(first.effects).filter((x) => x === 'call'), ['call'], 'reads the backend first');
  t.is(releases(first.effects), 0, 'nothing released before the backend was read');
  t.true(first.state.grantInherited);
  const answered = reply(first, { kind: 'done', poweredOn: true }, T0 + 5);
  t.is(releases(answered.effects), 1);
  t.false(answered.state.grantInherited);
  const later = tick(answered.state, T0 + 120_000);
  t.is(releases(later.effects), 0, 'given back once');
});

test('bmh inherited grant - an available host with nothing to deploy gives it back after its power read', (t) => {
  const first = tick(resumed(atState('available', { spec: { image: undefined } })), T0);
  t.is(releases(first.effects), 0);
  t.is(releases(reply(first, { kind: 'done', poweredOn: false }, T0 + 5).effects), 1);
});

test('bmh inherited grant - an answer that read nothing (transient, missing Secret) leaves the decision to the next one', (t) => {
  const first = tick(resumed(atState('provisioned')), T0);
  const transient = reply(first, { kind: 'transient', message: 'connection refused' } as OpResult, T0 + 5);
  t.is(releases(transient.effects), 0);
  t.true(transient.state.grantInherited);
  const again = tick(transient.state, T0 + 60_000);
  t.is(releases(again.effects), 0, 'still waiting for an answer');
  t.is(releases(reply(again, { kind: 'done', poweredOn: false }, T0 + 60_005).effects), 1);
});

test('bmh inherited grant - a failed call is an answer too: the backend was read', (t) => {
  const first = tick(resumed(atState('provisioned')), T0);
  const failed = reply(first, { kind: 'failed', message: 'BMC said no' }, T0 + 5);
  t.is(releases(failed.effects), 1);
});

test('bmh inherited grant - a host deleted at rest gives it back', (t) => {
  const first = tick(resumed(atState('available', { spec: { image: undefined }, deletionTimestamp: new Date(T0).toISOString() })), T0);
  const { last, all } = settle(first);
  t.true(last.state.gone);
  t.is(releases(all), 1);
});

test('bmh inherited grant - a host with nothing to ask the backend (unmanaged) gives it back at once', (t) => {
  const s = tick(resumed(atState('unmanaged', { spec: { bmc: undefined } })), T0);
  t.is(releases(s.effects), 1);
});

test('bmh inherited grant - a paused host gives it back, as pausing gives a slot back', (t) => {
  const s = tick(resumed(atState('provisioning', { annotations: { [PAUSED]: '' } })), T0);
  t.is(releases(s.effects), 1);
  t.false(types(s.effects).includes('call'));
});

test('bmh inherited grant - a host read with a state an earlier controller wrote may hold an inherited grant', (t) => {
  t.true(initialState(makeHost({ status: { provisioning: { state: 'provisioned', ID: 'n' } } })).grantInherited);
});

test('bmh inherited grant - a host no controller looked at yet has nothing to give back', (t) => {
  const s = initialState(makeHost());
  t.false(s.grantInherited);
  t.is(releases(settle(tick(s, T0)).all), 0);
});

test('bmh inherited grant - a first read that finds the backend busy (a deploy the status does not show) adopts, holds, and gives the slot back once a read finds it over', (t) => {
  const first = tick(resumed(atState('available', { spec: { image: undefined } })), T0);
  const busy = reply(first, { kind: 'done', poweredOn: true, busy: true }, T0 + 5);
  t.deepEqual(busy.effects.filter((e) => e.type === 'requestSlot').length, 1, 'asks for the slot: the acquire adopts the grant');
  t.is(releases(busy.effects), 0);
  t.true(busy.state.backendBusy);
  const held = grant(busy.state, T0 + 10);
  t.is(held.state.slot.phase, 'held');
  t.false(types(held.effects).includes('releaseSlot'), 'kept while the backend works');
  // Read again soon, not at the minute's power poll.
  const again = tick(held.state, T0 + 2_010);
  t.deepEqual(types(again.effects).filter((x) => x === 'call'), ['call']);
  const still = reply(again, { kind: 'done', poweredOn: true, busy: true }, T0 + 2_015);
  t.is(still.state.slot.phase, 'held');
  const over = reply(tick(still.state, T0 + 4_020), { kind: 'done', poweredOn: true }, T0 + 4_025);
  t.true(types(over.effects).includes('releaseSlot'));
  t.is(over.state.slot.phase, 'none');
  t.false(over.state.backendBusy);
});

test('bmh inherited grant - no power change under work the backend still runs: only reads', (t) => {
  const first = tick(resumed(atState('available', { spec: { image: undefined } })), T0);
  // Off, though spec.online asks for on: the deploy under way powers the node as it needs.
  const busy = reply(first, { kind: 'done', poweredOn: false, busy: true }, T0 + 5);
  t.deepEqual(busy.effects.filter((e) => e.type === 'call'), []);
  const again = tick(grant(busy.state, T0 + 10).state, T0 + 2_010);
  t.deepEqual(again.effects.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), ['hardwareState']);
});
