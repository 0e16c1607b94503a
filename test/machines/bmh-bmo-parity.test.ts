import test from 'ava';
import type { BareMetalHost, RaidTarget } from '../../src/api/index.ts';
import { desiredRaid, provisioningCancelled, raidWouldChange, step } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, BmhState, CredentialsUsed } from '../../src/machines/bmh/index.ts';
import { raidCleanSteps } from '../../src/adapters/ironic/provisioner/raid-steps.ts';
import { atState, calls, done, grant, lastCall, makeHost, observe, reply, settle, T0, tick, types, withHost } from '../support/bmh.ts';

// Issue 14 points 2, 3, 5, 6 and 7: each test names the BMO rule it holds metalfleet to.

const image = makeHost().spec.image;
const events = (effects: readonly BmhEffect[]) => effects.flatMap((e) => (e.type === 'event' ? [e.reason] : []));
const v = (version: string): CredentialsUsed => ({ name: 'worker-0-bmc', namespace: 'metal3', version });
const provisioned = (o: Parameters<typeof atState>[1] = {}) =>
  atState('provisioned', { ...o, status: { poweredOn: true, ...o.status, provisioning: { state: 'provisioned', ID: 'node-1', image, rootDeviceHints: { deviceName: '/dev/sda' }, ...o.status?.provisioning } } });

function answer(s: { state: BmhState; effects: readonly BmhEffect[] }, result: Parameters<typeof reply>[1], credentials?: CredentialsUsed, now = T0) {
  const call = lastCall(s as Parameters<typeof lastCall>[0]);
  if (!call) throw new Error('no call');
  return step(s.state, { type: 'result', seq: call.seq, result, jitter: 0, ...(credentials ? { credentials } : {}) }, now);
}

// ---- 2. registration and credentials --------------------------------------------------------

test('BMO registerHost: the Secret version a registration used lands in triedCredentials and, once it worked, goodCredentials (with BMCAccessValidated)', (t) => {
  const s0 = tick(atState('registering'));
  const s1 = answer(s0, { kind: 'done', provisionerId: 'node-1' }, v('41'));
  t.deepEqual(s1.state.host.status.triedCredentials, { credentials: { name: 'worker-0-bmc', namespace: 'metal3' }, credentialsVersion: '41' });
  t.deepEqual(s1.state.host.status.goodCredentials, { credentials: { name: 'worker-0-bmc', namespace: 'metal3' }, credentialsVersion: '41' });
  t.true(events(s1.effects).includes('BMCAccessValidated'));
});

test('BMO registerHost: a failed registration records the version it tried, never as good; a transient one records nothing (BMO saves no status on an actionError)', (t) => {
  const s0 = tick(atState('registering'));
  const failed = answer(s0, { kind: 'failed', message: 'BMC refused the credentials' }, v('7'));
  t.is(failed.state.host.status.triedCredentials?.credentialsVersion, '7');
  t.is(failed.state.host.status.goodCredentials, undefined);
  const transient = answer(s0, { kind: 'transient', message: 'connection reset' }, v('7'));
  t.is(transient.state.host.status.triedCredentials, undefined);
});

test('BMO ensureRegistered: a new version of the BMC Secret registers a provisioned host again, which stays provisioned (no adopt, no deprovision) and validates the new version', (t) => {
  const base = provisioned({ status: { goodCredentials: { credentials: { name: 'worker-0-bmc', namespace: 'metal3' }, credentialsVersion: '1' }, triedCredentials: { credentials: { name: 'worker-0-bmc', namespace: 'metal3' }, credentialsVersion: '1' } } });
  const changed = step(base, { type: 'secretChanged', key: 'metal3/worker-0-bmc', change: 'changed' }, T0);
  t.deepEqual(calls(changed.effects), [{ op: 'register', restartOnFailure: false, credentialsChanged: false }]);
  const registered = answer(changed, done, v('2'));
  t.is(registered.state.host.status.provisioning.state, 'provisioned');
  t.is(registered.state.host.status.goodCredentials?.credentialsVersion, '2');
  t.is(registered.state.host.status.triedCredentials?.credentialsVersion, '2');
  t.true(events(registered.effects).includes('BMCAccessValidated'));
  const { all } = settle(registered);
  t.false(all.some((e) => e.type === 'call' && (e.args.op === 'adopt' || e.args.op === 'deprovision' || e.args.op === 'provision')));
  // Another Secret changing is none of this host's business.
  t.deepEqual(calls(step(base, { type: 'secretChanged', key: 'metal3/other', change: 'changed' }, T0).effects), []);
});

