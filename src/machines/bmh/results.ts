import { INSPECT, inspectionRequested, REBOOT, rebootRequests } from './annotations.ts';
import { doneEvents } from './bmo-events.ts';
import { effectiveRootDeviceHints, matchProfile } from './hardware-profile.ts';
import { sameCredentials } from './credentials.ts';
import { clearProvisioningSettings, desiredRaid } from './provisioning-settings.ts';
import { afterRegistration } from './states.ts';
import { rebootedInPlace } from './power.ts';
import { DELETE_GIVE_UP, finishDeletion, TEARDOWN } from './deletion.ts';
import type { Turn } from './turn.ts';
import type { FirmwareChanges } from '../../api/index.ts';
import { describe } from './servicing.ts';
import { hasChanges, withApplied } from './firmware-intent.ts';
import type { CredentialsUsed, Operation, OpResult, SecretWait } from './types.ts';
import { GATED_OPERATIONS } from './types.ts';

// Applies a backend call's outcome. Transitions that follow a finished call happen here; the
// state handlers decide what to call next. call: what the call carried that its outcome is read
// with (the firmware changes of a prepare or service, an inspect's forced reboot).
export function applyResult(t: Turn, op: Operation, result: OpResult, jitter: number, credentials?: CredentialsUsed, call?: { readonly firmware?: FirmwareChanges; readonly forceReboot?: true } | null): void {
  const sent = call?.firmware;
  if (op === 'inspect' && result.kind !== 'transient') inspectionAborted(t, result, call?.forceReboot === true);
  if (op === 'provision' && call?.forceReboot === true && result.kind === 'continuing' && result.started === true) serveForcedReboots(t);
  // BMO saves triedCredentials with the status of an attempt that got an answer; a transient error
  // saves nothing, so the next attempt still sees the new credentials as changed.
  if (op === 'register' && credentials && (result.kind === 'done' || result.kind === 'failed' || result.kind === 'continuing')) recordCredentials(t, 'triedCredentials', credentials);
  switch (result.kind) {
    case 'transient':
      // BMO logs the error a reconcile returned and retries, its status untouched. The reason is
      // told once a run (a Warning the node logs and the host's recent events keep), not once a
      // retry: a backend that throws, or cannot be reached, says why the host does not move.
      if (t.s.transientCount === 0) t.event('Warning', 'TransientError', `${op} failed, retrying: ${result.message}`);
      t.transient();
      return;
    case 'continuing':
      // BMO's actionProvisioning: a deploy the backend took has rebooted the host, or will: the
      // plain reboot annotation is served (clearRebootAnnotations) rather than left to reboot the
      // new deployment once it is provisioned. Suffixed ones are their setters'.
      if (op === 'provision') t.removeAnnotation(REBOOT);
      if (op === 'inspect' && result.started) {
        inspectionAnswered(t);
        // BMO's actionInspecting: "Inspection is either freshly started or was aborted. Either
        // way, remove the reboot annotation" (the base one; suffixed ones are their setters').
        t.removeAnnotation(REBOOT);
      }
      // The backend paces its own polls, but one asking to be polled again at once goes through
      // the growing transient backoff, as BMO's zero-delay requeue goes through the rate limiter.
      if (!(result.afterMs > 0)) {
        t.transient();
        return;
      }
      // BMO's actionManageSteadyState adopts on every pass: one under way is polled until done,
      // also once its error (what kept it being retried) is cleared below.
      if (op === 'adopt') t.s.needsAdopt = true;
      if (t.status.errorType && clearsOnProgress(op)) {
        // BMO's doServiceIfNeeded: servicing goes on, so operationalStatus says so.
        t.patchStatus({ errorType: '', errorMessage: '', operationalStatus: op === 'service' ? 'servicing' : 'OK' });
      }
      t.s.retryAt = t.now + result.afterMs;
      t.requeue(result.afterMs);
      return;
    case 'needsRegistration':
      onNodeLost(t, op, jitter);
      return;
    case 'failed':
      onFailed(t, op, result.message, jitter, result.retryAfterMs);
      return;
    case 'waitForSecret':
      onSecretMissing(t, op, result, jitter);
      return;
    case 'done':
      if (result.hints && (result.hints.powerFailure !== t.s.backend.powerFailure || result.hints.health !== t.s.backend.health)) t.s.backend = result.hints;
      // Registering and adopting a lost node again is recovery, not progress: a node lost again
      // right after keeps counting towards a longer backoff.
      if (op !== 'register' && op !== 'adopt') t.s.transientCount = 0;
      {
        const validated = op === 'register' && recordCredentials(t, 'goodCredentials', credentials ?? unversioned(t));
        if (clearsError(op, t.status.errorType, validated) || leftoverCount(op, t)) t.clearError();
        for (const e of doneEvents(op, t.host, { firstRegistration: op === 'register' && t.state === 'registering', credentialsValidated: validated })) t.event(e.severity, e.reason, e.message);
      }
      onDone(t, op, result, jitter, sent);
  }
}

