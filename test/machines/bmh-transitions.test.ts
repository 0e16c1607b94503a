import test from 'ava';
import { initialState, step, HOST_FINALIZER } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, makeHost, observe, reply, settle, T0, tick, types, withHost } from '../support/bmh.ts';

// reference/bmo.md §1.3, one test per row.

test('bmh - a new host with BMC details goes to registering and calls register', (t) => {
  const s = tick(initialState(makeHost()));
  t.is(s.state.host.status.provisioning.state, 'registering');
  t.is(s.state.host.status.operationalStatus, 'OK');
  t.deepEqual(calls(s.effects).map((c) => c.op), ['register']);
  t.truthy(s.state.host.status.operationHistory?.register?.start);
});

test('bmh - a new host without BMC details is unmanaged and discovered', (t) => {
  const host = makeHost();
  delete host.spec.bmc;
  const s = tick(initialState(host));
  t.is(s.state.host.status.provisioning.state, 'unmanaged');
  t.is(s.state.host.status.operationalStatus, 'discovered');
  t.deepEqual(calls(s.effects), []);
});

test('bmh - unmanaged host with BMC details added goes to registering', (t) => {
  const host = makeHost();
  delete host.spec.bmc;
  const s1 = tick(initialState(host));
  const s2 = observe(s1.state, makeHost());
  t.is(s2.state.host.status.provisioning.state, 'registering');
  t.deepEqual(calls(s2.effects).map((c) => c.op), ['register']);
});

test('bmh - a registered host waits in registering, delayed, for an inspection slot, then inspects (BMO updateHostStateFrom/checkDelayedHost)', (t) => {
  const s1 = tick(initialState(makeHost()));
  const s2 = reply(s1, { kind: 'done', provisionerId: 'node-1' });
  t.is(s2.state.host.status.provisioning.ID, 'node-1');
  t.is(s2.state.host.status.provisioning.state, 'registering');
  t.deepEqual(types(s2.effects), ['requestSlot', 'writeStatus']);
  t.deepEqual(s2.state.host.status.goodCredentials, { credentials: { name: 'worker-0-bmc', namespace: 'metal3' } });
  const queued = step(s2.state, { type: 'slotQueued', position: 4 }, T0);
  t.is(queued.state.host.status.operationalStatus, 'delayed');
  // While it waits nothing is called again, however often it is woken.
  t.deepEqual(calls(tick(queued.state, T0 + 600_000).effects), []);
  const s3 = grant(queued.state);
  t.is(s3.state.host.status.provisioning.state, 'inspecting');
  t.is(s3.state.host.status.operationalStatus, 'OK');
  t.deepEqual(calls(s3.effects).map((c) => c.op), ['inspect']);
});

test('bmh - registered host with inspection disabled goes to preparing', (t) => {
  const s1 = tick(initialState(makeHost({ spec: { inspectionMode: 'disabled' } })));
  const s2 = reply(s1, done);
  t.is(s2.state.host.status.provisioning.state, 'preparing');
  t.deepEqual(calls(s2.effects).map((c) => c.op), ['prepare']);
});

test('bmh - registered host with the inspect annotation disabled goes to preparing', (t) => {
  const s1 = tick(initialState(makeHost({ annotations: { 'inspect.metal3.io': 'disabled' } })));
  const s2 = reply(s1, done);
  t.is(s2.state.host.status.provisioning.state, 'preparing');
});

test('bmh - registered externally provisioned host goes to externally provisioned', (t) => {
  const s1 = tick(initialState(makeHost({ spec: { externallyProvisioned: true } })));
  const s2 = reply(s1, done);
  t.is(s2.state.host.status.provisioning.state, 'externally provisioned');
  // The backend takes the running host over as deployed; it is never deployed.
  t.deepEqual(calls(s2.effects).map((c) => c.op), ['adopt']);
  const s3 = reply(s2, done);
  t.false(s3.state.needsAdopt);
  t.false(calls(s3.effects).some((c) => c.op === 'provision'));
});

test('bmh - inspection done stores hardware, frees the slot and goes to preparing', (t) => {
  const s0 = grant(tick(atState('inspecting')).state);
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['inspect']);
  const s1 = reply(s0, { kind: 'done', hardware: { ramMebibytes: 131072 } });
  t.is(s1.state.host.status.provisioning.state, 'preparing');
  t.is(s1.state.host.status.hardware?.ramMebibytes, 131072);
  t.true(types(s1.effects).includes('releaseSlot'));
  t.is(s1.state.slot.phase, 'none');
});

