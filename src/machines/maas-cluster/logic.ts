import type { MaasCluster } from '../../api/index.ts';
import type { MachineLogic, MachineView } from '../logic.ts';
import { initialMaasClusterState, stepMaasCluster } from './step.ts';
import type { MaasClusterConfig, MaasClusterEffect, MaasClusterEvent, MaasClusterState, MaasClusterWorld } from './types.ts';
import { DEFAULT_MAAS_CLUSTER_CONFIG } from './types.ts';

// The state is the phase alone: it labels metrics (metalfleet_machines{kind,state}), so it must
// not carry a cluster's DNS name or address count; the `clusters` verb and the actor's
// introspection summary show the record.
export function viewMaasCluster(s: MaasClusterState): MachineView {
  return {
    state: s.phase,
    power: 'unknown',
    operationalStatus: s.lastError ? 'error' : s.waiting ? 'waiting' : s.status.ready ? 'OK' : 'pending',
    error: s.lastError,
  };
}

/** The MaasCluster kind's rules: its world is its Cluster and the cluster's MaasMachines. */
export type MaasClusterLogic = MachineLogic<MaasClusterState, MaasClusterEvent, MaasClusterEffect, MachineView, MaasCluster, MaasClusterWorld>;

/** The MaasCluster kind on the one skeleton, under a node's configuration. */
export function maasClusterLogicFor(config: MaasClusterConfig): MaasClusterLogic {
  return {
    kind: 'MaasCluster',
    initial: (object, world) => initialMaasClusterState(object, config, world),
    restore: (stored) => initialMaasClusterState(stored, config),
    step: stepMaasCluster,
    view: viewMaasCluster,
    isGone: (s) => s.gone,
  };
}

export const maasClusterLogic: MaasClusterLogic = maasClusterLogicFor(DEFAULT_MAAS_CLUSTER_CONFIG);
