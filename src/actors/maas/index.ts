export { startMaas } from './maas-supervisor.ts';
export type { MaasOptions, MaasRuntime } from './maas-supervisor.ts';
export { CLUSTER_LABEL, CONTROL_PLANE_LABEL } from './context.ts';
export { MAAS_CLUSTER_FINALIZER } from './maas-cluster-actor.ts';
