import { initialStatus, parseHardwareDetailsAnnotation, parseStatusAnnotation } from '../../api/index.ts';
import { deepEqual } from '../../api/index.ts';
import type { BareMetalHost, FirmwareIntent } from '../../api/index.ts';
import { stillApplied } from './firmware-intent.ts';
import { DETACHED, HARDWARE_DETAILS, STATUS, detachRequest, inspectionDisabled, isPaused } from './annotations.ts';
import { computeConditions } from './conditions.ts';
import { handleDeletion } from './deletion.ts';
import { applyResult, endSecretWait } from './results.ts';
import { CREDENTIALS_FIELD, secretRefsOf } from './secret-refs.ts';
import { HANDLERS } from './states.ts';
import { Turn } from './turn.ts';
import type { BmhEvent, BmhState, MachineConfig, OpResult, SecretChange, Step } from './types.ts';
import { DEFAULT_MACHINE_CONFIG, HOST_FINALIZER, NO_BACKEND_HINTS } from './types.ts';

// Bounds the transitions one step may chain; the longest real chain is four.
const MAX_CHAIN = 12;

export function initialState(host: BareMetalHost, config: MachineConfig = DEFAULT_MACHINE_CONFIG): BmhState {
  return {
    config,
    host: { ...host, status: host.status ?? initialStatus() },
    inFlight: null,
    seq: 0,
    slot: { phase: 'none' },
    retryAt: null,
    transientCount: 0,
    powerCheckAt: null,
    needsRegistration: false,
    needsAdopt: false,
    gone: false,
    waitingForSecret: null,
    resumed: true,
    // A host no controller has looked at yet ('' state) never asked for a slot.
    grantInherited: (host.status?.provisioning.state ?? '') !== '',
    backendBusy: false,
    backend: NO_BACKEND_HINTS,
    announced: null,
    rebootsServed: [],
    inspectionAborted: false,
    firmware: null,
    firmwareApplied: null,
    firmwareReadDue: false,
  };
}

// The BareMetalHost lifecycle as a pure function: no clock (now comes in), no I/O, no randomness
// (jitter comes in the result event). The host actor performs the effects and feeds back results.
export function step(state: BmhState, event: BmhEvent, now: number): Step {
  if (state.gone) return { state, effects: [] };
  const wasPaused = isPaused(state.host);
  const t = new Turn(state, now);
  switch (event.type) {
    case 'observed':
      observe(t, event.host);
      break;
    case 'tick':
      break;
    case 'result': {
      const inFlight = t.s.inFlight;
      if (!inFlight || inFlight.seq !== event.seq) return { state, effects: [] };
      t.s.inFlight = null;
      // A paused host drops results; it re-reads the backend when unpaused (level-triggered).
      if (!wasPaused) applyResult(t, inFlight.op, softened(inFlight, event.result, t.status.errorType), event.jitter, event.credentials, inFlight);
      if (!wasPaused && inFlight.op === 'hardwareState' && event.result.kind === 'done') followBackendWork(t, event.result.busy === true);
      break;
    }
    case 'firmwareIntent':
      firmwareIntent(t, event.intent);
      break;
    case 'slotGranted':
      if (t.s.slot.phase === 'waiting') {
        t.s.slot = { phase: 'held', op: t.s.slot.op, grantId: event.grantId };
        if (t.status.operationalStatus === 'delayed') t.patchStatus({ operationalStatus: t.okOrError() });
      }
      break;
    case 'slotQueued':
      if (t.s.slot.phase === 'waiting' && !wasPaused && t.status.operationalStatus !== 'error') t.patchStatus({ operationalStatus: 'delayed' });
      break;
    case 'secretChanged':
      secretChanged(t, event.key, event.change);
      break;
    case 'slotLost':
      if (t.s.slot.phase === 'held' && t.s.slot.grantId === event.grantId) {
        t.s.slot = { phase: 'none' };
        t.event('Warning', 'CapacitySlotLost', event.reason);
      }
      break;
  }
  if (isPaused(t.host)) {
    // A paused host gives its slot back (below) without reading the backend: an inherited one too.
    if (t.s.grantInherited) releaseInheritedGrant(t);
    if (wasPaused) return t.effects.length > 0 ? t.finish() : { state, effects: [] };
    t.releaseSlot();
    t.event('Normal', 'Paused', 'reconciliation paused by annotation');
    return t.finish();
  }
  // BMO's reconcileHostData runs on every reconcile of a host not paused: a host created paused
  // (clusterctl move) restores its status when it is unpaused, before the state machine sees it.
  restoreStatusAnnotation(t);
  drive(t);
  if (t.s.grantInherited) settleInheritedGrant(t, event);
  // As BMO after ReconcileState: conditions follow the status (and the backend's node facts);
  // unchanged ones leave the status as it was, so they cause no write. A paused host is skipped
  // above, as BMO returns before reconciling it; a host gone has no status left to write.
  if (!t.s.gone) {
    const conditions = computeConditions(t.host, now, t.s.backend);
    if (conditions !== t.status.conditions) t.patchStatus({ conditions });
  }
  return t.finish();
}

