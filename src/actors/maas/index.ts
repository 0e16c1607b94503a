export { dnsOf, machineStateOf, spawnMaasShard, startMaas } from './maas-supervisor.ts';
export type { MaasOptions, MaasRuntime, MaasSupervisorMsg } from './maas-supervisor.ts';
export { CLUSTER_LABEL, CONTROL_PLANE_LABEL, clusterNameOf } from './context.ts';
export { MAAS_CLUSTER_FINALIZER } from './maas-cluster-actor.ts';
export type { MaasClusterMsg, MaasClusterSnapshot } from './maas-cluster-actor.ts';
