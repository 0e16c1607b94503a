import test from 'ava';
import type { ExecutionContext } from 'ava';
import { BareMetalHost, BareMetalHostStatus, HardwareDetails } from '../../src/api/index.ts';
import type { ProvisioningState } from '../../src/api/index.ts';
import { DETACHED, initialState, step } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, BmhState, CallArgs, Operation, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { BMO_HOSTS, HARDWARE, HARDWARE_RAID, IMAGE, NO_RAID, NODE_ID, SOFTWARE_RAID_VOLUMES } from './bmh-bmo-statuses.ts';
import type { BmoHostName, RawHost } from './bmh-bmo-statuses.ts';

// The "Done when": a host whose status BMO wrote is taken over by metalfleet, which
// registers it again as a new controller does and carries on from where BMO left it, without
// deprovisioning anything BMO would have left alone. Each title names the BMO rule it holds the
// machine to (baremetal-operator 02aa5059, host_state_machine.go / baremetalhost_controller.go).

const T0 = Date.parse('2026-12-01T06:15:00Z');
// Far above the longest path here (a failed deploy: deprovision, register, provision again).
const MAX_STEPS = 80;

type HostWithStatus = BareMetalHost & { status: BareMetalHostStatus };

/** The host as the kube adapter hands it to the machine: through the API's zod schema. */
function parseBmoHost(raw: RawHost): HostWithStatus {
  const parsed = BareMetalHost.safeParse(raw);
  if (!parsed.success) throw new Error(`BMO status does not parse: ${JSON.stringify(parsed.error.issues)}`);
  const { status } = parsed.data;
  if (!status) throw new Error('BMO host lost its status in parsing');
  return { ...parsed.data, status };
}

/**
 * A backend as a new controller finds it: it does not know the node until it is registered
 * (with BMO's node ID), then answers every call with success. Power follows the calls, starting
 * where BMO's status says the host is.
 */
class NewBackend {
  private known = false;
  private poweredOn: boolean;

  constructor(poweredOn: boolean, private readonly hardware: HardwareDetails) {
    this.poweredOn = poweredOn;
  }

  answer(args: CallArgs): OpResult {
    if (args.op === 'register') {
      this.known = true;
      return { kind: 'done', provisionerId: NODE_ID };
    }
    if (!this.known) return { kind: 'needsRegistration' };
    switch (args.op) {
      case 'inspect':
        return { kind: 'done', hardware: this.hardware };
      case 'provision':
      case 'powerOn':
        this.poweredOn = true;
        return { kind: 'done', poweredOn: true };
      case 'powerOff':
        this.poweredOn = false;
        return { kind: 'done' };
      case 'hardwareState':
        return { kind: 'done', poweredOn: this.poweredOn };
      case 'detach':
      case 'delete':
        this.known = false;
        return { kind: 'done' };
      default:
        return { kind: 'done' };
    }
  }
}

interface Replay {
  readonly calls: CallArgs[];
  /** Provisioning state after every step, in order. */
  readonly states: ProvisioningState[];
  readonly written: BareMetalHostStatus[];
  readonly effects: BmhEffect[];
  readonly last: BmhState;
  readonly now: number;
}

/**
 * Plays the actor from `start`: answers every call, grants every slot, and lets error and
 * transient backoffs elapse, until the host asks for nothing but its steady-state poll.
 */
function drive(start: Step, backend: NewBackend, startAt: number): Replay {
  let cur = start;
  let now = startAt;
  const calls: CallArgs[] = [];
  const states: ProvisioningState[] = [];
  const written: BareMetalHostStatus[] = [];
  const effects: BmhEffect[] = [];
  const record = (s: Step): void => {
    effects.push(...s.effects);
    for (const e of s.effects) {
      if (e.type === 'call') calls.push(e.args);
      if (e.type === 'writeStatus') written.push(e.status);
    }
    states.push(s.state.host.status.provisioning.state);
  };
  record(cur);
  for (let i = 0; i < MAX_STEPS; i++) {
    const call = cur.effects.filter((e): e is Extract<BmhEffect, { type: 'call' }> => e.type === 'call').at(-1);
    const retryAt = cur.state.retryAt;
    if (call) {
      cur = step(cur.state, { type: 'result', seq: call.seq, result: backend.answer(call.args), jitter: 0 }, now);
    } else if (cur.effects.some((e) => e.type === 'requestSlot')) {
      cur = step(cur.state, { type: 'slotGranted', grantId: `grant-${i}` }, now);
    } else if (!cur.state.gone && retryAt !== null && Number.isFinite(retryAt)) {
      now = Math.max(now, retryAt);
      cur = step(cur.state, { type: 'tick' }, now);
    } else {
      return { calls, states, written, effects, last: cur.state, now };
    }
    record(cur);
  }
  // A host that never rests is itself the finding (a call or transition repeating forever).
  throw new Error(`host did not come to rest in ${MAX_STEPS} steps; states: ${[...new Set(states)].join(' -> ')}; calls: ${calls.map((c) => c.op).join(',')}`);
}

