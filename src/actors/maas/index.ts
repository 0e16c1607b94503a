export { clusterKeyOf, maasBinding, markMaasCrashed } from './binding.ts';
export type { MaasBindingDeps, MaasRouter } from './binding.ts';
export { CLUSTER_LABEL, CONTROL_PLANE_LABEL, clusterNameOf } from './context.ts';
export { MAAS_CLUSTER_FINALIZER } from './maas-cluster-actor.ts';
export type { MaasClusterMsg, MaasClusterSnapshot } from './maas-cluster-actor.ts';
export type { MaasMachineMsg } from './maas-machine-actor.ts';
