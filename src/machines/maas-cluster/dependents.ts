import { clusterInfrastructure, clusterLabel, itself, maasClusterCluster } from '../capi-links.ts';
import type { Dependents } from '../dependents.ts';

// What wakes a MaasCluster besides its own changes: its Cluster (paused, endpoint), including a
// Cluster that names it as infrastructure, and a change of one of its machines (their addresses
// make its DNS record).
export const MAAS_CLUSTER_DEPENDENTS: Dependents = {
  Cluster: [
    { from: itself, to: maasClusterCluster },
    { from: clusterInfrastructure, to: itself },
  ],
  MaasMachine: [
    { from: clusterLabel, to: maasClusterCluster },
    { from: clusterLabel, via: { kind: 'Cluster', to: itself, from: clusterInfrastructure }, to: itself },
  ],
};
