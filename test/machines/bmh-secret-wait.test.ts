import test from 'ava';
import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { BmhState, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, makeHost, observe, reply, T0, tick, types } from '../support/bmh.ts';

// Issue 19.3: a missing user/network/meta data Secret is a wait, never a provisioning failure
// (which deprovisions, cleaning the disks, and stops the host for good after five cycles).

const USER_DATA = 'metal3/worker-0-user-data';
const MESSAGE = `waiting for Secret ${USER_DATA} (spec.userData), which does not exist; provisioning continues as soon as it does`;
const missingUserData: OpResult = { kind: 'waitForSecret', secret: USER_DATA, field: 'spec.userData', message: MESSAGE };

function provisioningWithSlot(): Step {
  const s0 = tick(atState('provisioning', { spec: { userData: { name: 'worker-0-user-data' } } }));
  t0Assert(s0);
  return grant(s0.state);
}

function t0Assert(s: Step): void {
  if (!s.effects.some((e) => e.type === 'requestSlot')) throw new Error('provisioning host did not ask for a slot');
}

function waiting(): Step {
  const granted = provisioningWithSlot();
  if (calls(granted.effects)[0]?.op !== 'provision') throw new Error('no provision call after the grant');
  return reply(granted, missingUserData, T0);
}

test('bmh secret wait - a missing userData Secret keeps the host in provisioning, gives the slot back, and is no error', (t) => {
  const s = waiting();
  const st = s.state.host.status;
  t.is(st.provisioning.state, 'provisioning');
  t.is(st.errorType ?? '', '');
  t.is(st.errorCount, 0);
  t.is(st.provisioningFailCount, 0);
  t.is(st.operationalStatus, 'delayed');
  t.is(st.errorMessage, MESSAGE);
  t.is(s.state.slot.phase, 'none');
  t.true(types(s.effects).includes('releaseSlot'));
  t.deepEqual(calls(s.effects), [], 'no deploy and no deprovision');
  t.true(s.effects.some((e) => e.type === 'event' && e.reason === 'WaitingForSecret' && e.message === MESSAGE));
});

test('bmh secret wait - while waiting, wake-ups neither call the backend nor ask for a slot, however long it takes', (t) => {
  let s: BmhState = waiting().state;
  for (const at of [T0 + 10_000, T0 + 60_000, T0 + 120_000, T0 + 250_000]) {
    const next = tick(s, at);
    t.deepEqual(calls(next.effects), [], `no call at +${at - T0} ms`);
    t.false(types(next.effects).includes('requestSlot'), `no slot request at +${at - T0} ms`);
    t.is(next.state.host.status.provisioning.state, 'provisioning');
    s = next.state;
  }
  t.is(s.host.status.provisioningFailCount, 0);
});

test('bmh secret wait - the Secret appearing asks for a slot at once, then provisions', (t) => {
  const s = waiting();
  const appeared = step(s.state, { type: 'secretChanged', key: USER_DATA, change: 'appeared' }, T0 + 5_000);
  t.deepEqual(types(appeared.effects).filter((e) => e !== 'writeStatus'), ['requestSlot']);
  t.is(appeared.state.host.status.errorMessage, '', 'the wait message goes with the wait');
  t.is(appeared.state.host.status.operationalStatus, 'OK');
  t.true(appeared.effects.some((e) => e.type === 'event' && e.reason === 'SecretAvailable'));
  const granted = grant(appeared.state, T0 + 5_000);
  t.deepEqual(calls(granted.effects).map((c) => c.op), ['provision']);
  const provisioned = reply(granted, done, T0 + 6_000);
  t.is(provisioned.state.host.status.provisioning.state, 'provisioned');
  t.is(provisioned.state.host.status.errorMessage, '');
});

test('bmh secret wait - another Secret, or the awaited one going away, does not wake the host', (t) => {
  const s = waiting();
  const other = step(s.state, { type: 'secretChanged', key: 'metal3/someone-else', change: 'appeared' }, T0 + 1_000);
  t.deepEqual(types(other.effects), ['requeue'], 'only the wait\'s own timer');
  t.is(other.state.waitingForSecret?.key, USER_DATA);
  const removed = step(s.state, { type: 'secretChanged', key: USER_DATA, change: 'removed' }, T0 + 1_000);
  t.deepEqual(types(removed.effects), ['requeue']);
  t.is(removed.state.host.status.errorMessage, MESSAGE);
});

test('bmh secret wait - a host re-delivered unchanged (a store announcing the Secret) stops waiting too', (t) => {
  const s = waiting();
  const again = observe(s.state, s.state.host, T0 + 1_000);
  t.true(types(again.effects).includes('requestSlot'));
});

test('bmh secret wait - without any announcement the host looks again after secretRecheckMs', (t) => {
  const s = waiting();
  t.true(s.effects.some((e) => e.type === 'requeue' && e.afterMs === s.state.config.secretRecheckMs));
  const later = tick(s.state, T0 + s.state.config.secretRecheckMs);
  t.true(types(later.effects).includes('requestSlot'));
  // Still missing: the same wait, no second Warning.
  const again = reply(grant(later.state, T0 + s.state.config.secretRecheckMs), missingUserData, T0 + s.state.config.secretRecheckMs);
  t.is(again.state.host.status.provisioning.state, 'provisioning');
  t.is(again.state.host.status.provisioningFailCount, 0);
  t.false(again.effects.some((e) => e.type === 'event' && e.reason === 'WaitingForSecret'));
});

test('bmh secret wait - the host may still be deleted while it waits (deprovisioning is then what the user asked for)', (t) => {
  const s = waiting();
  const deleting = observe(s.state, { ...s.state.host, metadata: { ...s.state.host.metadata, deletionTimestamp: new Date(T0).toISOString() } }, T0 + 1_000);
  t.is(grant(deleting.state, T0 + 1_000).state.host.status.provisioning.state, 'deprovisioning');
});

test('bmh secret wait - missing BMC credentials: a registration error that retries as soon as the Secret appears', (t) => {
  const s0 = tick(initialState(makeHost()));
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['register']);
  const s1 = reply(s0, { kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 3_600_000 });
  t.is(s1.state.host.status.errorType, 'registration error');
  t.is(s1.state.host.status.errorMessage, 'BMC credentials Secret metal3/worker-0-bmc not found');
  t.deepEqual(calls(tick(s1.state, T0 + 60_000).effects), [], 'backing off');
  const appeared = step(s1.state, { type: 'secretChanged', key: 'metal3/worker-0-bmc', change: 'appeared' }, T0 + 60_000);
  t.deepEqual(calls(appeared.effects).map((c) => c.op), ['register']);
  const registered = reply(appeared, done, T0 + 60_000);
  t.is(registered.state.host.status.errorType, '');
  t.is(grant(registered.state, T0 + 60_000).state.host.status.provisioning.state, 'inspecting');
});

test('bmh secret wait - a registration error over the credentials wakes on their change even after a restart forgot the wait', (t) => {
  const restarted = atState('registering', { status: { operationalStatus: 'error', errorType: 'registration error', errorMessage: 'BMC credentials Secret metal3/worker-0-bmc: key "password" is missing or empty', errorCount: 1 } });
  const s0 = reply(tick(restarted), { kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc: key "password" is missing or empty', retryAfterMs: null });
  const forgotten: BmhState = { ...s0.state, waitingForSecret: null };
  const changed = step(forgotten, { type: 'secretChanged', key: 'metal3/worker-0-bmc', change: 'changed' }, T0 + 1_000);
  t.deepEqual(calls(changed.effects).map((c) => c.op), ['register']);
});