/**
 * Decides on a grant an earlier incarnation may have left (BmhState.grantInherited) once this
 * step shows what the backend is doing. Asked for a slot: the acquire adopts it (its work, still
 * running, keeps it). Otherwise released once a backend call has answered (the work is over: a
 * gated operation still running would have made this host ask for its slot), once the host is
 * gone, or when the host has nothing to ask the backend at all (unmanaged, detached). A transient
 * failure or a missing Secret read nothing: the decision waits for the next answer.
 */
function settleInheritedGrant(t: Turn, event: BmhEvent): void {
  if (t.s.slot.phase !== 'none') {
    t.s.grantInherited = false;
    return;
  }
  const read = event.type === 'result' && event.result.kind !== 'transient' && event.result.kind !== 'waitForSecret';
  const nothingToAsk = t.s.inFlight === null && t.s.retryAt === null && t.s.waitingForSecret === null;
  if (t.s.gone || read || nothingToAsk) releaseInheritedGrant(t);
}

// How soon a host holding a slot for work it did not start reads the backend again.
const BUSY_POLL_MS = 2_000;

/**
 * A power read found the backend busy with a gated operation: an inherited grant is adopted (the
 * slot asked for: the acquire moves the live grant here) and held while the operation runs; once a
 * read finds it over, the slot goes back.
 */
function followBackendWork(t: Turn, busy: boolean): void {
  if (busy && t.s.grantInherited && t.s.slot.phase === 'none') {
    t.s.backendBusy = true;
    t.ensureSlot('provision');
  }
  if (!t.s.backendBusy) return;
  if (!busy) {
    t.s.backendBusy = false;
    t.releaseSlot();
    return;
  }
  t.s.powerCheckAt = Math.min(t.s.powerCheckAt ?? Number.POSITIVE_INFINITY, t.now + Math.min(BUSY_POLL_MS, t.s.config.powerPollMs));
}

function releaseInheritedGrant(t: Turn): void {
  t.s.grantInherited = false;
  t.effects.push({ type: 'releaseGrant' });
}

// BMO's clarifySoftPoweroffFailure: a soft power-off that failed says the next attempt is hard (a
// host with errors powers off hard), unless the host was already failing at power management.
const SOFT_POWER_OFF_FAILED = 'Continuing with hard poweroff after soft poweroff fails. More details: ';

function softened(inFlight: NonNullable<BmhState['inFlight']>, result: OpResult, errorType: string | undefined): OpResult {
  if (!inFlight.soft || result.kind !== 'failed' || errorType === 'power management error') return result;
  return { ...result, message: SOFT_POWER_OFF_FAILED + result.message };
}

function observe(t: Turn, host: BareMetalHost): void {
  const before = t.host;
  const changed = before.metadata.generation !== host.metadata.generation
    || JSON.stringify(before.spec) !== JSON.stringify(host.spec)
    || JSON.stringify(before.metadata.annotations ?? {}) !== JSON.stringify(host.metadata.annotations ?? {})
    || before.metadata.deletionTimestamp !== host.metadata.deletionTimestamp
    || JSON.stringify(before.metadata.finalizers ?? []) !== JSON.stringify(host.metadata.finalizers ?? []);
  // The machine owns status; an observed object contributes spec and metadata only.
  t.s.host = { ...host, status: t.status };
  // A change may be the fix for what failed (credentials, address, image): try again now, as a
  // watch-triggered reconcile does in the anchor.
  // An unchanged host re-delivered means something it refers to changed (its credentials Secret):
  // that is the fix a registration error waits for.
  const credentialsWake = !changed && t.status.errorType === 'registration error';
  if ((changed || credentialsWake) && t.s.retryAt !== null) t.s.retryAt = null;
  // A changed spec may name another Secret; a re-delivery may be the awaited one appearing.
  if (t.s.waitingForSecret !== null) endSecretWait(t);
}