test('BMO registerHost: registering with the same credentials clears a registration error but leaves a power management error for its own retry', (t) => {
  const tried = { credentials: { name: 'worker-0-bmc', namespace: 'metal3' }, credentialsVersion: '3' };
  const base = provisioned({ status: { operationalStatus: 'error', errorType: 'power management error', errorMessage: 'BMC timeout', errorCount: 1, goodCredentials: tried, triedCredentials: tried } });
  const s0 = step({ ...base, needsRegistration: true }, { type: 'tick' }, T0 + 3_600_000);
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['register']);
  const s1 = answer(s0, done, v('3'), T0 + 3_600_000);
  t.is(s1.state.host.status.errorType, 'power management error');
  t.false(events(s1.effects).includes('BMCAccessValidated'));
});

test('BMO actionManageSteadyState: an adopt failure is a provisioned registration error in status, and clears when adopt succeeds', (t) => {
  const s0 = tick({ ...provisioned(), needsAdopt: true });
  t.deepEqual(calls(s0.effects).map((c) => c.op), ['adopt']);
  const failed = reply(s0, { kind: 'failed', message: 'node is in maintenance' });
  t.is(failed.state.host.status.errorType, 'provisioned registration error');
  t.is(failed.state.host.status.operationalStatus, 'error');
  const retry = tick(failed.state, T0 + 120_000);
  t.deepEqual(calls(retry.effects), [{ op: 'adopt', restartOnFailure: true }]);
  const ok = reply(retry, done, T0 + 120_000);
  t.is(ok.state.host.status.errorType, '');
  t.is(ok.state.host.status.operationalStatus, 'OK');
});

// ---- 3. images and custom deploys -----------------------------------------------------------

function host(spec: Partial<BareMetalHost['spec']>, deployed: Partial<NonNullable<BareMetalHost['status']>['provisioning']>) {
  const h = makeHost({ spec, status: { provisioning: { state: 'provisioned', ID: 'n', ...deployed } } });
  return { ...h, status: h.status! };
}

test('BMO provisioningCancelled: an empty status image (adopted, or never recorded) is no reason to deprovision; another URL is; a new checksum for the same URL is not', (t) => {
  t.false(provisioningCancelled(host({}, { image: { url: '' } })));
  t.false(provisioningCancelled(host({}, {})));
  t.true(provisioningCancelled(host({ image: { url: 'http://images/other.qcow2' } }, { image })));
  t.false(provisioningCancelled(host({ image: { ...image!, checksum: 'new' } }, { image })));
  t.true(provisioningCancelled(host({ image: undefined }, { image })), 'no image in spec');
});

test('BMO provisioningCancelled with customDeploy: a changed method, a changed recorded image or a removed custom deploy redeploys; an image never recorded does not', (t) => {
  const deployed = { customDeploy: { method: 'install_coreos' }, image };
  t.false(provisioningCancelled(host({ customDeploy: { method: 'install_coreos' } }, deployed)));
  t.true(provisioningCancelled(host({ customDeploy: { method: 'other_method' } }, deployed)), 'method changed');
  t.true(provisioningCancelled(host({ customDeploy: { method: 'install_coreos' }, image: { url: 'http://images/other.qcow2' } }, deployed)), 'image changed');
  t.true(provisioningCancelled(host({ customDeploy: { method: 'install_coreos' }, image: undefined }, deployed)), 'image removed');
  t.true(provisioningCancelled(host({ customDeploy: undefined }, deployed)), 'custom deploy removed');
  t.false(provisioningCancelled(host({ customDeploy: { method: 'install_coreos' }, image: { url: 'http://images/other.qcow2' } }, { customDeploy: { method: 'install_coreos' } })), 'no image recorded');
});

