import test from 'ava';
import { errorBackoffMs, DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { atState, calls, grant, makeHost, reply, T0, tick, types } from '../support/bmh.ts';

// BMO's action handlers (internal/controller/metal3.io/baremetalhost_controller.go) against ours:
// what a retried operation that the backend took does to the error, what a detach in a settled
// state sends, and what an available host at the provisioning retry limit does.

const image = makeHost().spec.image;
const LATER = T0 + 10 * 60_000;

// BMO actionInspecting: a Dirty result clears the error (clearError keeps ErrorCount), so the
// polls that follow are not restarts, and the host does not show an error while it inspects.
test('bmh action results - an inspection restarted after an inspection error clears the error and keeps the count', (t) => {
  const s0 = grant(tick(atState('inspecting')).state);
  const s1 = reply(s0, { kind: 'failed', message: 'inspection timed out' });
  t.is(s1.state.host.status.errorType, 'inspection error');
  const retry = grant(tick(s1.state, LATER).state, LATER);
  t.deepEqual(calls(retry.effects), [{ op: 'inspect', restartOnFailure: true, refresh: false }]);
  const taken = reply(retry, { kind: 'continuing', afterMs: 10_000, started: true }, LATER);
  t.is(taken.state.host.status.errorType, '');
  t.is(taken.state.host.status.errorMessage, '');
  t.is(taken.state.host.status.operationalStatus, 'OK');
  t.is(taken.state.host.status.errorCount, 1);
  const poll = tick(taken.state, LATER + 10_000);
  t.deepEqual(calls(poll.effects), [{ op: 'inspect', restartOnFailure: false, refresh: false }]);
  // BMO handleInspecting: done resets the count.
  const finished = reply(poll, { kind: 'done', hardware: {} }, LATER + 10_000);
  t.is(finished.state.host.status.errorCount, 0);
});

// BMO manageHostPower: a forced retry the backend took (Dirty) clears the power management error.
test('bmh action results - a forced power-on the backend took clears the power management error and keeps the count', (t) => {
  const s0 = tick(atState('provisioned', { status: { poweredOn: false, provisioning: { state: 'provisioned', ID: 'node-1', image } } }), T0 + 60_000);
  t.deepEqual(calls(s0.effects), [{ op: 'hardwareState' }]);
  const s1 = reply(s0, { kind: 'done', poweredOn: false }, T0 + 60_000);
  t.deepEqual(calls(s1.effects), [{ op: 'powerOn', force: false }]);
  const s2 = reply(s1, { kind: 'failed', message: 'BMC timeout' }, T0 + 60_000);
  t.is(s2.state.host.status.errorType, 'power management error');
  // After the backoff the power is read again (still off), then the power-on is retried with force.
  const read = tick(s2.state, LATER);
  t.deepEqual(calls(read.effects), [{ op: 'hardwareState' }]);
  const retry = reply(read, { kind: 'done', poweredOn: false }, LATER);
  t.deepEqual(calls(retry.effects), [{ op: 'powerOn', force: true }]);
  const taken = reply(retry, { kind: 'continuing', afterMs: 10_000 }, LATER);
  t.is(taken.state.host.status.errorType, '');
  t.is(taken.state.host.status.operationalStatus, 'OK');
  t.is(taken.state.host.status.errorCount, 1);
});

// BMO actionManageSteadyState: an adoption retried with restartOnFailure that the backend took
// (Dirty) clears the provisioned registration error.
test('bmh action results - an adoption restarted after a provisioned registration error clears the error and keeps the count', (t) => {
  const failed = { operationalStatus: 'error' as const, errorType: 'provisioned registration error' as const, errorMessage: 'adopt failed', errorCount: 2 };
  const s0 = tick(atState('provisioned', { status: { ...failed, poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image } } }));
  t.deepEqual(calls(s0.effects), [{ op: 'adopt', restartOnFailure: true }]);
  const taken = reply(s0, { kind: 'continuing', afterMs: 10_000 });
  t.is(taken.state.host.status.errorType, '');
  t.is(taken.state.host.status.operationalStatus, 'OK');
  t.is(taken.state.host.status.errorCount, 2);
  // BMO adopts on every steady-state pass: the adoption under way is polled, no longer a restart.
  t.deepEqual(calls(tick(taken.state, T0 + 10_000).effects), [{ op: 'adopt', restartOnFailure: false }]);
});

// BMO checkDetachedHost: provisioned, externally provisioned, ready and available hosts are
// detached with detachHost(force=false); the annotation's force is only for the other states.
test('bmh action results - a settled host is detached without force even when the annotation asks for it', (t) => {
  const detached = { 'baremetalhost.metal3.io/detached': '{"force":true}' };
  const provisioned = tick(atState('provisioned', { annotations: detached, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image } } }));
  t.deepEqual(calls(provisioned.effects), [{ op: 'detach', force: false }]);
  const available = tick(atState('available', { annotations: detached, spec: { image: undefined } }));
  t.deepEqual(calls(available.effects), [{ op: 'detach', force: false }]);
  // Elsewhere the force is what lets the detach happen at all.
  const preparing = tick(atState('preparing', { annotations: detached }));
  t.deepEqual(calls(preparing.effects), [{ op: 'detach', force: true }]);
});