// A Secret the host names appeared or changed: what a wait for it, or a registration error over
// its credentials, was waiting for; new BMC credentials are registered again (BMO's
// ensureRegistered runs on every reconcile and sends a new Secret version to the backend). One
// going away changes nothing until a call needs it.
function secretChanged(t: Turn, key: string, change: SecretChange): void {
  if (change === 'removed') return;
  const waited = t.s.waitingForSecret?.key === key;
  const credentials = secretRefsOf(t.host).some((r) => r.key === key && r.field === CREDENTIALS_FIELD);
  if (credentials && REGISTERS_AGAIN.has(t.state) && !t.host.metadata.deletionTimestamp) credentialsChanged(t);
  const registrationError = credentials && (t.status.errorType === 'registration error' || t.status.errorType === 'provisioned registration error');
  if (!waited && !registrationError) return;
  if (waited) {
    endSecretWait(t);
    t.event('Normal', 'SecretAvailable', `Secret ${key} ${change}: continuing`);
  }
  t.s.retryAt = null;
}

// States whose backend record takes new credentials by registering again (BMO's ensureRegistered
// skips "", unmanaged, match profile and deleting; registering registers anyway).
const REGISTERS_AGAIN: ReadonlySet<string> = new Set(['registering', 'inspecting', 'preparing', 'ready', 'available', 'provisioning', 'provisioned', 'externally provisioned', 'deprovisioning', 'powering off before delete']);

// The companions changed. A new ask may be the fix for a failed preparing or servicing (BMO
// reconciles the host on an HFS/HFC change): tried again now, as a changed spec is.
function firmwareIntent(t: Turn, intent: FirmwareIntent): void {
  const before = t.s.firmware;
  t.s.firmware = intent;
  t.s.firmwareApplied = stillApplied(t.s.firmwareApplied, intent);
  const failed = t.status.errorType === 'servicing error' || t.status.errorType === 'preparation error';
  if (failed && !deepEqual(before, intent) && t.s.retryAt !== null) t.s.retryAt = null;
}

// clusterctl move / pivot: status travels in an annotation and is restored when the object has
// never been written by a controller (reference/bmo.md §1.7).
function restoreStatusAnnotation(t: Turn): void {
  const raw = t.host.metadata.annotations?.[STATUS];
  if (raw === undefined) return;
  if (!t.status.lastUpdated) {
    const parsed = parseStatusAnnotation(raw);
    if (parsed.ok && parsed.value) {
      t.patchStatus(parsed.value);
      t.event('Normal', 'StatusRestored', 'status restored from annotation');
    } else if (!parsed.ok) {
      t.event('Warning', 'InvalidAnnotationValue', `${STATUS}: ${parsed.error.reason}; ignored`);
    }
  }
  t.removeAnnotation(STATUS);
}

function drive(t: Turn): void {
  for (let i = 0; i < MAX_CHAIN; i++) {
    if (t.s.gone || t.s.inFlight) return;
    const retryAt = t.s.retryAt;
    if (retryAt !== null && t.now < retryAt) {
      if (Number.isFinite(retryAt)) t.requeue(retryAt - t.now);
      return;
    }
    // A wait's recheck is due: the call reads the Secret again (and waits again if it is missing).
    if (t.s.waitingForSecret !== null) t.s.waitingForSecret = null;
    if (!handle(t)) return;
  }
}

function handle(t: Turn): boolean {
  applyHardwareDetails(t);
  if (t.host.metadata.deletionTimestamp) return handleDeletion(t);
  ensureFinalizer(t);
  const state = t.state;
  if (handleDetach(t)) return false;
  if (!t.s.needsRegistration && REGISTERS_AGAIN.has(state) && credentialsMoved(t)) credentialsChanged(t);
  if (t.s.needsRegistration && state !== '' && state !== 'unmanaged' && state !== 'registering') {
    t.register();
    return false;
  }
  if (t.s.needsAdopt || adoptionFailed(t)) {
    t.call({ op: 'adopt', restartOnFailure: t.status.errorType === 'provisioned registration error' });
    return false;
  }
  // Only a host with firmware companions has a status of them to refresh.
  if (t.s.firmwareReadDue && t.s.firmware !== null && FIRMWARE_READABLE.has(state)) {
    t.call({ op: 'firmware' });
    return false;
  }
  return HANDLERS[state](t);
}