/** Starts the machine on the host BMO left, as a new controller's first reconcile. */
function replay(name: BmoHostName): { host: HostWithStatus; run: Replay; backend: NewBackend } {
  const host = parseBmoHost(BMO_HOSTS[name]);
  const backend = new NewBackend(host.status.poweredOn, HardwareDetails.parse(HARDWARE));
  const run = drive(step(initialState(host), { type: 'tick' }, T0), backend, T0);
  return { host, run, backend };
}

const ops = (r: Replay): Operation[] => r.calls.map((c) => c.op);
const finalStatus = (r: Replay): BareMetalHostStatus => r.last.host.status;

function assertStatusesReadable(t: ExecutionContext, r: Replay): void {
  for (const status of r.written) {
    const parsed = BareMetalHostStatus.safeParse(status);
    t.true(parsed.success, `a status metalfleet wrote does not parse: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`);
  }
}

function assertNoDeprovisioning(t: ExecutionContext, r: Replay): void {
  t.false(ops(r).includes('deprovision'), `deprovision called; calls: ${ops(r).join(',')}`);
  t.false(r.states.includes('deprovisioning'), `went through deprovisioning; states: ${[...new Set(r.states)].join(' -> ')}`);
}

/** What BMO's provisioner recorded about the deployed host, which a takeover must not lose. */
function assertProvisioningKept(t: ExecutionContext, before: BareMetalHostStatus, after: BareMetalHostStatus): void {
  t.is(after.provisioning.ID, before.provisioning.ID);
  t.deepEqual(after.provisioning.image, before.provisioning.image, 'status.provisioning.image');
  t.deepEqual(after.provisioning.customDeploy, before.provisioning.customDeploy, 'status.provisioning.customDeploy');
  t.deepEqual(after.provisioning.raid, before.provisioning.raid, 'status.provisioning.raid');
  t.deepEqual(after.provisioning.firmware, before.provisioning.firmware, 'status.provisioning.firmware');
  t.deepEqual(after.provisioning.rootDeviceHints, before.provisioning.rootDeviceHints, 'status.provisioning.rootDeviceHints');
  t.is(after.provisioning.bootMode, before.provisioning.bootMode);
  t.deepEqual(after.hardware, before.hardware, 'status.hardware');
}

/**
 * BMO's provisioned / externally provisioned steady state (actionManageSteadyState): Register,
 * Adopt, then power; never Provision, never Deprovision, status.provisioning left as it is.
 */
function assertAdoptedInPlace(t: ExecutionContext, name: BmoHostName, state: 'provisioned' | 'externally provisioned'): Replay {
  const { host, run } = replay(name);
  assertNoDeprovisioning(t, run);
  t.false(ops(run).includes('provision'), `provision called for a ${state} host`);
  t.true(ops(run).includes('register'), `not registered with the new backend; calls: ${ops(run).join(',')}`);
  t.true(ops(run).includes('adopt'), `not adopted; calls: ${ops(run).join(',')}`);
  t.true(run.states.every((s) => s === state), `left ${state}: ${[...new Set(run.states)].join(' -> ')}`);
  t.is(finalStatus(run).provisioning.state, state);
  t.is(finalStatus(run).poweredOn, host.spec.online);
  assertProvisioningKept(t, host.status, finalStatus(run));
  assertStatusesReadable(t, run);
  return run;
}

// --- the statuses are readable ---------------------------------------------------------------

test('bmo status - every status BMO writes parses with the BareMetalHost schema, field for field', (t) => {
  for (const [name, raw] of Object.entries(BMO_HOSTS)) {
    const parsed = BareMetalHost.safeParse(raw);
    t.true(parsed.success, `${name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`);
    // Nothing BMO wrote is dropped or rewritten on the way in (the RAID nulls, the empty image).
    if (parsed.success) t.deepEqual(parsed.data.status, raw.status, name);
  }
});

// --- before available ---------------------------------------------------------------------------