test('BMO NeedsProvisioning: an available host with an image already in status is not provisioned again', (t) => {
  const s = tick(atState('available', { status: { provisioning: { state: 'available', ID: 'n', image } } }));
  t.false(s.effects.some((e) => e.type === 'requestSlot'));
  t.deepEqual(calls(s.effects).filter((c) => c.op === 'provision'), []);
});

test('BMO actionManageAvailable: after provisioning errors a new checksum (same URL) resets the fail count and is tried; the same image at the limit is not', (t) => {
  const failedImage = { ...image!, checksum: 'bad' };
  const atLimit = atState('available', { spec: { image: failedImage }, status: { poweredOn: true, provisioningFailCount: 5, lastAttemptedImage: failedImage } });
  const stuck = tick(atLimit);
  t.is(stuck.state.host.status.errorType, 'provisioning error');
  t.false(stuck.effects.some((e) => e.type === 'requestSlot'));
  const fixed = observe(stuck.state, withHost(stuck.state, (h) => ({ ...h, spec: { ...h.spec, image: { ...failedImage, checksum: 'good' } } })), T0 + 1_000);
  t.is(fixed.state.host.status.provisioningFailCount, 0);
  t.true(fixed.effects.some((e) => e.type === 'requestSlot'));
  t.is(grant(fixed.state, T0 + 1_000).state.host.status.provisioning.state, 'provisioning');
});

test('BMO handleAvailable: with no image requested the fail count and the last attempted image are dropped', (t) => {
  const s = tick(atState('available', { spec: { image: undefined }, status: { provisioningFailCount: 2, lastAttemptedImage: image } }));
  t.is(s.state.host.status.provisioningFailCount, 0);
  t.is(s.state.host.status.lastAttemptedImage, undefined);
});

// ---- 5. RAID --------------------------------------------------------------------------------

const hw = [{ level: '1' as const, sizeGibibytes: 100 }];
const sw = [{ level: '1' as const }];
const raid = (hardwareRAIDVolumes: RaidTarget['hardwareRAIDVolumes'], softwareRAIDVolumes: RaidTarget['softwareRAIDVolumes']): RaidTarget => ({ hardwareRAIDVolumes, softwareRAIDVolumes });
const steps = (target: RaidTarget | null, actual: RaidTarget | null) => raidCleanSteps(target, actual).map((s) => `${String(s.interface)}.${String(s.step)}`);

test('BMO saveHostProvisioningSettings: no spec RAID keeps the recorded hardware RAID and clears software RAID; a host that never had RAID wants none', (t) => {
  const withStatus = (status: RaidTarget | undefined) => {
    const h = makeHost({ spec: { raid: undefined }, status: { provisioning: { state: 'available', ID: 'n', raid: status } } });
    return desiredRaid({ ...h, status: h.status! });
  };
  t.is(withStatus(undefined), null);
  t.deepEqual(withStatus(raid(hw, null)), raid(hw, []));
  t.deepEqual(withStatus(raid([], sw)), raid(null, []), 'an empty hardware list is not kept as one to re-apply');
});

test('BMO BuildRAIDCleanSteps: nil keeps, an empty list clears, a new list is deleted and created; nothing changed is no preparing pass', (t) => {
  t.deepEqual(steps(raid(null, null), raid(hw, null)), [], 'nil hardware list: keep what the controller has');
  t.deepEqual(steps(raid([], null), raid(hw, null)), ['raid.delete_configuration'], 'empty hardware list: clear');
  t.deepEqual(steps(raid(hw, null), null), ['raid.delete_configuration', 'raid.create_configuration']);
  t.deepEqual(steps(raid(hw, null), raid(hw, null)), []);
  t.deepEqual(steps(raid(null, []), raid(null, sw)), ['raid.delete_configuration', 'deploy.erase_devices_metadata'], 'empty software list: clear it');
  t.deepEqual(steps(raid(null, []), raid(hw, null)), [], 'nothing to clear');
  t.deepEqual(steps(raid(hw, sw), raid(null, null)), ['raid.delete_configuration', 'deploy.erase_devices_metadata', 'raid.create_configuration'], 'software wins over hardware');
  t.false(raidWouldChange(raid(hw, []), raid(hw, null)));
  t.true(raidWouldChange(raid(null, []), raid(null, sw)));
});

