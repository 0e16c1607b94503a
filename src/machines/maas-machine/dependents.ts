import { clusterLabel, itself, machineBootstrapSecret, machineCluster, machineInfrastructure, maasClusterCluster, ownerMachine } from '../capi-links.ts';
import type { DependentRule, Dependents, LinkValues } from '../dependents.ts';

// What wakes a MaasMachine besides its own changes: its Machine (bootstrap data, deletion), the
// Secret that Machine's bootstrap names (its data may just have appeared), its Cluster (paused,
// infrastructure ready) and its MaasCluster (ready, DNS name; a changed DNS record too, which
// the kind host reports as a change of that MaasCluster).

// The machines of a cluster: by their label, or, unlabelled, by the Machine that points at them.
function machinesOfCluster(from: LinkValues): readonly DependentRule[] {
  return [
    { from, to: clusterLabel },
    { from, via: { kind: 'Machine', to: machineCluster, from: machineInfrastructure }, to: itself },
  ];
}

export const MAAS_MACHINE_DEPENDENTS: Dependents = {
  Machine: [
    { from: machineInfrastructure, to: itself },
    { from: itself, to: ownerMachine },
  ],
  Secret: [{ from: itself, via: { kind: 'Machine', to: machineBootstrapSecret, from: machineInfrastructure }, to: itself }],
  Cluster: machinesOfCluster(itself),
  MaasCluster: machinesOfCluster(maasClusterCluster),
};
