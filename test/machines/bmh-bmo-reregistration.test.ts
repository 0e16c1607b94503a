import test from 'ava';
import { step } from '../../src/machines/bmh/index.ts';
import type { Step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, makeHost, reply, T0, tick } from '../support/bmh.ts';

// Registering a host again once it is past registering (baremetal-operator 02aa5059,
// reference/bmo.md §1.2 ensureRegistered, §1.5): what a failure is called, and what
// operationHistory.register says.

const image = makeHost().spec.image;
const LATER = T0 + 61_000;
const iso = (ms: number) => new Date(ms).toISOString();
const REGISTERED = { start: '2025-12-31T23:00:00.000Z', end: '2025-12-31T23:01:00.000Z' };
const PROVISIONED = { start: '2025-12-31T23:10:00.000Z', end: '2025-12-31T23:20:00.000Z' };
const provisioned = () => atState('provisioned', {
  status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image }, operationHistory: { register: REGISTERED, provision: PROVISIONED } },
});

// A provisioned host whose backend lost its node: the power read says so, and it registers again.
function lostNode(): Step {
  const read = tick(provisioned(), LATER);
  expectCalls(read, ['hardwareState']);
  return reply(read, { kind: 'needsRegistration' }, LATER);
}
function expectCalls(s: Step, ops: string[]): void {
  const got = calls(s.effects).map((c) => c.op);
  if (JSON.stringify(got) !== JSON.stringify(ops)) throw new Error(`expected calls ${ops.join(',')}, got ${got.join(',')}`);
}

test('BMO registerHost: a failed registration of a provisioned host is a registration error (provisioned registration error is an adoption\'s), and its retry restarts', (t) => {
  const again = lostNode();
  t.deepEqual(calls(again.effects), [{ op: 'register', restartOnFailure: false, credentialsChanged: false }]);
  const failed = reply(again, { kind: 'failed', message: 'BMC unreachable' }, LATER);
  t.is(failed.state.host.status.errorType, 'registration error');
  t.is(failed.state.host.status.operationalStatus, 'error');
  t.is(failed.state.host.status.provisioning.state, 'provisioned');
  // After the backoff: registered again with restartOnFailure, as ensureRegistered asks.
  const retry = tick(failed.state, LATER + 10 * 60_000);
  t.deepEqual(calls(retry.effects), [{ op: 'register', restartOnFailure: true, credentialsChanged: false }]);
  const ok = reply(retry, done, LATER + 10 * 60_000);
  t.is(ok.state.host.status.errorType, '');
  t.deepEqual(calls(ok.effects).map((c) => c.op), ['adopt']);
});

test('BMO credentialsErrorResult: a provisioned host whose BMC Secret went missing has a registration error', (t) => {
  const again = lostNode();
  const waiting = reply(again, { kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 10_000 }, LATER);
  t.is(waiting.state.host.status.errorType, 'registration error');
  t.is(waiting.state.host.status.provisioning.state, 'provisioned');
});

test('BMO ensureRegistered: a registration retried after a registration error stamps operationHistory.register anew; its success stamps the end', (t) => {
  const failed = reply(lostNode(), { kind: 'failed', message: 'BMC unreachable' }, LATER);
  // The lost node alone is no new registration in BMO's history (it registers on every pass).
  t.deepEqual(failed.state.host.status.operationHistory?.register, REGISTERED);
  const RETRY = LATER + 10 * 60_000;
  const retry = tick(failed.state, RETRY);
  t.deepEqual(retry.state.host.status.operationHistory?.register, { start: iso(RETRY) });
  // A second failure and retry keep the start of the registration still under way.
  const failedAgain = reply(retry, { kind: 'failed', message: 'BMC unreachable' }, RETRY);
  const retry2 = tick(failedAgain.state, RETRY + 60 * 60_000);
  t.deepEqual(calls(retry2.effects).map((c) => c.op), ['register']);
  t.deepEqual(retry2.state.host.status.operationHistory?.register, { start: iso(RETRY) });
  const END = RETRY + 60 * 60_000 + 5_000;
  const ok = reply(retry2, done, END);
  t.deepEqual(ok.state.host.status.operationHistory?.register, { start: iso(RETRY), end: iso(END) });
  // The other operations' history is left alone.
  t.deepEqual(ok.state.host.status.operationHistory?.provision, PROVISIONED);
});

test('BMO ensureRegistered: new BMC credentials register a provisioned host again, and the history says when', (t) => {
  const base = provisioned();
  const changed = step(base, { type: 'secretChanged', key: 'metal3/worker-0-bmc', change: 'changed' }, T0);
  t.deepEqual(calls(changed.effects).map((c) => c.op), ['register']);
  t.deepEqual(changed.state.host.status.operationHistory?.register, { start: iso(T0) });
  const ok = reply(changed, done, T0 + 2_000);
  t.deepEqual(ok.state.host.status.operationHistory?.register, { start: iso(T0), end: iso(T0 + 2_000) });
  t.is(ok.state.host.status.provisioning.state, 'provisioned');
});

test('BMO ensureRegistered: a node lost and registered again without error leaves operationHistory.register as it was', (t) => {
  const ok = reply(lostNode(), done, LATER);
  t.deepEqual(ok.state.host.status.operationHistory?.register, REGISTERED);
});

test('BMO checkDetachedHost: new BMC credentials of a detached host date no registration while it stays detached', (t) => {
  const base = provisioned();
  const detached = { ...base, host: { ...base.host, metadata: { ...base.host.metadata, annotations: { 'baremetalhost.metal3.io/detached': '' } }, status: { ...base.host.status, operationalStatus: 'detached' as const } } };
  const changed = step(detached, { type: 'secretChanged', key: 'metal3/worker-0-bmc', change: 'changed' }, T0);
  t.deepEqual(calls(changed.effects), []);
  t.deepEqual(changed.state.host.status.operationHistory?.register, REGISTERED);
});