test('BMO handleAvailable: a RAID change prepares once with the target and what status records, and records the result; unchanged RAID never prepares', (t) => {
  const base = atState('available', { spec: { image: undefined, raid: { hardwareRAIDVolumes: hw } }, status: { provisioning: { state: 'available', ID: 'n', rootDeviceHints: { deviceName: '/dev/sda' }, raid: { hardwareRAIDVolumes: hw, softwareRAIDVolumes: null } } } });
  t.deepEqual(calls(tick(base).effects).filter((c) => c.op === 'prepare'), [], 'same RAID');
  const cleared = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, raid: { hardwareRAIDVolumes: [] } } })));
  t.is(cleared.state.host.status.provisioning.state, 'preparing');
  t.deepEqual(calls(cleared.effects), [{ op: 'prepare', restartOnFailure: false, raid: { target: raid([], null), actual: raid(hw, null) }, rootDeviceHints: { deviceName: '/dev/sda' } }]);
  const prepared = reply(cleared, done);
  t.is(prepared.state.host.status.provisioning.state, 'available');
  t.deepEqual(prepared.state.host.status.provisioning.raid, { hardwareRAIDVolumes: [], softwareRAIDVolumes: null });
  t.deepEqual(calls(tick(prepared.state, T0 + 1_000).effects).filter((c) => c.op === 'prepare'), [], 'settled');
});

// ---- 6. capacity waits ----------------------------------------------------------------------

test('BMO checkDelayedHost: a registered host waiting for an inspection slot stays in registering and goes elsewhere, slot given back, if it no longer needs one', (t) => {
  const s0 = reply(tick(atState('registering')), done);
  t.is(s0.state.host.status.provisioning.state, 'registering');
  t.is(s0.state.slot.phase, 'waiting');
  const external = observe(s0.state, withHost(s0.state, (h) => ({ ...h, spec: { ...h.spec, externallyProvisioned: true } })));
  t.is(external.state.host.status.provisioning.state, 'externally provisioned');
  t.true(types(external.effects).includes('releaseSlot'));
});

test('BMO checkDelayedHost: a provisioned host waiting to deprovision whose image comes back gives the slot back and stays provisioned', (t) => {
  const base = provisioned();
  const removed = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, image: undefined } })));
  t.is(removed.state.slot.phase, 'waiting');
  const back = observe(removed.state, withHost(removed.state, (h) => ({ ...h, spec: { ...h.spec, image } })), T0 + 1_000);
  t.is(back.state.host.status.provisioning.state, 'provisioned');
  t.is(back.state.slot.phase, 'none');
  t.true(types(back.effects).includes('releaseSlot'));
});

// ---- 7. errors and messages -----------------------------------------------------------------

test('BMO handleMatchProfile: leaving the legacy match profile state starts a fresh error count', (t) => {
  const s = tick(atState('match profile', { status: { errorCount: 3 } }));
  t.is(s.state.host.status.provisioning.state, 'preparing');
  t.is(s.state.host.status.errorCount, 0);
});

test('BMO manageHostPower clarifySoftPoweroffFailure: a failed soft power-off keeps BMO\'s message, and the retry is hard and forced', (t) => {
  const base = provisioned({ spec: { online: false } });
  const s0 = tick(base);
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const failed = reply(s0, { kind: 'failed', message: 'BMC did not answer' });
  t.is(failed.state.host.status.errorType, 'power management error');
  t.is(failed.state.host.status.errorMessage, 'Continuing with hard poweroff after soft poweroff fails. More details: BMC did not answer');
  // After the backoff the power is read again, then the retry goes out hard and forced.
  const read = tick(failed.state, T0 + 120_000);
  t.deepEqual(calls(read.effects), [{ op: 'hardwareState' }]);
  const retry = reply(read, { kind: 'done', poweredOn: true }, T0 + 120_000);
  t.deepEqual(calls(retry.effects), [{ op: 'powerOff', mode: 'hard', force: true }]);
  const again = reply(retry, { kind: 'failed', message: 'BMC did not answer' }, T0 + 120_000);
  t.is(again.state.host.status.errorMessage, 'BMC did not answer', 'a hard power-off failure is reported as it is');
});

