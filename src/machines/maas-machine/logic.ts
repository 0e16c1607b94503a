import type { MachineLogic, MachineView } from '../logic.ts';
import { stepMaasMachine } from './step.ts';
import type { MaasMachineEffect, MaasMachineEvent, MaasMachineState } from './types.ts';

/** What introspection shows of a MaasMachine: MAAS's state name once there is a machine. */
export function viewMaasMachine(s: MaasMachineState): MachineView {
  const powered = s.status.machinePowered ?? (s.view ? s.view.powerState === 'on' : undefined);
  return {
    state: s.status.machineState ?? s.view?.statusName ?? (s.systemId ? 'Allocated' : 'Pending'),
    power: powered === undefined ? 'unknown' : powered ? 'on' : 'off',
    operationalStatus: s.phase === 'failed' ? 'error'
      : s.waiting ? (s.status.conditions?.some((c) => c.type === 'Paused' && c.status === 'True') ? 'paused' : 'waiting')
      : s.status.ready ? 'OK'
      : s.retryAt !== null ? 'delayed'
      : 'pending',
    error: s.status.failureMessage ?? null,
    errorType: s.status.failureReason ?? '',
    ...(s.status.conditions ? { conditions: s.status.conditions } : {}),
  };
}

/** The MaasMachine kind on the one skeleton. */
export const maasMachineLogic: MachineLogic<MaasMachineState, MaasMachineEvent, MaasMachineEffect> = {
  kind: 'MaasMachine',
  step: stepMaasMachine,
  view: viewMaasMachine,
  isGone: (s) => s.gone,
};
