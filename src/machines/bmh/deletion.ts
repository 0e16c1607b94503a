import type { ProvisioningState } from '../../api/index.ts';
import { detachRequest } from './annotations.ts';
import type { DetachRequest } from './annotations.ts';
import { toDeprovisioning } from './states.ts';
import type { Turn } from './turn.ts';
import { HOST_FINALIZER } from './types.ts';

// BMO's retryCount: deletion stops waiting for a failing step after more errors than this and goes
// on without the backend (reference/bmo.md §1.3-1.4).
export const DELETE_GIVE_UP = 3;

// The states a deletion passes through; a host in them is being torn down.
export const TEARDOWN: ReadonlySet<ProvisioningState> = new Set<ProvisioningState>(['deprovisioning', 'powering off before delete', 'deleting']);

// A host with a deletionTimestamp, in BMO's order (reference/bmo.md §1.4; checkInitiateDelete,
// checkDetachedHost, ensureRegistered and the teardown handlers). Returns true after a transition.
export function handleDeletion(t: Turn): boolean {
  if (!t.host.metadata.finalizers?.includes(HOST_FINALIZER)) {
    // Never claimed by us: nothing to clean up in a backend.
    t.s.gone = true;
    t.releaseSlot();
    return false;
  }
  const state = t.state;
  const detach = detachRequest(t.host);
  if (state !== 'deleting') {
    const detached = t.status.operationalStatus === 'detached';
    // The annotation alone makes the host detached for deletion, even while the detach itself is
    // still pending (BMO #3213): deprovisioning would clean the disks of a machine the user meant
    // to leave alone.
    if (detach !== null && detach.deleteAction !== 'delay') return toDeleting(t, detached ? 'detached host deleted' : 'deleted while a detach is pending');
    if (detach !== null) return holdDetached(t, detach, detached);
    // Detached in status but the annotation is gone: BMO re-attaches first, then deletes the
    // host as an attached one. The detach removed the backend node, so it is registered again.
    if (detached) reattach(t);
  }
  switch (state) {
    case 'deprovisioning':
    case 'powering off before delete':
      return tearDown(t, state);
    case 'deleting':
      // A detach still pending finishes as a detach (it waits for the backend's operation rather
      // than aborting it, and never deprovisions): that removal is the delete.
      if (detach !== null && t.status.operationalStatus !== 'detached') t.call({ op: 'detach', force: detach.force });
      else t.call({ op: 'delete' });
      return false;
  }
  if (state === '' || state === 'unmanaged' || state === 'registering') return toDeleting(t, 'deleted before registration finished');
  if (state === 'provisioning' || state === 'provisioned') return toDeprovisioning(t, 'deleted while provisioned');
  t.releaseSlot();
  t.transition('powering off before delete', 'deleted');
  return true;
}

// Deprovisioning and powering off for a deletion; a node the backend lost is registered again
// first, and repeated registration errors let the deletion go on without the backend.
function tearDown(t: Turn, state: 'deprovisioning' | 'powering off before delete'): boolean {
  if (t.status.errorType === 'registration error' && t.status.errorCount > DELETE_GIVE_UP) {
    t.event('Warning', 'DeletionStepSkipped', `giving up on ${state} after ${t.status.errorCount} registration failures: ${t.status.errorMessage}`);
    return toDeleting(t, 'registration kept failing during deletion');
  }
  if (state === 'powering off before delete' && t.host.spec.disablePowerOff) {
    t.transition('deleting', 'power-off disabled');
    return true;
  }
  if (t.s.needsRegistration) {
    t.register();
    return false;
  }
  if (state === 'powering off before delete') {
    // BMO's actionPowerOffBeforeDeleting: always hard, forced only to retry a power management
    // error. Forced every time, the provisioner never read the failure the backend recorded, so a
    // power-off that kept failing never counted and the host never went on to deleting.
    t.call({ op: 'powerOff', mode: 'hard', force: t.status.errorType === 'power management error' });
    return false;
  }
  if (!t.ensureSlot('deprovision')) return false;
  t.call({ op: 'deprovision', restartOnFailure: t.status.errorType === 'provisioning error', automatedCleaning: t.host.spec.automatedCleaningMode !== 'disabled' });
  return false;
}

// deleteAction "delay": the host is detached and then kept, finalizer and all, until the
// annotation goes (re-attach, then an ordinary deletion) or asks for deletion.
function holdDetached(t: Turn, detach: DetachRequest, detached: boolean): boolean {
  if (detached) {
    t.pollDetached();
    return false;
  }
  t.releaseSlot();
  t.call({ op: 'detach', force: detach.force });
  return false;
}

function reattach(t: Turn): void {
  t.patchStatus({ operationalStatus: t.okOrError() });
  t.s.needsRegistration = true;
}

function toDeleting(t: Turn, reason: string): boolean {
  t.releaseSlot();
  t.transition('deleting', reason);
  return true;
}

/** The backend has no record of the host any more (deleted, detached, or never registered). */
export function finishDeletion(t: Turn): void {
  t.releaseSlot();
  t.s.gone = true;
  t.effects.push({ type: 'removeFinalizer', finalizer: HOST_FINALIZER });
  t.event('Normal', 'Deleted', 'host removed from the backend; finalizer removed');
}