/**
 * BMO's actions clear the error (clearError, the count kept) once the backend took a retry and
 * reports the operation under way (a Dirty result): actionInspecting, actionProvisioning,
 * actionDeprovisioning, actionManageSteadyState's Adopt, manageHostPower (powering off before
 * delete too) and doServiceIfNeeded. Kept, the error made every poll that followed another
 * restart or forced call, showed the host in error while the retry was working, and a teardown
 * the backend kept failing never counted past 3 to let a deletion go on. The next failure counts
 * on from the kept count; the operation finishing ends the run (leftoverCount).
 */
function clearsOnProgress(op: Operation): boolean {
  switch (op) {
    case 'inspect': case 'provision': case 'deprovision': case 'adopt': case 'powerOn': case 'powerOff': case 'service': return true;
    // Preparing clears only once the clean steps started (BMO's `started`), which its result
    // does not say; registration and detach keep theirs until done.
    default: return false;
  }
}

/**
 * A count without an error: a restarted deprovision or service the backend took cleared the error
 * and kept its count (BMO's clearError); any operation that then finishes, registration and
 * adoption too, ends that run of failures. Reads still clear nothing.
 */
function leftoverCount(op: Operation, t: Turn): boolean {
  return op !== 'hardwareState' && op !== 'firmware' && !t.status.errorType && t.status.errorCount > 0;
}

/**
 * Which errors a finished call clears (BMO): registration clears a registration error, or any
 * error when it validated new credentials; adopt and detach clear their own; a power read
 * clears nothing; every other operation that finished clears what the host had.
 */
function clearsError(op: Operation, errorType: string | undefined, credentialsValidated: boolean): boolean {
  switch (op) {
    case 'register': return credentialsValidated || errorType === 'registration error' || errorType === 'provisioned registration error';
    case 'adopt': return errorType === 'provisioned registration error';
    case 'hardwareState': return false;
    // BMO's detachHost: only a detach error; another stays for the host once it is re-attached.
    case 'detach': return errorType === 'detach error';
    // A read of what the host has; it fixes nothing.
    case 'firmware': return false;
    default: return true;
  }
}

/** The Secret a host's spec names, without a version: for a call that did not say which it read. */
function unversioned(t: Turn): CredentialsUsed | undefined {
  const name = t.host.spec.bmc?.credentialsName;
  return name ? { name, namespace: t.host.metadata.namespace, version: '' } : undefined;
}

/** Records credentials in goodCredentials or triedCredentials; true when that changed what status said. */
function recordCredentials(t: Turn, field: 'goodCredentials' | 'triedCredentials', used: CredentialsUsed | undefined): boolean {
  if (!used) return false;
  if (sameCredentials(t.status[field], used)) return false;
  t.patchStatus({ [field]: { credentials: { name: used.name, namespace: used.namespace }, ...(used.version ? { credentialsVersion: used.version } : {}) } });
  return true;
}

