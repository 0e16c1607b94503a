import test from 'ava';
import type { FirmwareIntent } from '../../src/api/index.ts';
import { SERVICE_ANNOTATION } from '../../src/api/index.ts';
import type { BmhEffect, BmhState, CallArgs, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { errorBackoffMs, step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, observe, reply, settle, T0, tick, withHost } from '../support/bmh.ts';

// Issue 31 part 2: a provisioned host is serviced as BMO does it (manageHostPower ->
// doServiceIfNeeded): when it powers on (it is off and should be on) with changes its
// HostUpdatePolicy allows on reboot, or while a servicing is under way or failed. The service
// call holds a capacity slot; the host stays provisioned, its workload is never deprovisioned
// or provisioned again.

const BIOS = { ProcTurboMode: 'Disabled' };
const FLASH = [{ component: 'bios', url: 'http://fw/bios-1.2.bin' }];
const ALLOWED = { settings: true, updates: true };

function intent(o: Partial<FirmwareIntent> = {}): FirmwareIntent {
  return { settings: BIOS, updates: [], valid: true, onReboot: ALLOWED, ...o };
}

function told(s: BmhState, i: FirmwareIntent, now = T0): Step {
  return step(s, { type: 'firmwareIntent', intent: i }, now);
}

// A provisioned host that is off and should be on: BMO's moment to service it.
function poweringOn(): BmhState {
  return atState('provisioned', { status: { poweredOn: false, provisioning: { state: 'provisioned', ID: 'node-1', image: { url: 'http://images/ubuntu.qcow2', checksum: 'abc', checksumType: 'sha256' } } } });
}

// After a backoff the power is read first (BMO's manageHostPower reads it before servicing).
function afterBackoff(s: BmhState): Step {
  const at = s.retryAt! + 1;
  const read = tick(s, at);
  if (calls(read.effects)[0]?.op !== 'hardwareState') return read;
  return reply(read, { kind: 'done', poweredOn: false }, at);
}

const ops = (args: readonly CallArgs[]): string[] => args.map((a) => a.op);
const slotEffects = (effects: readonly BmhEffect[]): string[] => effects.filter((e) => e.type === 'requestSlot' || e.type === 'releaseSlot').map((e) => (e.type === 'requestSlot' ? `request:${e.op}` : 'release'));
const serviceCall = (s: Step): Extract<CallArgs, { op: 'service' }> | undefined => calls(s.effects).find((c): c is Extract<CallArgs, { op: 'service' }> => c.op === 'service');

test('bmh servicing - a provisioned host powering on with allowed changes asks for a slot, is servicing once it holds one, and the service call carries the changes', (t) => {
  const s = told(poweringOn(), intent({ updates: FLASH }));
  t.deepEqual(slotEffects(s.effects), ['request:service']);
  t.deepEqual(calls(s.effects), [], 'nothing called before the slot');
  t.not(s.state.host.status.operationalStatus, 'servicing');
  const g = grant(s.state);
  t.is(g.state.host.status.operationalStatus, 'servicing');
  t.is(g.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(serviceCall(g), { op: 'service', restartOnFailure: false, firmware: { settings: BIOS, updates: FLASH }, started: false });
  t.true(g.effects.some((e) => e.type === 'event' && e.reason === 'ServicingStarted'));
  // BMO's computeConditions: a host being serviced is not Ready, for reason Servicing.
  const ready = g.state.host.status.conditions?.find((c) => c.type === 'Ready');
  t.is(ready?.status, 'False');
  t.is(ready?.reason, 'Servicing');
});

test('bmh servicing - waiting for its slot the host is delayed, as a deploy waiting is; granted, it is servicing', (t) => {
  const s = told(poweringOn(), intent());
  const queued = step(s.state, { type: 'slotQueued', position: 3 }, T0 + 1);
  t.is(queued.state.host.status.operationalStatus, 'delayed');
  t.deepEqual(calls(queued.effects), []);
  // A wake-up while queued asks for nothing more and gives the request back to nobody.
  const woken = tick(queued.state, T0 + 2);
  t.deepEqual(slotEffects(woken.effects), []);
  const g = grant(queued.state, T0 + 3);
  t.is(g.state.host.status.operationalStatus, 'servicing');
  t.truthy(serviceCall(g));
});

test('bmh servicing - a service under way keeps its slot while the backend works, then releases it, goes back to OK and powers on; the state stays provisioned', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const working = reply(g, { kind: 'continuing', afterMs: 10_000 }, T0 + 1);
  t.deepEqual(slotEffects(working.effects), [], 'the slot is held while servicing');
  t.is(working.state.slot.phase, 'held');
  const poll = tick(working.state, T0 + 10_001);
  t.deepEqual(ops(calls(poll.effects)), ['service'], 'polled with the same call');
  // ... marked started: status says servicing, so a backend with no record of the request (a new
  // shard owner) takes a host back in service as done rather than flash it again.
  t.is(serviceCall(g)?.started, false);
  t.is(serviceCall(poll)?.started, true);
  t.is(poll.state.host.status.operationalStatus, 'servicing');
  const finished = reply(poll, done, T0 + 20_000);
  t.deepEqual(slotEffects(finished.effects), ['release']);
  t.is(finished.state.slot.phase, 'none');
  t.is(finished.state.host.status.operationalStatus, 'OK');
  t.is(finished.state.host.status.provisioning.state, 'provisioned');
  t.true(finished.effects.some((e) => e.type === 'event' && e.reason === 'ServicingComplete'));
  // The companions are read back, then the host powers on; not serviced again.
  t.deepEqual(ops(calls(finished.effects)), ['firmware']);
  const rest = settle(finished, () => done, T0 + 20_001);
  t.deepEqual(ops(calls(rest.all)), ['firmware', 'powerOn']);
});

test('bmh servicing - no provision, deprovision or adopt call ever during servicing, even when the image changes meanwhile; that waits until servicing ends', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const working = reply(g, { kind: 'continuing', afterMs: 10_000 }, T0 + 1);
  const moved = observe(working.state, withHost(working.state, (h) => ({ ...h, spec: { ...h.spec, image: { url: 'http://images/other.qcow2', checksum: 'def', checksumType: 'sha256' } } })), T0 + 10_001);
  t.deepEqual(ops(calls(moved.effects)), ['service']);
  t.is(moved.state.host.status.provisioning.state, 'provisioned');
  // Till the end of the servicing nothing else is called.
  const answers: OpResult[] = [{ kind: 'continuing', afterMs: 1 }, { kind: 'continuing', afterMs: 1 }, done];
  let cur = moved;
  const seen: string[] = [];
  for (let i = 0; i < answers.length; i++) {
    cur = reply(cur, answers[i]!, T0 + 20_000 + i * 10);
    if (cur.state.inFlight === null) cur = tick(cur.state, T0 + 20_000 + i * 10 + 5);
    seen.push(...ops(calls(cur.effects)));
  }
  t.false(seen.slice(0, -1).some((op) => op === 'provision' || op === 'deprovision' || op === 'adopt'), seen.join(','));
  t.is(cur.state.host.status.operationalStatus === 'servicing', false, 'servicing ended');
});