test('bmh - inspection still running polls again later', (t) => {
  const s0 = grant(tick(atState('inspecting')).state);
  const s1 = reply(s0, { kind: 'continuing', afterMs: 3000 });
  t.is(s1.state.host.status.provisioning.state, 'inspecting');
  t.deepEqual(s1.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 3000 }]);
  t.deepEqual(calls(tick(s1.state, T0 + 1000).effects), []);
  t.deepEqual(calls(tick(s1.state, T0 + 3000).effects).map((c) => c.op), ['inspect']);
});

test('bmh - match profile moves to preparing', (t) => {
  const s = tick(atState('match profile'));
  t.is(s.state.host.status.provisioning.state, 'preparing');
});

test('bmh - preparation done goes to available', (t) => {
  const s0 = tick(atState('preparing', { spec: { image: undefined } }));
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['prepare']);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.provisioning.state, 'available');
});

test('bmh - ready (older BMO) is handled as available and keeps its name; an image provisions it', (t) => {
  const s = tick(atState('ready', { spec: { image: undefined } }));
  t.is(s.state.host.status.provisioning.state, 'ready');
  const withImage = grant(tick(atState('ready')).state);
  t.is(withImage.state.host.status.provisioning.state, 'provisioning');
  t.deepEqual(calls(withImage.effects).map((c) => c.op), ['provision']);
});

test('bmh - available host marked externally provisioned moves there', (t) => {
  const s = tick(atState('available', { spec: { externallyProvisioned: true } }));
  t.is(s.state.host.status.provisioning.state, 'externally provisioned');
});

test('bmh - available host with the inspect annotation is inspected again and the annotation removed', (t) => {
  const s0 = tick(atState('available', { annotations: { 'inspect.metal3.io': '' }, spec: { image: undefined } }));
  t.deepEqual(types(s0.effects), ['requestSlot']);
  const s1 = grant(s0.state);
  t.is(s1.state.host.status.provisioning.state, 'inspecting');
  t.deepEqual(calls(s1.effects), [{ op: 'inspect', restartOnFailure: false, refresh: true }]);
  // BMO removes the request once the backend started the inspection.
  const s2 = reply(s1, { kind: 'continuing', afterMs: 1_000, started: true });
  t.true(s2.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'inspect.metal3.io'));
  t.deepEqual(calls(tick(s2.state, T0 + 1_000).effects), [{ op: 'inspect', restartOnFailure: false, refresh: false }]);
});

// Ironic's inspect of an `available` node (a host deprovisioned earlier) is two steps: manage,
// then inspect. The first answers without starting anything, so the request must still be sent
// with the second, or the node answers with the old inspection's data.
test('bmh - a re-inspection request stays until the backend starts the inspection', (t) => {
  const s1 = grant(tick(atState('available', { annotations: { 'inspect.metal3.io': '' }, spec: { image: undefined } })).state);
  const managed = reply(s1, { kind: 'continuing', afterMs: 1_000 });
  t.false(managed.effects.some((e) => e.type === 'removeAnnotation'));
  const s2 = tick(managed.state, T0 + 1_000);
  t.deepEqual(calls(s2.effects), [{ op: 'inspect', restartOnFailure: false, refresh: true }]);
  // A backend that does not say when it started (the fixture) has the request answered when done.
  const s3 = reply(s2, { kind: 'done', hardware: { ramMebibytes: 1024 } as never }, T0 + 1_000);
  t.is(s3.state.host.status.provisioning.state, 'preparing');
  t.true(s3.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'inspect.metal3.io'));
});

// BMO's actionInspecting removes only a re-inspection request: `disabled` is a setting the user
// keeps (and the one the hardwaredetails annotation needs), not a request that inspection answers.
test('bmh - inspecting keeps an inspect annotation that says disabled', (t) => {
  const s = grant(tick(atState('inspecting', { annotations: { 'inspect.metal3.io': 'disabled' } })).state);
  t.deepEqual(calls(s.effects), [{ op: 'inspect', restartOnFailure: false, refresh: false }]);
  t.false(s.effects.some((e) => e.type === 'removeAnnotation'));
  t.is(s.state.host.metadata.annotations?.['inspect.metal3.io'], 'disabled');
});

