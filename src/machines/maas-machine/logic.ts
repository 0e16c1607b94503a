import type { MaasMachine } from '../../api/index.ts';
import type { MachineLogic, MachineView } from '../logic.ts';
import { initialMaasMachineState, stepMaasMachine } from './step.ts';
import type { MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasMachineState, MaasMachineWorld } from './types.ts';
import { DEFAULT_MAAS_MACHINE_CONFIG, NO_WORLD } from './types.ts';

/** What introspection shows of a MaasMachine: MAAS's state name once there is a machine. */
export function viewMaasMachine(s: MaasMachineState): MachineView {
  const powered = s.status.machinePowered ?? (s.view ? s.view.powerState === 'on' : undefined);
  // machinePowered keeps the last power read through a BMC outage; readers are told it is not known now.
  const unreadable = s.powerRereads > 0;
  return {
    state: s.status.machineState ?? s.view?.statusName ?? (s.systemId ? 'Allocated' : 'Pending'),
    power: powered === undefined || unreadable ? 'unknown' : powered ? 'on' : 'off',
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

/** The MaasMachine kind's rules: its world is the Cluster API objects around it. */
export type MaasMachineLogic = MachineLogic<MaasMachineState, MaasMachineEvent, MaasMachineEffect, MachineView, MaasMachine, MaasMachineWorld>;

/** The MaasMachine kind on the one skeleton, under a node's MAAS configuration. */
export function maasMachineLogicFor(config: MaasMachineConfig): MaasMachineLogic {
  return {
    kind: 'MaasMachine',
    initial: (object, world) => initialMaasMachineState(object, config, world),
    restore: (stored) => initialMaasMachineState(stored, config, NO_WORLD),
    step: stepMaasMachine,
    view: viewMaasMachine,
    isGone: (s) => s.gone,
  };
}

export const maasMachineLogic: MaasMachineLogic = maasMachineLogicFor(DEFAULT_MAAS_MACHINE_CONFIG);