test('BMO manageHostPower with disablePowerOff: a reboot request is one reboot in place (the power-off call reboots), the annotation goes and the host is never left off', (t) => {
  const base = provisioned({ spec: { disablePowerOff: true }, annotations: { 'reboot.metal3.io': '' } });
  const s0 = tick(base);
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  const s1 = reply(s0, { kind: 'done', poweredOn: true });
  t.true(s1.state.host.status.poweredOn);
  t.true(s1.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'reboot.metal3.io'));
  t.true(events(s1.effects).includes('Rebooted'));
  t.false(events(s1.effects).includes('PowerOff'));
  const { all } = settle(tick(s1.state, T0 + 1_000), () => ({ kind: 'done', poweredOn: true }), T0 + 1_000);
  t.deepEqual(all.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), [], 'one reboot only');
});

test('BMO manageHostPower with disablePowerOff: a suffixed reboot annotation is served once while it stays (BMO would reboot again on every pass)', (t) => {
  const base = provisioned({ spec: { disablePowerOff: true }, annotations: { 'reboot.metal3.io/phase-1': '{"mode":"hard"}' } });
  const s0 = tick(base);
  t.deepEqual(calls(s0.effects), [{ op: 'powerOff', mode: 'hard', force: false }]);
  const s1 = reply(s0, { kind: 'done', poweredOn: true });
  t.false(s1.effects.some((e) => e.type === 'removeAnnotation'), 'a suffixed annotation belongs to whoever set it');
  const later = tick(s1.state, T0 + 30_000);
  t.deepEqual(calls(later.effects), []);
  // Set again after its removal: a new request, served again.
  const removed = observe(later.state, withHost(later.state, (h) => ({ ...h, metadata: { ...h.metadata, annotations: {} } })), T0 + 31_000);
  const again = observe(removed.state, withHost(removed.state, (h) => ({ ...h, metadata: { ...h.metadata, annotations: { 'reboot.metal3.io/phase-1': '{"mode":"hard"}' } } })), T0 + 32_000);
  t.deepEqual(calls(again.effects), [{ op: 'powerOff', mode: 'hard', force: false }]);
});

// ---- 2. adopted again when the backend needs it ---------------------------------------------

test('BMO actionManageSteadyState: a provisioned host whose backend node is no longer deployed is adopted again, never redeployed', (t) => {
  const base = provisioned();
  const read = tick({ ...base, powerCheckAt: null });
  t.deepEqual(calls(read.effects), [{ op: 'hardwareState' }]);
  const notDeployed = reply(read, { kind: 'done', poweredOn: true, deployed: false });
  t.deepEqual(calls(notDeployed.effects), [{ op: 'adopt', restartOnFailure: false }]);
  t.true(events(notDeployed.effects).includes('AdoptNeeded'));
  const adopted = reply(notDeployed, done);
  t.is(adopted.state.host.status.provisioning.state, 'provisioned');
  t.false(adopted.state.needsAdopt);
  // A node that says it is deployed, or says nothing, needs no adopt.
  t.deepEqual(calls(reply(read, { kind: 'done', poweredOn: true, deployed: true }).effects), []);
  t.deepEqual(calls(reply(read, { kind: 'done', poweredOn: true }).effects), []);
});

test('a registered host waiting for its inspection slot that registers again and fails gives the slot back until registration works (found by the Secret-wait property)', (t) => {
  const waiting = reply(tick(atState('registering')), done);
  t.is(waiting.state.slot.phase, 'waiting');
  const again = step(waiting.state, { type: 'secretChanged', key: 'metal3/worker-0-bmc', change: 'changed' }, T0);
  t.deepEqual(calls(again.effects).map((c) => c.op), ['register']);
  const failed = reply(again, { kind: 'failed', message: 'BMC refused the new password' });
  t.is(failed.state.slot.phase, 'none');
  t.true(types(failed.effects).includes('releaseSlot'));
  const ok = reply(tick(failed.state, T0 + 120_000), done, T0 + 120_000);
  t.is(ok.state.slot.phase, 'waiting', 'a slot is asked for again once registration works');
});