// Where the backend holds the host at rest (BMO's HFS controller reads it in these states).
const FIRMWARE_READABLE: ReadonlySet<string> = new Set(['preparing', 'ready', 'available', 'provisioned', 'externally provisioned']);

// New BMC credentials are registered again. BMO's ensureRegistered, finding goodCredentials do not
// match them past registering, dates that as a new registration (recordStateBegin); a detached
// host registers only once it is attached again, so it has none to date yet.
function credentialsChanged(t: Turn): void {
  t.s.needsRegistration = true;
  const detached = detachRequest(t.host) !== null || t.status.operationalStatus === 'detached';
  if (t.state !== 'registering' && !detached) t.stampOperationStart('register');
}

// BMO's ensureRegistered registers again whenever goodCredentials does not match the Secret the
// spec names: pointing spec.bmc.credentialsName at another Secret (live, or while no controller
// ran) sends the new credentials to the backend. A version change within the same Secret comes
// as secretChanged; a host that never validated any credentials has nothing to compare.
function credentialsMoved(t: Turn): boolean {
  const name = t.host.spec.bmc?.credentialsName;
  const good = t.status.goodCredentials?.credentials;
  if (!name || !good) return false;
  return good.name !== name || good.namespace !== t.host.metadata.namespace;
}

// BMO's actionManageSteadyState adopts on every pass, with restartOnFailure while status says the
// last adoption failed: the error in status is what keeps retrying it, so a host taken over with
// it (a restart, a new owner) retries too, rather than showing the error forever.
function adoptionFailed(t: Turn): boolean {
  return t.status.errorType === 'provisioned registration error' && (t.state === 'provisioned' || t.state === 'externally provisioned');
}

// Returns true when detachment owns this step (a detach call, or a detached host at rest).
function handleDetach(t: Turn): boolean {
  const request = detachRequest(t.host);
  const detached = t.status.operationalStatus === 'detached';
  if (request === null) {
    // BMO checkDetachedHost: a failed detach is no longer wanted, so its error goes too.
    if (t.status.errorType === 'detach error') t.clearError();
    if (detached) {
      // Re-attached: register again and adopt, never provision a second time.
      t.patchStatus({ operationalStatus: t.okOrError() });
      t.s.needsRegistration = true;
      t.s.needsAdopt = t.state === 'provisioned' || t.state === 'externally provisioned';
    }
    return false;
  }
  if (detached) {
    t.pollDetached();
    return true;
  }
  if (request.malformed) t.event('Warning', 'InvalidAnnotationValue', `${DETACHED}: value is not valid JSON; detaching with defaults`);
  const state = t.state;
  const settled = state === 'provisioned' || state === 'externally provisioned' || state === 'available' || state === 'ready';
  if (!settled && !request.force) return false;
  t.releaseSlot();
  // BMO's checkDetachedHost: a settled host is detached without force (a forced detach aborts
  // the backend's work, e.g. a service waiting for its ramdisk); the annotation's force is what
  // lets a host elsewhere be detached at all.
  t.call({ op: 'detach', force: !settled });
  return true;
}

function applyHardwareDetails(t: Turn): void {
  const raw = t.host.metadata.annotations?.[HARDWARE_DETAILS];
  if (raw === undefined) return;
  // BMO's updateHardwareDetails: taken when status has none, or always with inspection disabled
  // (the annotation is then the only source, so a new one updates what status holds).
  if (!t.status.hardware || inspectionDisabled(t.host)) {
    const details = parseHardwareDetailsAnnotation(raw);
    if (details.ok && details.value) t.patchStatus({ hardware: details.value });
    else if (!details.ok) t.event('Warning', 'InvalidAnnotationValue', `${HARDWARE_DETAILS}: ${details.error.reason}; ignored`);
  }
  t.removeAnnotation(HARDWARE_DETAILS);
}

function ensureFinalizer(t: Turn): void {
  const finalizers = t.host.metadata.finalizers ?? [];
  if (finalizers.includes(HOST_FINALIZER)) return;
  t.s.host = { ...t.s.host, metadata: { ...t.s.host.metadata, finalizers: [...finalizers, HOST_FINALIZER] } };
  t.effects.push({ type: 'addFinalizer', finalizer: HOST_FINALIZER });
}