function onDone(t: Turn, op: Operation, result: Extract<OpResult, { kind: 'done' }>, jitter: number, sent: FirmwareChanges | undefined): void {
  const spec = t.host.spec;
  switch (op) {
    case 'register': {
      t.s.needsRegistration = false;
      // BMO's ensureRegistered: a registration again, past registering, has ended.
      if (t.state !== 'registering') t.stampOperationEnd('register');
      if (result.provisionerId && result.provisionerId !== t.status.provisioning.ID) t.patchProvisioning({ ID: result.provisionerId });
      // BMO's matchProfile, at the end of every registration: the profile and the root disk.
      if (!recordProfile(t, jitter)) return;
      if (t.state === 'registering') afterRegistration(t);
      return;
    }
    case 'inspect':
      inspectionAnswered(t);
      if (result.hardware) t.patchStatus({ hardware: result.hardware });
      t.releaseSlot();
      // BMO's HostFirmwareSettings controller reads the settings of a host once it is inspected.
      t.s.firmwareReadDue = true;
      t.transition('preparing', 'inspection complete');
      return;
    case 'prepare':
      t.patchProvisioning({ raid: desiredRaid(t.host) ?? undefined, rootDeviceHints: effectiveRootDeviceHints(t.host) });
      if (sent) t.s.firmwareApplied = withApplied(t.s.firmwareApplied, sent);
      // The companions show what preparing changed once the backend is read again.
      t.s.firmwareReadDue = true;
      t.transition('available', 'preparation complete');
      return;
    case 'service':
      t.releaseSlot();
      if (sent) t.s.firmwareApplied = withApplied(t.s.firmwareApplied, sent);
      t.s.firmwareReadDue = true;
      // BMO: servicing finished, operationalStatus back to OK (the errors went with clearError).
      if (t.status.operationalStatus !== 'OK') t.patchStatus({ operationalStatus: 'OK' });
      t.event('Normal', 'ServicingComplete', sent && hasChanges(sent) ? `Servicing completed: ${describe(sent)}` : 'Servicing ended: the host is back in service without changes');
      return;
    case 'firmware':
      t.s.firmwareReadDue = false;
      return;
    case 'provision':
      t.removeAnnotation(REBOOT);
      t.patchProvisioning({ image: spec.image, customDeploy: spec.customDeploy, rootDeviceHints: effectiveRootDeviceHints(t.host), bootMode: spec.bootMode });
      t.patchStatus({ provisioningFailCount: 0, poweredOn: result.poweredOn ?? true });
      t.releaseSlot();
      t.s.powerCheckAt = t.now + t.s.config.powerPollMs;
      t.requeue(t.s.config.powerPollMs);
      t.transition('provisioned', 'image deployed');
      return;
    case 'deprovision':
      // BMO's actionDeprovisioning, once the teardown is done: the plain reboot annotation is
      // served (clearRebootAnnotations), and what the teardown undid is forgotten.
      t.removeAnnotation(REBOOT);
      t.patchProvisioning({ image: undefined, customDeploy: undefined });
      clearProvisioningSettings(t);
      t.releaseSlot();
      if (t.host.metadata.deletionTimestamp) t.transition('powering off before delete', 'deprovisioned for deletion');
      else t.transition('available', 'deprovisioned');
      return;
    case 'adopt':
      t.s.needsAdopt = false;
      return;
    case 'powerOff':
      if (spec.disablePowerOff && t.state !== 'powering off before delete') {
        // The provisioner rebooted it: on, as before, and the reboot request is served.
        t.s.powerCheckAt = t.now + t.s.config.powerPollMs;
        if (!t.status.poweredOn) t.patchStatus({ poweredOn: true });
        rebootedInPlace(t);
        return;
      }
      t.patchStatus({ poweredOn: false });
      t.s.powerCheckAt = t.now + t.s.config.powerPollMs;
      if (t.state === 'powering off before delete') t.transition('deleting', 'powered off');
      return;
    case 'powerOn':
      t.patchStatus({ poweredOn: true });
      t.s.powerCheckAt = t.now + t.s.config.powerPollMs;
      return;
    case 'hardwareState':
      if (result.deployed === false && (t.state === 'provisioned' || t.state === 'externally provisioned') && !t.s.needsAdopt) {
        t.s.needsAdopt = true;
        t.event('Normal', 'AdoptNeeded', 'the backend no longer holds the host as deployed; adopting it again (it is not redeployed)');
      }
      if (result.poweredOn !== undefined && result.poweredOn !== t.status.poweredOn) {
        t.patchStatus({ poweredOn: result.poweredOn });
        // BMO's manageHostPower: the host changed power by itself (a late soft power-off, a
        // hand at the BMC), so the failure to change it is over; kept, it showed forever on a
        // host already in the power state it was asked for, since no further call is made.
        // BMO's clearError keeps the count: a power change still needed goes hard.
        if (t.status.errorType === 'power management error') t.patchStatus({ errorType: '', errorMessage: '', operationalStatus: 'OK' });
      }
      t.s.powerCheckAt = t.now + t.s.config.powerPollMs;
      return;
    case 'detach':
      // A detach that a deletion waited for is that deletion's removal of the backend record.
      if (t.state === 'deleting' && t.host.metadata.deletionTimestamp) finishDeletion(t);
      else t.patchStatus({ operationalStatus: 'detached' });
      return;
    case 'delete':
      finishDeletion(t);
  }
}

