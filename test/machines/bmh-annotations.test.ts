import test from 'ava';
import { step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, makeHost, observe, reply, T0, tick, types } from '../support/bmh.ts';

// reference/bmo.md §1.6–§1.8: operational status, annotations, power.
const image = makeHost().spec.image;
const provisioned = (o: Parameters<typeof atState>[1] = {}) => atState('provisioned', { ...o, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image }, ...o.status } });

test('bmh - pausing releases the slot; a paused host then produces no effects', (t) => {
  const waiting = tick(atState('available')).state;
  t.is(waiting.slot.phase, 'waiting');
  const paused = observe(waiting, { ...waiting.host, metadata: { ...waiting.host.metadata, annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } } });
  t.deepEqual(types(paused.effects), ['releaseSlot']);
  t.deepEqual(tick(paused.state, T0 + 10_000_000).effects, []);
  t.deepEqual(grant(paused.state).effects, []);
  const resumed = observe(paused.state, makeHost({ status: undefined }));
  t.true(resumed.effects.some((e) => e.type === 'requestSlot'));
});

test('bmh - detaching a provisioned host calls detach and marks it detached; re-attaching adopts', (t) => {
  const s0 = tick(provisioned({ annotations: { 'baremetalhost.metal3.io/detached': '' } }));
  t.deepEqual(calls(s0.effects), [{ op: 'detach', force: false }]);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.operationalStatus, 'detached');
  t.deepEqual(calls(tick(s1.state, T0 + 3_600_000).effects), []);
  const attached = observe(s1.state, { ...s1.state.host, metadata: { ...s1.state.host.metadata, annotations: {} } });
  t.is(attached.state.host.status.operationalStatus, 'OK');
  t.deepEqual(calls(attached.effects).map((c) => c.op), ['register']);
  const s2 = reply(attached, done);
  t.deepEqual(calls(s2.effects).map((c) => c.op), ['adopt']);
});

test('bmh - detach waits for a settled state unless forced', (t) => {
  const s0 = tick(atState('preparing', { annotations: { 'baremetalhost.metal3.io/detached': '' } }));
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['prepare']);
  const forced = tick(atState('preparing', { annotations: { 'baremetalhost.metal3.io/detached': '{"force":true}' } }));
  t.deepEqual(calls(forced.effects), [{ op: 'detach', force: true }]);
});

test('bmh - status is restored from the status annotation on a never-written host', (t) => {
  const saved = { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'node-7', image } };
  const host = makeHost({ annotations: { 'baremetalhost.metal3.io/status': JSON.stringify(saved) } });
  const s = step(atState(''), { type: 'observed', host }, T0);
  t.is(s.state.host.status.provisioning.state, 'provisioned');
  t.is(s.state.host.status.provisioning.ID, 'node-7');
  t.true(s.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'baremetalhost.metal3.io/status'));
});

// clusterctl move creates the host paused (CAPM3's metal3.io/capm3) with its status in the
// annotation; unpausing it must restore that status, not register the host as a new one.
test('bmh - a host created paused restores its status annotation when unpaused', (t) => {
  const saved = { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'node-7', image } };
  const status = { 'baremetalhost.metal3.io/status': JSON.stringify(saved) };
  const paused = { ...status, 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' };
  const s0 = step(atState('', { annotations: paused }), { type: 'observed', host: makeHost({ annotations: paused }) }, T0);
  t.is(s0.state.host.status.provisioning.state, '');
  t.deepEqual(calls(s0.effects), []);
  const s1 = observe(s0.state, makeHost({ annotations: status }));
  t.is(s1.state.host.status.provisioning.state, 'provisioned');
  t.is(s1.state.host.status.provisioning.ID, 'node-7');
  t.true(s1.effects.some((e) => e.type === 'event' && e.reason === 'StatusRestored'));
  t.true(s1.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'baremetalhost.metal3.io/status'));
});

test('bmh - a malformed status annotation is dropped with a warning', (t) => {
  const host = makeHost({ annotations: { 'baremetalhost.metal3.io/status': '{not json' } });
  const s = step(atState(''), { type: 'observed', host }, T0);
  t.true(s.effects.some((e) => e.type === 'event' && e.reason === 'InvalidAnnotationValue'));
  t.true(s.effects.some((e) => e.type === 'removeAnnotation'));
});

test('bmh - hardware details annotation fills status.hardware when inspection is disabled', (t) => {
  const s = tick(atState('available', { spec: { image: undefined, inspectionMode: 'disabled' }, annotations: { 'inspect.metal3.io/hardwaredetails': '{"ramMebibytes":4096,"cpu":{"arch":"x86_64","count":8}}' } }));
  t.is(s.state.host.status.hardware?.ramMebibytes, 4096);
  t.true(s.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'inspect.metal3.io/hardwaredetails'));
});

// BMO's updateHardwareDetails: with inspection disabled the annotation is the only way to give a
// host its hardware details, so a new one replaces what status holds rather than being dropped.
test('bmh - a new hardware details annotation replaces status.hardware when inspection is disabled', (t) => {
  const hardware = { ramMebibytes: 4096, cpu: { arch: 'x86_64', count: 8 } } as NonNullable<ReturnType<typeof makeHost>['status']>['hardware'];
  const s = tick(atState('available', { spec: { image: undefined, inspectionMode: 'disabled' }, status: { hardware }, annotations: { 'inspect.metal3.io/hardwaredetails': '{"ramMebibytes":8192,"cpu":{"arch":"x86_64","count":16}}' } }));
  t.is(s.state.host.status.hardware?.ramMebibytes, 8192);
  t.is(s.state.host.status.hardware?.cpu?.count, 16);
  t.true(s.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'inspect.metal3.io/hardwaredetails'));
});

