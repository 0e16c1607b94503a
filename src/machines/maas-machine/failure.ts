import { MACHINE_DEPLOYED_REASONS as R } from '../../api/index.ts';
import { releasedBy } from './intents.ts';
import type { Turn } from './turn.ts';
import type { MaasView } from './types.ts';

// CAPI v1beta1's terminal failure: the machine will not recover by itself. CAPMAAS writes
// UpdateError for a machine MAAS took back or left in a state it has no case for.
export const FAILURE_REASON = 'UpdateError';

/**
 * The failureReason a MaasMachine whose actor kept crashing is marked with (actors/maas/binding.ts):
 * a note that metalfleet stopped driving it, not a verdict on the MAAS machine. The actor started
 * again (the object changed, as the marker's message asks) resumes without it.
 */
export const ACTOR_CRASHED = 'ActorCrashed';

export type FailureCause = 'terminated' | 'undefined' | 'notFound';

/**
 * The machine failed for good: status says why (failureReason/failureMessage) and Cluster API's
 * MachineHealthCheck replaces the Machine. The providerID stays: this MaasMachine never takes
 * another MAAS machine, so the Machine's providerID and the workload Node's never disagree.
 */
export function failMachine(t: Turn, cause: FailureCause): void {
  const id = t.s.systemId ?? '';
  const state = t.s.view?.statusName ?? '';
  const message = cause === 'notFound' ? `MAAS machine ${id} no longer exists`
    : cause === 'terminated' ? `MAAS machine ${id} is ${state}: MAAS took it back`
    : `MAAS machine ${id} is in state ${state}, which has no way back to Deployed`;
  t.setStatus({ ready: false, failureReason: FAILURE_REASON, failureMessage: message, ...(cause === 'notFound' ? { machinePowered: false } : {}) });
  if (cause === 'undefined') {
    t.deployed('Unknown', R.MachineStateUndefined, message);
    t.event('Warning', 'MachineUnhandledState', message);
  } else {
    t.deployed('False', cause === 'notFound' ? R.MachineNotFound : R.MachineTerminated, message);
    t.event('Warning', 'MachineUnexpectedTermination', message);
  }
  t.releaseSlot();
  t.transition('failed');
}

/**
 * Released by command (metalfleet.io/release): failed as a machine MAAS took back (CAPMAAS's
 * UpdateError), so MachineHealthCheck replaces the Machine; the providerID stays, naming the
 * machine it had. `view` is what MAAS answered to the release (null when nothing was released).
 */
export function failReleased(t: Turn, requestId: string, view: MaasView | null, gone = false): void {
  const id = t.s.systemId;
  const by = releasedBy(requestId);
  const message = !id ? `released by ${by} before a MAAS machine was allocated; nothing was released`
    : gone ? `MAAS machine ${id} was released by ${by} (MAAS no longer has it)`
    : `MAAS machine ${id} was released by ${by}`;
  t.setStatus({
    ready: false, failureReason: FAILURE_REASON, failureMessage: message,
    ...(view ? { machineState: view.statusName, machinePowered: view.powerState === 'on' } : gone ? { machinePowered: false } : {}),
  });
  t.deployed('False', R.MachineTerminated, message);
  t.event('Normal', 'MachineReleased', message);
  t.releaseSlot();
  t.transition('failed');
}

/**
 * A release asked by command found the machine already back with MAAS (a read after MAAS refused
 * the release: release.ts): failed as a released machine is, but saying what happened, since the
 * command released nothing. `view` is what the read showed; null when MAAS no longer has the
 * machine at all (the read answered 404).
 */
export function failTakenBack(t: Turn, requestId: string, view: MaasView | null): void {
  const id = t.s.systemId ?? '';
  const by = releasedBy(requestId);
  const message = view
    ? `MAAS machine ${id} is ${view.statusName} and allocated to nobody: MAAS had already taken it back, so the release asked by ${by} had nothing to release`
    : `MAAS machine ${id} no longer exists: MAAS had already removed it, so the release asked by ${by} had nothing to release`;
  t.setStatus({
    ready: false, failureReason: FAILURE_REASON, failureMessage: message,
    ...(view ? { machineState: view.statusName, machinePowered: view.powerState === 'on' } : { machinePowered: false }),
  });
  t.deployed('False', R.MachineTerminated, message);
  t.event('Normal', 'MachineReleased', message);
  t.releaseSlot();
  t.transition('failed');
}