test('bmh servicing - the whole servicing, played out, calls only service, firmware and power', (t) => {
  const run = settle(told(poweringOn(), intent({ updates: FLASH })));
  const seen = ops(calls(run.all));
  t.deepEqual(seen, ['service', 'firmware', 'powerOn']);
  t.is(run.last.state.host.status.provisioning.state, 'provisioned');
  t.is(run.last.state.host.status.operationalStatus, 'OK');
});

test('bmh servicing - changes HostUpdatePolicy does not allow on reboot are not serviced: the host just powers on', (t) => {
  const s = told(poweringOn(), intent({ onReboot: { settings: false, updates: false }, updates: FLASH }));
  t.deepEqual(slotEffects(s.effects), []);
  t.deepEqual(ops(calls(s.effects)), ['powerOn']);
  // Settings allowed, updates not: only the settings go.
  const some = grant(told(poweringOn(), intent({ onReboot: { settings: true, updates: false }, updates: FLASH })).state);
  t.deepEqual(serviceCall(some)?.firmware, { settings: BIOS, updates: [] });
});

test('bmh servicing - a host that is on is not serviced until it reboots (BMO services as it powers on)', (t) => {
  const on = atState('provisioned', { status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image: { url: 'http://images/ubuntu.qcow2', checksum: 'abc', checksumType: 'sha256' } } } });
  const s = told(on, intent());
  t.deepEqual(calls(s.effects), []);
  t.deepEqual(slotEffects(s.effects), []);
  // A reboot: powered off, then serviced before it powers on again.
  const reboot = observe(s.state, withHost(s.state, (h) => ({ ...h, metadata: { ...h.metadata, annotations: { 'reboot.metal3.io': '' } } })), T0 + 1);
  t.deepEqual(ops(calls(reboot.effects)), ['powerOff']);
  const off = reply(reboot, { kind: 'done', poweredOn: false }, T0 + 2);
  const run = settle(off, () => done, T0 + 3);
  t.deepEqual(ops(calls(run.all)), ['service', 'firmware', 'powerOn']);
});