test('bmh - a reboot annotation powers off softly, then removes itself and powers on', (t) => {
  const s0 = tick(provisioned({ annotations: { 'reboot.metal3.io': '' } }));
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const s1 = reply(s0, done);
  t.true(s1.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'reboot.metal3.io'));
  t.deepEqual(calls(s1.effects), [{ op: 'powerOn', force: false }]);
  t.true(reply(s1, done).state.host.status.poweredOn);
});

test('bmh - a hard reboot annotation powers off hard', (t) => {
  const s0 = tick(provisioned({ annotations: { 'reboot.metal3.io/fw': '{"mode":"hard"}' } }));
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'hard', force: false }]);
});

test('bmh - a suffixed reboot annotation holds the host off until removed', (t) => {
  const s0 = tick(provisioned({ annotations: { 'reboot.metal3.io/phase-1': '' } }));
  const s1 = reply(s0, done);
  t.false(s1.effects.some((e) => e.type === 'removeAnnotation'));
  t.deepEqual(calls(s1.effects), []);
  const s2 = observe(s1.state, { ...s1.state.host, metadata: { ...s1.state.host.metadata, annotations: {} } });
  t.deepEqual(calls(s2.effects), [{ op: 'powerOn', force: false }]);
});

test('bmh - a malformed reboot annotation is a soft reboot with a warning', (t) => {
  const s0 = tick(provisioned({ annotations: { 'reboot.metal3.io': '{bad' } }));
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  t.true(s0.effects.some((e) => e.type === 'event' && e.reason === 'InvalidAnnotationValue'));
});

test('bmh - an available host reboots only for a forced reboot annotation', (t) => {
  const avail = (a: Record<string, string>) => atState('available', { spec: { image: undefined }, annotations: a, status: { poweredOn: true } });
  t.deepEqual(calls(tick(avail({ 'reboot.metal3.io': '' })).effects), []);
  t.deepEqual(calls(tick(avail({ 'reboot.metal3.io': '{"force":true}' })).effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
});

test('bmh - online false powers a provisioned host off; online true powers it on', (t) => {
  const off = tick(provisioned({ spec: { online: false } }));
  t.deepEqual(calls(off.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const on = tick(provisioned({ status: { poweredOn: false } }));
  t.deepEqual(calls(on.effects), [{ op: 'powerOn', force: false }]);
});

// BMO manageHostPower: a power read that finds the host changed clears a power management error;
// a host found in the state spec.online asks for needs no further call to clear it.
test('bmh - a power read that finds the wanted power state clears a power management error', (t) => {
  const s0 = tick(provisioned({ spec: { online: false } }));
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const s1 = reply(s0, { kind: 'failed', message: 'BMC timeout' }, T0, 0);
  t.is(s1.state.host.status.errorType, 'power management error');
  const s2 = tick(s1.state, T0 + 120_000);
  t.deepEqual(calls(s2.effects), [{ op: 'hardwareState' }]);
  const s3 = reply(s2, { kind: 'done', poweredOn: false }, T0 + 120_000);
  t.false(s3.state.host.status.poweredOn);
  t.is(s3.state.host.status.errorType, '');
  t.is(s3.state.host.status.errorMessage, '');
  t.is(s3.state.host.status.operationalStatus, 'OK');
  t.deepEqual(calls(s3.effects), []);
});

test('bmh - steady state reads the power state every poll interval', (t) => {
  const s0 = tick(provisioned());
  t.deepEqual(calls(s0.effects), []);
  t.deepEqual(s0.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 60_000 }]);
  const s1 = tick(s0.state, T0 + 60_000);
  t.deepEqual(calls(s1.effects), [{ op: 'hardwareState' }]);
  const s2 = reply(s1, { kind: 'done', poweredOn: false }, T0 + 60_000);
  t.false(s2.state.host.status.poweredOn);
  // The host is online but found off: power it on.
  t.true(calls(s2.effects).some((c) => c.op === 'powerOn'));
});

test('bmh - a queued slot request marks the host delayed; the grant clears it', (t) => {
  const s0 = tick(atState('deprovisioning', { spec: { image: undefined } }));
  const q = step(s0.state, { type: 'slotQueued', position: 1 }, T0);
  t.is(q.state.host.status.operationalStatus, 'delayed');
  t.is(grant(q.state).state.host.status.operationalStatus, 'OK');
});

test('bmh - a lost slot is asked for again before the next gated call', (t) => {
  const s0 = grant(tick(atState('deprovisioning', { spec: { image: undefined } })).state);
  const s1 = reply(s0, { kind: 'continuing', afterMs: 10 });
  const lost = step(s1.state, { type: 'slotLost', grantId: 'g1', reason: 'grant expired' }, T0);
  t.is(lost.state.slot.phase, 'none');
  const s2 = tick(lost.state, T0 + 10);
  t.deepEqual(types(s2.effects), ['requestSlot']);
});
