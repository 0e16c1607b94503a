import type { MachineLogic, MachineView } from '../logic.ts';
import { stepMaasCluster } from './step.ts';
import type { MaasClusterEffect, MaasClusterEvent, MaasClusterState } from './types.ts';

export function viewMaasCluster(s: MaasClusterState): MachineView {
  return {
    state: s.phase === 'active' ? (s.record ? `${s.record.fqdn} (${s.record.ips.length})` : 'active') : s.phase,
    power: 'unknown',
    operationalStatus: s.lastError ? 'error' : s.waiting ? 'waiting' : s.status.ready ? 'OK' : 'pending',
    error: s.lastError,
  };
}

/** The MaasCluster kind on the one skeleton. */
export const maasClusterLogic: MachineLogic<MaasClusterState, MaasClusterEvent, MaasClusterEffect> = {
  kind: 'MaasCluster',
  step: stepMaasCluster,
  view: viewMaasCluster,
  isGone: (s) => s.gone,
};