/**
 * BMO's actionInspecting: a re-inspection request (inspect.metal3.io other than `disabled`) is
 * removed once the inspection started or finished, never before: a first call that only moved
 * the node to manageable would otherwise leave the next one asking for no fresh inspection.
 */
function inspectionAnswered(t: Turn): void {
  if (inspectionRequested(t.host)) t.removeAnnotation(INSPECT);
}

/**
 * An inspect call that carried a forced reboot and was taken (started: the backend aborted the
 * inspection waiting for its ramdisk, or started one afresh): the next call restarts an aborted
 * one, and the suffixed forced reboot annotations it was for are served, so they do not abort the
 * restarted inspection. Any other answer to an inspect call ends that: the restart was asked for.
 */
function inspectionAborted(t: Turn, result: OpResult, forced: boolean): void {
  const aborted = forced && result.kind === 'continuing' && result.started === true;
  if (t.s.inspectionAborted !== aborted) t.s.inspectionAborted = aborted;
  if (aborted) serveForcedReboots(t);
}

// The suffixed forced reboot annotations an abort was for are served: they stay for whoever set
// them, but do not abort the restarted operation.
function serveForcedReboots(t: Turn): void {
  const served = rebootRequests(t.host).filter((r) => r.force && r.suffix !== null && !t.s.rebootsServed.includes(r.key)).map((r) => r.key);
  if (served.length > 0) t.s.rebootsServed = [...t.s.rebootsServed, ...served];
}

// The backend has no node for the host.
function onNodeLost(t: Turn, op: Operation, jitter: number): void {
  // Taking out a node that is not there has succeeded: its record is gone, or never existed.
  if (op === 'delete' || op === 'detach') {
    applyResult(t, op, { kind: 'done' }, jitter);
    return;
  }
  t.s.needsRegistration = true;
  t.s.needsAdopt = t.state === 'provisioned' || t.state === 'externally provisioned';
  // The gated operation is not running in the backend any more; its slot is asked for again.
  if (GATED_OPERATIONS.has(op)) t.releaseSlot();
  // BMO requeues a lost node through the rate limiter before registering it again. A first loss
  // in a working state registers at once; a host being torn down, or one that lost its node
  // again before any progress, waits the growing transient backoff, so no state polls in a loop.
  if (t.host.metadata.deletionTimestamp || TEARDOWN.has(t.state) || t.s.transientCount > 0) t.transient();
  else t.s.transientCount = 1;
}

function onFailed(t: Turn, op: Operation, message: string, jitter: number, retryAfterMs: number | null | undefined): void {
  const deleting = Boolean(t.host.metadata.deletionTimestamp);
  switch (op) {
    case 'register':
      // A registration that failed gives back the inspection slot it was waiting for (registering
      // only asks for one after a registration worked); the next success asks again.
      if (t.state === 'registering') t.releaseSlot();
      // BMO's registerHost: a registration error in every state, a provisioned host's too
      // (provisioned registration error is a failed adoption's); so its retry restarts.
      t.recordError('registration error', message, jitter, retryAfterMs);
      if (retryAfterMs === null && deletingWithoutBackend(t)) deleteWithoutBackend(t, message);
      return;
    case 'inspect':
      t.releaseSlot();
      t.recordError('inspection error', message, jitter, retryAfterMs);
      return;
    case 'prepare':
      t.recordError('preparation error', message, jitter, retryAfterMs);
      return;
    case 'service':
      t.releaseSlot();
      t.recordError('servicing error', message, jitter, retryAfterMs);
      return;
    case 'firmware':
      // BMO's HostFirmwareSettings controller retries on its own and never marks the host: the
      // companions keep their last status; the next preparing or servicing reads again.
      t.s.firmwareReadDue = false;
      t.event('Warning', 'FirmwareReadFailed', `reading the host's firmware settings and components failed: ${message}`);
      return;
    case 'provision':
      t.releaseSlot();
      t.recordError('provisioning error', message, jitter, retryAfterMs);
      return;
    case 'deprovision':
      t.releaseSlot();
      t.recordError('provisioning error', message, jitter, retryAfterMs);
      if (deleting && t.status.errorCount > DELETE_GIVE_UP) moveOnWithDeletion(t, 'powering off before delete', message);
      return;
    case 'adopt':
      t.recordError('provisioned registration error', message, jitter, retryAfterMs);
      return;
    case 'powerOn':
    case 'powerOff':
      t.recordError('power management error', message, jitter, retryAfterMs);
      if (t.state === 'powering off before delete' && t.status.errorCount > DELETE_GIVE_UP) moveOnWithDeletion(t, 'deleting', message);
      return;
    case 'hardwareState':
      t.transient();
      return;
    case 'detach':
      t.recordError('detach error', message, jitter, retryAfterMs);
      return;
    case 'delete':
      t.recordError('provisioning error', message, jitter, retryAfterMs);
  }
}