// BMO actionManageAvailable: at the retry limit every pass records a provisioning error
// (recordActionFailure: ErrorCount+1, backoff 2^n minutes) and returns; it does not go on to
// manage the host's power.
test('bmh action results - at the provisioning retry limit each pass counts an error, backs off and leaves the power alone', (t) => {
  const base = atState('available', { status: { poweredOn: false, provisioningFailCount: 5, lastAttemptedImage: image } });
  const s0 = tick(base, T0 + 60_000);
  t.is(s0.state.host.status.errorType, 'provisioning error');
  t.is(s0.state.host.status.operationalStatus, 'error');
  t.is(s0.state.host.status.errorCount, 1);
  t.deepEqual(calls(s0.effects), []);
  t.false(types(s0.effects).includes('requestSlot'));
  const backoff = errorBackoffMs(1, 0, DEFAULT_MACHINE_CONFIG);
  t.deepEqual(s0.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: backoff }]);
  // Nothing before the backoff has passed.
  const early = tick(s0.state, T0 + 61_000);
  t.deepEqual(calls(early.effects), []);
  t.false(types(early.effects).includes('writeStatus'));
  const s1 = tick(s0.state, T0 + 60_000 + backoff);
  t.is(s1.state.host.status.errorCount, 2);
  t.deepEqual(calls(s1.effects), []);
  // A new image still earns fresh attempts.
  const fixed = { ...s1.state.host, spec: { ...s1.state.host.spec, image: { url: 'http://images/fixed.qcow2', checksum: 'f' } } };
  const s2 = tick({ ...s1.state, host: fixed, retryAt: null }, T0 + 60_000 + backoff);
  t.is(s2.state.host.status.provisioningFailCount, 0);
  t.true(types(s2.effects).includes('requestSlot'));
});

// BMO actionPreparing: "When manual cleaning fails, we think that the existing RAID configuration
// is invalid and needs to be reconfigured": the retry of a preparation error sends no actual RAID,
// so the target is built again rather than compared with what status records (and found equal).
test('bmh action results - a preparing retried after a preparation error sends no actual RAID, so the RAID is built again', (t) => {
  const hw = [{ level: '1' as const, sizeGibibytes: 100 }];
  const recorded = { hardwareRAIDVolumes: hw, softwareRAIDVolumes: null };
  const s0 = tick(atState('preparing', { spec: { image: undefined, raid: { hardwareRAIDVolumes: hw } }, status: { provisioning: { state: 'preparing', ID: 'node-1', raid: recorded } } }));
  const first = calls(s0.effects)[0];
  t.deepEqual(first?.op === 'prepare' ? first.raid : undefined, { target: { hardwareRAIDVolumes: hw, softwareRAIDVolumes: null }, actual: recorded });
  const s1 = reply(s0, { kind: 'failed', message: 'clean failed' });
  t.is(s1.state.host.status.errorType, 'preparation error');
  const retry = calls(tick(s1.state, LATER).effects)[0];
  t.is(retry?.op, 'prepare');
  if (retry?.op !== 'prepare') return;
  t.true(retry.restartOnFailure);
  t.deepEqual(retry.raid, { target: { hardwareRAIDVolumes: hw, softwareRAIDVolumes: null }, actual: null });
});

// BMO detachHost: a finished detach clears only a detach error (and its count); another error the
// host had stays, under operationalStatus detached, and shows again once the host is re-attached.
test('bmh action results - a finished detach keeps an error that is not a detach error', (t) => {
  const failed = { operationalStatus: 'error' as const, errorType: 'power management error' as const, errorMessage: 'BMC timeout', errorCount: 2 };
  const s0 = tick(atState('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' }, status: { ...failed, poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image } } }));
  t.deepEqual(calls(s0.effects), [{ op: 'detach', force: false }]);
  const s1 = reply(s0, { kind: 'done' });
  t.is(s1.state.host.status.operationalStatus, 'detached');
  t.is(s1.state.host.status.errorType, 'power management error');
  t.is(s1.state.host.status.errorMessage, 'BMC timeout');
  t.is(s1.state.host.status.errorCount, 2);
  // A detach error goes with the detach that finally worked.
  const d0 = tick(atState('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' }, status: { operationalStatus: 'error', errorType: 'detach error', errorMessage: 'busy', errorCount: 1, poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image } } }));
  const d1 = reply(d0, { kind: 'done' });
  t.is(d1.state.host.status.operationalStatus, 'detached');
  t.is(d1.state.host.status.errorType, '');
  t.is(d1.state.host.status.errorCount, 0);
});