test('bmh - available host whose RAID or root hints changed goes back to preparing', (t) => {
  const base = atState('available', { spec: { image: undefined } });
  const s = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, rootDeviceHints: { deviceName: '/dev/sdb' } } })));
  t.is(s.state.host.status.provisioning.state, 'preparing');
  // BMO updateRootDeviceHints: spec hints equal to the ones recorded (the profile's /dev/sda) are no change.
  const same = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, rootDeviceHints: { deviceName: '/dev/sda' } } })));
  t.is(same.state.host.status.provisioning.state, 'available');
});

test('bmh - available host with a new image waits for a slot, then provisions', (t) => {
  const s0 = tick(atState('available'));
  t.is(s0.state.host.status.provisioning.state, 'available');
  t.deepEqual(types(s0.effects), ['requestSlot']);
  const queued = s0.state && step(s0.state, { type: 'slotQueued', position: 3 }, T0);
  t.is(queued.state.host.status.operationalStatus, 'delayed');
  const s1 = grant(queued.state);
  t.is(s1.state.host.status.provisioning.state, 'provisioning');
  t.is(s1.state.host.status.operationalStatus, 'OK');
  const call = calls(s1.effects)[0];
  t.is(call?.op, 'provision');
  t.is(s1.state.host.status.provisioning.bootMode, 'UEFI');
});

test('bmh - available host that is offline or has no image stays available', (t) => {
  t.deepEqual(calls(tick(atState('available', { spec: { online: false } })).effects).filter((c) => c.op === 'provision'), []);
  t.deepEqual(types(tick(atState('available', { spec: { image: undefined }, status: { poweredOn: true } })).effects), ['requeue']);
});

test('bmh - provisioning done records the image, resets counters and goes to provisioned', (t) => {
  const s0 = grant(tick(atState('provisioning', { status: { provisioningFailCount: 2 } })).state);
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['provision']);
  const s1 = reply(s0, { kind: 'done', poweredOn: true });
  const st = s1.state.host.status;
  t.is(st.provisioning.state, 'provisioned');
  t.is(st.provisioning.image?.url, 'http://images/ubuntu.qcow2');
  t.is(st.provisioningFailCount, 0);
  t.true(st.poweredOn);
  t.is(s1.state.slot.phase, 'none');
  t.truthy(st.operationHistory?.provision?.end);
});

test('bmh - failed provisioning counts the failure and then deprovisions', (t) => {
  const s0 = grant(tick(atState('provisioning')).state);
  const s1 = reply(s0, { kind: 'failed', message: 'image checksum mismatch' }, T0, 0);
  const st = s1.state.host.status;
  t.is(st.errorType, 'provisioning error');
  t.is(st.operationalStatus, 'error');
  t.is(st.errorCount, 1);
  // BMO handleProvisioning counts the failure when it leaves provisioning, not when it is recorded.
  t.is(st.provisioningFailCount, 0);
  // BMO records the image an attempt deploys before it calls the provisioner.
  t.is(s0.state.host.status.lastAttemptedImage?.url, 'http://images/ubuntu.qcow2');
  t.is(s1.state.slot.phase, 'none');
  t.deepEqual(s1.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 120_000 }]);
  // Into deprovisioning only with a slot: until then it stays in provisioning (BMO's capacity check).
  const s2 = tick(s1.state, T0 + 120_000);
  t.is(s2.state.host.status.provisioning.state, 'provisioning');
  t.deepEqual(types(s2.effects), ['requestSlot']);
  const s3 = grant(s2.state, T0 + 120_000);
  t.is(s3.state.host.status.provisioning.state, 'deprovisioning');
  t.is(s3.state.host.status.provisioningFailCount, 1);
  t.deepEqual(calls(s3.effects), [{ op: 'deprovision', restartOnFailure: true, automatedCleaning: true }]);
});

test('bmh - provisioning with the image removed deprovisions', (t) => {
  const s = grant(tick(atState('provisioning', { spec: { image: undefined } })).state);
  t.is(s.state.host.status.provisioning.state, 'deprovisioning');
  t.is(s.state.host.status.provisioningFailCount, 0);
});