test('bmh servicing - a failure is a servicing error counted with BMO backoff; the slot goes back; after the backoff it is retried with restartOnFailure', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const failed = reply(g, { kind: 'failed', message: 'service failed: bios.apply_configuration' }, T0 + 1, 0.5);
  const st = failed.state.host.status;
  t.is(st.errorType, 'servicing error');
  t.is(st.operationalStatus, 'error');
  t.is(st.errorCount, 1);
  t.is(st.provisioning.state, 'provisioned');
  t.deepEqual(slotEffects(failed.effects), ['release']);
  t.is(failed.state.retryAt, T0 + 1 + errorBackoffMs(1, 0.5, failed.state.config));
  t.true(failed.effects.some((e) => e.type === 'event' && e.severity === 'Warning' && e.reason === 'ServicingError'));
  // Before the backoff ends nothing happens, not even a power-on.
  t.deepEqual(calls(tick(failed.state, T0 + 2).effects), []);
  const retry = afterBackoff(failed.state);
  t.deepEqual(slotEffects(retry.effects), ['request:service']);
  const again = grant(retry.state, failed.state.retryAt! + 2);
  t.deepEqual(serviceCall(again), { op: 'service', restartOnFailure: true, firmware: { settings: BIOS, updates: [] }, started: false });
  t.is(again.state.host.status.operationalStatus, 'servicing');
  // Failing again counts on.
  const twice = reply(again, { kind: 'failed', message: 'again' }, failed.state.retryAt! + 3, 0.5);
  t.is(twice.state.host.status.errorCount, 2);
  t.is(twice.state.retryAt, failed.state.retryAt! + 3 + errorBackoffMs(2, 0.5, twice.state.config));
});

test('bmh servicing - a backend that took the retried service clears the error while it works, and success clears the count', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const failed = reply(g, { kind: 'failed', message: 'boom' }, T0 + 1);
  const again = grant(afterBackoff(failed.state).state, failed.state.retryAt! + 1);
  const working = reply(again, { kind: 'continuing', afterMs: 5_000 }, failed.state.retryAt! + 2);
  t.is(working.state.host.status.errorType ?? '', '');
  t.is(working.state.host.status.operationalStatus, 'servicing');
  const poll = tick(working.state, failed.state.retryAt! + 6_000);
  t.false(serviceCall(poll)?.restartOnFailure ?? true, 'polls do not restart it');
  const ok = reply(poll, done, failed.state.retryAt! + 7_000);
  t.is(ok.state.host.status.errorCount, 0);
  t.is(ok.state.host.status.operationalStatus, 'OK');
});

test('bmh servicing - fixed changes recover a servicing error at once: the new intent is serviced without waiting out the backoff', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const failed = reply(g, { kind: 'failed', message: 'invalid value for ProcTurboMode' }, T0 + 1);
  const fixed = told(failed.state, intent({ settings: { ProcTurboMode: 'Enabled' } }), T0 + 2);
  t.deepEqual(slotEffects(fixed.effects), ['request:service']);
  const again = grant(fixed.state, T0 + 3);
  t.deepEqual(serviceCall(again), { op: 'service', restartOnFailure: true, firmware: { settings: { ProcTurboMode: 'Enabled' }, updates: [] }, started: false });
  const ok = reply(again, done, T0 + 4);
  t.is(ok.state.host.status.errorType ?? '', '');
  t.is(ok.state.host.status.errorMessage, '');
  t.is(ok.state.host.status.errorCount, 0);
  t.is(ok.state.host.status.operationalStatus, 'OK');
});

test('bmh servicing - the same intent told again does not cut the backoff short', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const failed = reply(g, { kind: 'failed', message: 'boom' }, T0 + 1);
  const same = told(failed.state, intent(), T0 + 2);
  t.is(same.state.retryAt, failed.state.retryAt);
  t.deepEqual(calls(same.effects), []);
});

test('bmh servicing - changes withdrawn while in servicing error: the service call carries none (BMO aborts the failed servicing) and the host returns to OK', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const failed = reply(g, { kind: 'failed', message: 'boom' }, T0 + 1);
  const withdrawn = told(failed.state, intent({ settings: {} }), T0 + 2);
  const abort = grant(withdrawn.state, T0 + 3);
  t.deepEqual(serviceCall(abort), { op: 'service', restartOnFailure: true, firmware: { settings: {}, updates: [] }, started: false });
  const back = reply(abort, done, T0 + 4);
  t.is(back.state.host.status.operationalStatus, 'OK');
  t.is(back.state.host.status.errorType ?? '', '');
  t.deepEqual(slotEffects(back.effects), ['release']);
  // Nothing left to service: the host powers on.
  const run = settle(back, () => done, T0 + 5);
  t.false(ops(calls(run.all)).includes('service'));
  t.true(ops(calls(run.all)).includes('powerOn'));
});

