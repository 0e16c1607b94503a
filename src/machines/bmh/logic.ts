import type { BareMetalHost, OperationHistory } from '../../api/index.ts';
import type { MachineLogic, MachineView, ViewCondition } from '../logic.ts';
import { initialState, step } from './step.ts';
import type { BmhEffect, BmhEvent, BmhState, MachineConfig } from './types.ts';
import { DEFAULT_MACHINE_CONFIG } from './types.ts';

/** What a BareMetalHost's view reads of its status: all of it comes from the status BMO writes. */
export interface BmhViewedStatus {
  readonly provisioning: { readonly state: string };
  readonly poweredOn: boolean;
  readonly operationalStatus: string;
  readonly errorMessage: string;
  readonly errorType?: string;
  readonly conditions?: readonly ViewCondition[];
  readonly operationHistory?: OperationHistory | undefined;
}

/**
 * When the host entered its provisioning state, as its status dates it: entering an operation's
 * state stamps that operation's start in operationHistory and leaving it stamps its end (BMO's
 * history, machines/bmh/turn.ts), so an operation's state began at its start and provisioned at
 * provisioning's end. Other states the status does not date: undefined. A node that takes a host
 * over (its shard moved, a restart) reads this, or it would report the host as in its state only
 * since it first looked (issue: every moved host showed seconds in provisioned, and `top` counted
 * the moved fleet as just provisioned).
 */
export function stateEnteredStamp(status: BmhViewedStatus): string | undefined {
  const history = status.operationHistory;
  if (!history) return undefined;
  switch (status.provisioning.state) {
    case 'registering': return history.register?.start ?? undefined;
    case 'inspecting': return history.inspect?.start ?? undefined;
    case 'provisioning': return history.provision?.start ?? undefined;
    case 'deprovisioning': return history.deprovision?.start ?? undefined;
    case 'provisioned': return history.provision?.end ?? undefined;
    default: return undefined;
  }
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
    // The status's own string, not a parse: a view is made on every step of every host.
    enteredAt: stateEnteredStamp(status),
  };
}

export function viewBmh(s: BmhState): MachineView {
  return viewBmhStatus(s.host.status);
}

/** The BareMetalHost kind's rules; a host has no world (its Secrets are read by the call that needs them). */
export type BmhLogic = MachineLogic<BmhState, BmhEvent, BmhEffect, MachineView, BareMetalHost, null>;

/** The BareMetalHost kind on the one skeleton, under a node's machine configuration. */
export function bmhLogicFor(config: MachineConfig): BmhLogic {
  // BMO rebuilds everything from the host object on each reconcile: a restart resumes as a first look does.
  const fromObject = (host: BareMetalHost): BmhState => initialState(host, config);
  return { kind: 'BareMetalHost', initial: fromObject, restore: fromObject, step, view: viewBmh, isGone: (s) => s.gone };
}

export const bmhLogic: BmhLogic = bmhLogicFor(DEFAULT_MACHINE_CONFIG);