test('bmh - provisioned host whose image is removed or changed deprovisions', (t) => {
  const base = atState('provisioned', { status: { provisioning: { state: 'provisioned', ID: 'n', image: { url: 'http://images/ubuntu.qcow2', checksum: 'abc', checksumType: 'sha256' } } } });
  t.is(tick(base).state.host.status.provisioning.state, 'provisioned');
  const removed = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, image: undefined } })));
  // BMO's capacity check: provisioned, delayed, until a deprovisioning slot is free.
  t.is(removed.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(types(removed.effects), ['requestSlot']);
  t.is(grant(removed.state).state.host.status.provisioning.state, 'deprovisioning');
  const changed = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, image: { url: 'http://images/other.qcow2', checksum: 'x' } } })));
  t.is(grant(changed.state).state.host.status.provisioning.state, 'deprovisioning');
  // BMO imageProvisioningCancelled compares URLs: a new checksum for the same URL is no redeploy.
  const checksum = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, image: { url: 'http://images/ubuntu.qcow2', checksum: 'new' } } })));
  t.is(checksum.state.slot.phase, 'none');
});

test('bmh - externally provisioned host no longer marked so becomes provisioned', (t) => {
  const base = atState('externally provisioned', { spec: { externallyProvisioned: false } });
  const s = tick(base);
  t.is(s.state.host.status.provisioning.state, 'provisioned');
  t.is(s.state.host.status.provisioning.image?.url, 'http://images/ubuntu.qcow2');
});

test('bmh - deprovisioning done goes to available', (t) => {
  const s0 = grant(tick(atState('deprovisioning', { spec: { image: undefined } })).state);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.provisioning.state, 'available');
  t.is(s1.state.host.status.provisioning.image, undefined);
  t.is(s1.state.slot.phase, 'none');
});

test('bmh - deprovisioning done while deleting goes to powering off before delete', (t) => {
  const s0 = grant(tick(atState('deprovisioning', { deletionTimestamp: '2026-01-01T00:00:00Z' })).state);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.provisioning.state, 'powering off before delete');
  // BMO's actionPowerOffBeforeDeleting: hard, forced only to retry a power management error.
  t.deepEqual(calls(s1.effects), [{ op: 'powerOff', mode: 'hard', force: false }]);
});

test('bmh - deleting host whose deprovisioning failed more than three times moves on', (t) => {
  const s0 = grant(tick(atState('deprovisioning', { deletionTimestamp: 'x', status: { errorCount: 3, errorType: 'provisioning error' } })).state);
  const s1 = reply(s0, { kind: 'failed', message: 'clean failed' });
  t.is(s1.state.host.status.provisioning.state, 'powering off before delete');
});

test('bmh - powering off before delete goes to deleting when off, then removes the finalizer', (t) => {
  const s0 = tick(atState('powering off before delete', { deletionTimestamp: 'x' }));
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(calls(s1.effects).map((c) => c.op), ['delete']);
  const s2 = reply(s1, done);
  t.true(s2.state.gone);
  t.true(s2.effects.some((e) => e.type === 'removeFinalizer' && e.finalizer === HOST_FINALIZER));
});

test('bmh - powering off before delete skips power-off when disabled, or after repeated failures', (t) => {
  t.is(tick(atState('powering off before delete', { deletionTimestamp: 'x', spec: { disablePowerOff: true } })).state.host.status.provisioning.state, 'deleting');
  const s0 = tick(atState('powering off before delete', { deletionTimestamp: 'x', status: { errorCount: 3 } }));
  t.is(reply(s0, { kind: 'failed', message: 'bmc down' }).state.host.status.provisioning.state, 'deleting');
});

test('bmh - leaving an operation\'s state stamps its end and keeps its start; one never started gets only the end', (t) => {
  const T1 = T0 + 5_000;
  const started = tick(initialState(makeHost()), T0);
  const history = settle(started, () => done, T1).last.state.host.status.operationHistory;
  t.deepEqual(history?.register, { start: new Date(T0).toISOString(), end: new Date(T1).toISOString() });
  t.deepEqual(Object.keys(history?.register ?? {}), ['start', 'end']);
  // A status from a store that never recorded the start (an older writer, a hand edit).
  const unstamped = atState('inspecting', { status: { operationHistory: { inspect: { end: null } } } });
  const left = settle(tick(unstamped, T0), () => done, T1).last.state.host.status.operationHistory;
  t.deepEqual(left?.inspect, { end: new Date(T1).toISOString() });
});