test('bmh servicing - a servicing found in status (a restart) goes on: it asks for a slot before anything else', (t) => {
  const found = atState('provisioned', { status: { operationalStatus: 'servicing', poweredOn: false } });
  const s = told(found, intent());
  t.deepEqual(slotEffects(s.effects), ['request:service']);
  t.deepEqual(calls(s.effects), []);
});

test('bmh servicing - a lost slot is asked for again; the node lost mid-servicing gives the slot back', (t) => {
  const g = grant(told(poweringOn(), intent()).state);
  const working = reply(g, { kind: 'continuing', afterMs: 10 }, T0 + 1);
  const lost = step(working.state, { type: 'slotLost', grantId: 'g1', reason: 'lease expired' }, T0 + 12);
  t.deepEqual(slotEffects(lost.effects), ['request:service']);
  const g2 = grant(lost.state, T0 + 20);
  const gone = reply(g2, { kind: 'needsRegistration' }, T0 + 21);
  t.true(slotEffects(gone.effects).includes('release'));
});

test('bmh servicing - the service request powers a host off so it is serviced as it powers on; the annotation goes once servicing starts', (t) => {
  const on = atState('provisioned', { status: { poweredOn: true }, annotations: { [SERVICE_ANNOTATION]: 'req-7' } });
  const s = told(on, intent());
  t.deepEqual(calls(s.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const off = reply(s, { kind: 'done', poweredOn: false }, T0 + 1);
  t.deepEqual(slotEffects(off.effects), ['request:service']);
  const g = grant(off.state, T0 + 2);
  t.truthy(serviceCall(g));
  t.true(g.effects.some((e) => e.type === 'removeAnnotation' && e.key === SERVICE_ANNOTATION));
  const run = settle(g, () => done, T0 + 3);
  t.deepEqual(ops(calls(run.all)), ['service', 'firmware', 'powerOn']);
  t.is(run.last.state.host.status.poweredOn, true);
});

for (const [name, firmware, reason] of [
  ['no pending changes', intent({ settings: {} }), /no pending firmware changes/],
  ['no companions at all', null, /no pending firmware changes/],
  ['a policy that forbids them', intent({ onReboot: { settings: false, updates: false } }), /HostUpdatePolicy does not allow firmwareSettings/],
  ['an invalid HostFirmwareSettings', intent({ valid: false }), /not valid/],
] as const) {
  test(`bmh servicing - a service request with ${name} is refused by a Warning that says why, and the annotation removed; the host is not rebooted`, (t) => {
    const on = atState('provisioned', { status: { poweredOn: true }, annotations: { [SERVICE_ANNOTATION]: '' } });
    const s = firmware ? told(on, firmware) : tick(on);
    t.deepEqual(calls(s.effects), []);
    t.true(s.effects.some((e) => e.type === 'removeAnnotation' && e.key === SERVICE_ANNOTATION));
    const warning = s.effects.find((e): e is Extract<BmhEffect, { type: 'event' }> => e.type === 'event' && e.reason === 'ServiceRefused');
    t.is(warning?.severity, 'Warning');
    t.regex(warning?.message ?? '', reason);
  });
}

test('bmh servicing - available and externally provisioned: available hosts prepare instead, externally provisioned ones are serviced as provisioned ones are', (t) => {
  const available = told(atState('available', { spec: { image: undefined }, status: { poweredOn: false } }), intent());
  t.false(calls(available.effects).some((c) => c.op === 'service'));
  const external = told(atState('externally provisioned', { spec: { externallyProvisioned: true }, status: { poweredOn: false } }), intent());
  t.deepEqual(slotEffects(external.effects), ['request:service']);
});

test('bmh servicing - a service request on an available host is removed with a reason: it prepares instead', (t) => {
  const s = tick(atState('available', { spec: { image: undefined }, annotations: { [SERVICE_ANNOTATION]: 'r-2' } }));
  t.true(s.effects.some((e) => e.type === 'removeAnnotation' && e.key === SERVICE_ANNOTATION));
  const warning = s.effects.find((e): e is Extract<BmhEffect, { type: 'event' }> => e.type === 'event' && e.reason === 'ServiceRefused');
  t.regex(warning?.message ?? '', /service \(request r-2\) refused: the host is available, not provisioned/);
  t.false(calls(s.effects).some((c) => c.op === 'service' || c.op === 'powerOff'));
});