test('bmo status - BMO handleRegistering: a host left registering registers and goes on to available', (t) => {
  const { run } = replay('registering');
  t.deepEqual(run.calls[0], { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.true(run.states.includes('inspecting'));
  t.true(run.states.includes('preparing'));
  t.is(finalStatus(run).provisioning.state, 'available');
  t.is(finalStatus(run).provisioning.ID, NODE_ID);
  t.false(ops(run).includes('provision'));
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

test('bmo status - BMO ensureRegistered: a registration error (errorCount 2) retries registration with restart and clears on success', (t) => {
  const { run } = replay('registrationError');
  t.deepEqual(run.calls[0], { op: 'register', restartOnFailure: true, credentialsChanged: false });
  const status = finalStatus(run);
  t.falsy(status.errorType);
  t.is(status.errorCount, 0);
  t.is(status.operationalStatus, 'OK');
  t.is(status.provisioning.state, 'available');
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

test('bmo status - BMO handleInspecting: a host left inspecting is inspected (with a slot) and goes on to available', (t) => {
  const { run } = replay('inspecting');
  t.true(run.effects.some((e) => e.type === 'requestSlot' && e.op === 'inspect'));
  t.true(ops(run).includes('inspect'));
  t.deepEqual(finalStatus(run).hardware, HARDWARE);
  t.is(finalStatus(run).provisioning.state, 'available');
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

test('bmo status - BMO handlePreparing: a host left preparing is prepared and becomes available', (t) => {
  const { host, run } = replay('preparing');
  t.true(ops(run).includes('prepare'));
  t.false(ops(run).includes('inspect'));
  t.is(finalStatus(run).provisioning.state, 'available');
  t.deepEqual(finalStatus(run).hardware, host.status.hardware);
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

test('bmo status - BMO handleMatchProfile: a host left in match profile goes to preparing, then available', (t) => {
  const { run } = replay('matchProfile');
  t.true(run.states.includes('preparing'));
  t.true(ops(run).includes('prepare'));
  t.is(finalStatus(run).provisioning.state, 'available');
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

// --- available and ready ------------------------------------------------------------------------

test('bmo status - BMO handleAvailable: an available host without an image stays available and is not prepared again', (t) => {
  const { host, run } = replay('available');
  t.deepEqual([...new Set(ops(run))].sort(), ['hardwareState', 'register']);
  t.true(run.states.every((s) => s === 'available'), [...new Set(run.states)].join(' -> '));
  assertProvisioningKept(t, host.status, finalStatus(run));
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

test('bmo status - BMO handlers(): ready is handled by handleAvailable and is never renamed', (t) => {
  const { host, run } = replay('ready');
  t.false(ops(run).includes('prepare'));
  t.false(ops(run).includes('provision'));
  t.true(ops(run).includes('hardwareState'), 'managed as available (power polled)');
  t.true(run.states.every((s) => s === 'ready'), `states: ${[...new Set(run.states)].join(' -> ')}`);
  t.is(finalStatus(run).provisioning.state, 'ready');
  assertProvisioningKept(t, host.status, finalStatus(run));
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

for (const [name, raid] of [
  ['availableHardwareRaid', 'hardware RAID volumes in status with spec.raid absent'],
  ['availableNoRaid', 'status RAID {hardwareRAIDVolumes: null, softwareRAIDVolumes: []} with spec.raid absent'],
  ['availableSoftwareRaid', 'spec software RAID with status {hardwareRAIDVolumes: null, softwareRAIDVolumes: [same]}'],
] as const) {
  test(`bmo status - BMO saveHostProvisioningSettings: ${raid} is not a RAID change (no preparing)`, (t) => {
    const { host, run } = replay(name);
    t.false(ops(run).includes('prepare'), `prepare called; calls: ${ops(run).join(',')}`);
    t.false(run.states.includes('preparing'), `states: ${[...new Set(run.states)].join(' -> ')}`);
    t.is(finalStatus(run).provisioning.state, 'available');
    assertProvisioningKept(t, host.status, finalStatus(run));
    assertNoDeprovisioning(t, run);
    assertStatusesReadable(t, run);
  });
}

test('bmo status - the RAID fixtures are what BMO writes (nulls kept, empty software list)', (t) => {
  t.deepEqual(parseBmoHost(BMO_HOSTS.availableNoRaid).status.provisioning.raid, NO_RAID);
  t.deepEqual(parseBmoHost(BMO_HOSTS.availableHardwareRaid).status.provisioning.raid, HARDWARE_RAID);
  t.deepEqual(parseBmoHost(BMO_HOSTS.availableSoftwareRaid).status.provisioning.raid, { hardwareRAIDVolumes: null, softwareRAIDVolumes: SOFTWARE_RAID_VOLUMES });
});

test('bmo status - BMO checkDelayedHost: a delayed host without a free slot stays delayed and calls nothing', (t) => {
  const host = parseBmoHost(BMO_HOSTS.delayed);
  const first = step(initialState(host), { type: 'tick' }, T0);
  t.deepEqual(first.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'provision' }]);
  const queued = step(first.state, { type: 'slotQueued', position: 4 }, T0);
  t.deepEqual([...first.effects, ...queued.effects].filter((e) => e.type === 'call'), []);
  t.is(queued.state.host.status.operationalStatus, 'delayed');
  t.is(queued.state.host.status.provisioning.state, 'available');
});

test('bmo status - BMO checkDelayedHost: a delayed host given a slot is OK again and provisions', (t) => {
  const { run } = replay('delayed');
  const firstSlot = run.effects.find((e) => e.type === 'requestSlot');
  t.is(firstSlot?.type === 'requestSlot' ? firstSlot.op : undefined, 'provision');
  t.true(ops(run).includes('provision'));
  const status = finalStatus(run);
  t.is(status.provisioning.state, 'provisioned');
  t.is(status.operationalStatus, 'OK');
  t.deepEqual(status.provisioning.image, IMAGE);
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

// --- provisioning -------------------------------------------------------------------------------

test('bmo status - BMO handleProvisioning: a host left provisioning (no error) finishes the deploy', (t) => {
  // BMO's errorType is omitempty: a host without an error has no errorType at all.
  t.false('errorType' in BMO_HOSTS.provisioning.status);
  const { run } = replay('provisioning');
  t.true(ops(run).includes('provision'), `calls: ${ops(run).join(',')}`);
  const status = finalStatus(run);
  t.is(status.provisioning.state, 'provisioned');
  t.deepEqual(status.provisioning.image, IMAGE);
  t.is(status.provisioningFailCount, 0);
  assertNoDeprovisioning(t, run);
  assertStatusesReadable(t, run);
});

test('bmo status - BMO handleProvisioning: an errorType in provisioning deprovisions and counts the failure', (t) => {
  const { host, run } = replay('provisioningError');
  t.is(host.status.provisioningFailCount, 1);
  // BMO's handleProvisioning: ErrorType != "" → ProvisioningFailCount++ → deprovisioning.
  const entering = run.written.find((s) => s.provisioning.state === 'deprovisioning');
  t.truthy(entering, 'never entered deprovisioning');
  t.is(entering?.provisioningFailCount, 2, 'provisioningFailCount on entering deprovisioning');
  t.deepEqual(entering?.lastAttemptedImage, IMAGE);
  const deprovisions = run.calls.filter((c) => c.op === 'deprovision');
  t.true(deprovisions.length > 0, 'no deprovision call');
  t.deepEqual(deprovisions[0], { op: 'deprovision', restartOnFailure: true, automatedCleaning: true });
  t.false(run.calls.slice(0, run.calls.findIndex((c) => c.op === 'deprovision')).some((c) => c.op === 'provision'), 'deployed again before deprovisioning');
  // Then, as BMO: available, fail count 2 < the limit, the same image is deployed again.
  t.true(run.states.includes('available'));
  t.is(finalStatus(run).provisioning.state, 'provisioned');
  t.is(finalStatus(run).provisioningFailCount, 0);
  t.falsy(finalStatus(run).errorType);
  assertStatusesReadable(t, run);
});

// --- provisioned and externally provisioned -----------------------------------------------------

test('bmo status - BMO actionManageSteadyState: a provisioned host with its image is adopted and stays provisioned', (t) => {
  assertAdoptedInPlace(t, 'provisioned', 'provisioned');
});

test('bmo status - BMO imageProvisioningCancelled: an empty status image (adopted host) is left alone, not deprovisioned', (t) => {
  const run = assertAdoptedInPlace(t, 'provisionedEmptyImage', 'provisioned');
  t.deepEqual(finalStatus(run).provisioning.image, { url: '' });
});

test('bmo status - BMO provisioningCancelled: a host provisioned with customDeploy only is adopted and stays provisioned', (t) => {
  const run = assertAdoptedInPlace(t, 'provisionedCustomDeploy', 'provisioned');
  t.deepEqual(finalStatus(run).provisioning.customDeploy, { method: 'install_coreos' });
});

test('bmo status - BMO handleProvisioned: hardware RAID in status with spec.raid absent stays as it is', (t) => {
  const run = assertAdoptedInPlace(t, 'provisionedHardwareRaid', 'provisioned');
  t.deepEqual(finalStatus(run).provisioning.raid, HARDWARE_RAID);
});

test('bmo status - BMO handleProvisioned: a software RAID host stays provisioned with its RAID and no root hints', (t) => {
  const run = assertAdoptedInPlace(t, 'provisionedSoftwareRaid', 'provisioned');
  t.is(finalStatus(run).provisioning.rootDeviceHints, undefined);
});

test('bmo status - BMO manageHostPower: a provisioned host with a power management error is adopted and powered on, not redeployed', (t) => {
  const run = assertAdoptedInPlace(t, 'provisionedPowerError', 'provisioned');
  t.true(ops(run).includes('powerOn'));
  t.true(finalStatus(run).poweredOn);
});

test('bmo status - BMO ensureRegistered: a provisioned host with a registration error (errorCount 2) registers with restart and is adopted', (t) => {
  const run = assertAdoptedInPlace(t, 'provisionedRegistrationError', 'provisioned');
  t.true(run.calls.some((c) => c.op === 'register' && c.restartOnFailure), 'register without restartOnFailure');
  t.falsy(finalStatus(run).errorType);
  t.is(finalStatus(run).operationalStatus, 'OK');
});

test('bmo status - BMO handleExternallyProvisioned: an externally provisioned host is adopted and stays so', (t) => {
  assertAdoptedInPlace(t, 'externallyProvisioned', 'externally provisioned');
});

// --- detached -----------------------------------------------------------------------------------

test('bmo status - BMO checkDetachedHost: a detached provisioned host makes no backend call and keeps its status', (t) => {
  const { host, run } = replay('detached');
  t.deepEqual(ops(run), []);
  t.is(finalStatus(run).operationalStatus, 'detached');
  t.is(finalStatus(run).provisioning.state, 'provisioned');
  assertProvisioningKept(t, host.status, finalStatus(run));
  assertStatusesReadable(t, run);
});

test('bmo status - BMO checkDetachedHost: a detached host with deleteAction delay makes no backend call', (t) => {
  const { run } = replay('detachedDelay');
  t.deepEqual(ops(run), []);
  t.is(finalStatus(run).operationalStatus, 'detached');
  t.is(finalStatus(run).provisioning.state, 'available');
});

test('bmo status - BMO checkDetachedHost: a re-attached provisioned host is registered and adopted, never redeployed', (t) => {
  const { host, run, backend } = replay('detached');
  const { [DETACHED]: _detached, ...annotations } = host.metadata.annotations ?? {};
  const reattached: BareMetalHost = { ...host, metadata: { ...host.metadata, annotations } };
  const after = drive(step(run.last, { type: 'observed', host: reattached }, run.now), backend, run.now);
  t.true(ops(after).includes('register'));
  t.true(ops(after).includes('adopt'));
  t.false(ops(after).includes('provision'));
  assertNoDeprovisioning(t, after);
  t.is(finalStatus(after).provisioning.state, 'provisioned');
  t.is(finalStatus(after).operationalStatus, 'OK');
  assertProvisioningKept(t, host.status, finalStatus(after));
  assertStatusesReadable(t, after);
});

// --- teardown BMO had started -------------------------------------------------------------------

test('bmo status - BMO handleDeprovisioning: a host left deprovisioning finishes deprovisioning and becomes available', (t) => {
  const { run } = replay('deprovisioning');
  // BMO itself deprovisions here: the image was removed and BMO had started.
  t.true(ops(run).includes('deprovision'));
  t.false(ops(run).includes('provision'));
  t.is(finalStatus(run).provisioning.state, 'available');
  assertStatusesReadable(t, run);
});

test('bmo status - BMO handlePoweringOffBeforeDelete: a deleted host left powering off is powered off and deleted, not deprovisioned', (t) => {
  const { run } = replay('poweringOffBeforeDelete');
  t.true(run.calls.some((c) => c.op === 'powerOff' && c.mode === 'hard'));
  t.true(ops(run).includes('delete'));
  assertNoDeprovisioning(t, run);
  t.true(run.last.gone);
  t.true(run.effects.some((e) => e.type === 'removeFinalizer'));
});

test('bmo status - BMO handleDeleting: a host left deleting is deleted from the backend without power-off or deprovisioning', (t) => {
  const { run } = replay('deleting');
  t.true(ops(run).includes('delete'));
  t.false(ops(run).includes('powerOff'));
  assertNoDeprovisioning(t, run);
  t.true(run.last.gone);
  t.true(run.effects.some((e) => e.type === 'removeFinalizer'));
});
