export { stepMaasMachine, initialMaasMachineState, providerId } from './step.ts';
export type { MaasMachineState, MaasMachineStep } from './step.ts';
export { DEFAULT_MAAS_MACHINE_CONFIG } from './types.ts';
export type { MaasCall, MaasContext, MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasOp, MaasResult, MaasView } from './types.ts';
export { MAAS_MACHINE_FINALIZER } from './object.ts';
export type { MaasMachineObject } from './object.ts';
export type { MaasMachineStatus } from './status.ts';
export { KNOWN, RUNNING } from './state-table.ts';
