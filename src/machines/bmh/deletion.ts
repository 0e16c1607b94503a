import { detachRequest } from './annotations.ts';
import type { Turn } from './turn.ts';
import { HOST_FINALIZER } from './types.ts';

// A host with a deletionTimestamp (reference/bmo.md §1.4). Returns true after a transition.
export function handleDeletion(t: Turn): boolean {
  if (!t.host.metadata.finalizers?.includes(HOST_FINALIZER)) {
    // Never claimed by us: nothing to clean up in a backend.
    t.s.gone = true;
    t.releaseSlot();
    return false;
  }
  const state = t.state;
  const detach = detachRequest(t.host);
  const detached = t.status.operationalStatus === 'detached' && detach !== null;
  switch (state) {
    case 'deprovisioning':
      if (!t.ensureSlot('deprovision')) return false;
      t.call({ op: 'deprovision', restartOnFailure: t.status.errorType === 'provisioning error', automatedCleaning: t.host.spec.automatedCleaningMode !== 'disabled' });
      return false;
    case 'powering off before delete':
      if (t.host.spec.disablePowerOff) {
        t.transition('deleting', 'power-off disabled');
        return true;
      }
      t.call({ op: 'powerOff', mode: 'hard', force: true });
      return false;
    case 'deleting':
      t.call({ op: 'delete' });
      return false;
  }
  if (detached && detach.deleteAction !== 'delay') return toDeleting(t, 'detached host deleted');
  if (detached) return false;
  if (state === '' || state === 'unmanaged' || state === 'registering') return toDeleting(t, 'deleted before registration finished');
  if (state === 'provisioning' || state === 'provisioned') {
    t.transition('deprovisioning', 'deleted while provisioned');
    return true;
  }
  t.releaseSlot();
  t.transition('powering off before delete', 'deleted');
  return true;
}

function toDeleting(t: Turn, reason: string): boolean {
  t.releaseSlot();
  t.transition('deleting', reason);
  return true;
}
