import type { MachineLogic, MachineView, ViewCondition } from '../logic.ts';
import { step } from './step.ts';
import type { BmhEffect, BmhEvent, BmhState } from './types.ts';

/** What a BareMetalHost's view reads of its status: all of it comes from the status BMO writes. */
export interface BmhViewedStatus {
  readonly provisioning: { readonly state: string };
  readonly poweredOn: boolean;
  readonly operationalStatus: string;
  readonly errorMessage: string;
  readonly errorType?: string;
  readonly conditions?: readonly ViewCondition[];
}

/**
 * What introspection shows of a BareMetalHost: BMO's provisioning and operational status. Of the
 * status alone, so a reader that keeps only the status the host's actor reported (the node's
 * fleet stats) shows exactly what the kind's view shows.
 */
export function viewBmhStatus(status: BmhViewedStatus): MachineView {
  return {
    state: status.provisioning.state,
    power: status.poweredOn ? 'on' : 'off',
    operationalStatus: status.operationalStatus,
    error: status.errorMessage === '' ? null : status.errorMessage,
    errorType: status.errorType ?? '',
    ...(status.conditions ? { conditions: status.conditions } : {}),
  };
}

export function viewBmh(s: BmhState): MachineView {
  return viewBmhStatus(s.host.status);
}

/** The BareMetalHost kind on the one skeleton. */
export const bmhLogic: MachineLogic<BmhState, BmhEvent, BmhEffect> = {
  kind: 'BareMetalHost',
  step,
  view: viewBmh,
  isGone: (s) => s.gone,
};
