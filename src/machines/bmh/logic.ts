import type { MachineLogic, MachineView } from '../logic.ts';
import { step } from './step.ts';
import type { BmhEffect, BmhEvent, BmhState } from './types.ts';

/** What introspection shows of a BareMetalHost: BMO's provisioning and operational status. */
export function viewBmh(s: BmhState): MachineView {
  const status = s.host.status;
  return {
    state: status.provisioning.state,
    power: status.poweredOn ? 'on' : 'off',
    operationalStatus: status.operationalStatus,
    error: status.errorMessage === '' ? null : status.errorMessage,
  };
}

/** The BareMetalHost kind on the one skeleton. */
export const bmhLogic: MachineLogic<BmhState, BmhEvent, BmhEffect> = {
  kind: 'BareMetalHost',
  step,
  view: viewBmh,
  isGone: (s) => s.gone,
};