// A Secret the call needs is not there (or lacks a key); the call never left.
function onSecretMissing(t: Turn, op: Operation, wait: SecretWait, jitter: number): void {
  t.s.waitingForSecret = { key: wait.secret, field: wait.field };
  t.s.transientCount = 0;
  if (op === 'register') {
    if (t.state === 'registering') t.releaseSlot();
    // BMO: missing or incomplete BMC credentials are a registration error, looked at again every
    // 10 s (missing) or on a change (incomplete); the Secret appearing wakes the host at once.
    t.recordError('registration error', wait.message, jitter, wait.retryAfterMs);
    if (deletingWithoutBackend(t)) {
      t.s.waitingForSecret = null;
      deleteWithoutBackend(t, wait.message);
    }
    return;
  }
  // User, network or meta data: nothing was deployed and nothing failed, so this is no
  // provisioning error (which would deprovision, clean the disks and count towards the retry
  // limit). The host keeps its state, gives its slot back and waits for the Secret; BMO retries
  // the same way, as a transient error, without recording a failure.
  t.releaseSlot();
  const operationalStatus = t.status.errorType ? 'error' : 'delayed';
  // One Warning per wait, not one per recheck (a recheck's grant set the status back to OK).
  if (t.status.errorMessage !== wait.message) t.event('Warning', 'WaitingForSecret', wait.message);
  if (t.status.errorMessage !== wait.message || t.status.operationalStatus !== operationalStatus) t.patchStatus({ operationalStatus, errorMessage: wait.message });
  const recheck = t.s.config.secretRecheckMs;
  t.s.retryAt = t.now + recheck;
  t.requeue(recheck);
}

/** The Secret a host waited for may be there now: try again at once (a call checks it). */
export function endSecretWait(t: Turn): void {
  if (t.s.waitingForSecret === null) return;
  t.s.waitingForSecret = null;
  t.s.retryAt = null;
  // A registration error stays until registration works; a data wait's message goes now.
  if (!t.status.errorType && t.status.errorMessage !== '') {
    t.patchStatus({ errorMessage: '', ...(t.status.operationalStatus === 'delayed' ? { operationalStatus: 'OK' as const } : {}) });
  }
}

function moveOnWithDeletion(t: Turn, next: 'powering off before delete' | 'deleting', message: string): void {
  t.s.retryAt = null;
  t.event('Warning', 'DeletionStepSkipped', `giving up after ${t.status.errorCount} failures: ${message}`);
  t.transition(next, 'deletion continues after repeated failures');
}

// BMO deletes a host it has no credentials for without deprovisioning or powering it off: a
// registration during deletion that only a change of the host or its Secret could make work (no
// credentials, an unusable BMC address) would otherwise hold the deletion forever.
function deletingWithoutBackend(t: Turn): boolean {
  return Boolean(t.host.metadata.deletionTimestamp) && (t.state === 'deprovisioning' || t.state === 'powering off before delete');
}

function deleteWithoutBackend(t: Turn, message: string): void {
  t.s.retryAt = null;
  t.event('Warning', 'DeletionStepSkipped', `${t.state} skipped, the host cannot be registered: ${message}`);
  t.transition('deleting', 'deleted without registration');
}

/**
 * The hardware profile and the root device hints it implies, recorded in status (BMO's
 * matchProfile: event ProfileSet on a change); an unknown profile is a registration error.
 * False when it was one.
 */
function recordProfile(t: Turn, jitter: number): boolean {
  const match = matchProfile(t.host);
  if (!match.ok) {
    t.recordError('registration error', match.message, jitter, null);
    return false;
  }
  if (t.status.hardwareProfile !== match.profile) {
    t.patchStatus({ hardwareProfile: match.profile });
    t.event('Normal', 'ProfileSet', `Hardware profile set: ${match.profile}`);
  }
  t.recordRootDeviceHints(match.rootDeviceHints);
  return true;
}
