export { maasMachineLogic, maasMachineLogicFor, viewMaasMachine } from './logic.ts';
export type { MaasMachineLogic } from './logic.ts';
export { stepMaasMachine, initialMaasMachineState, providerId } from './step.ts';
export { DEFAULT_MAAS_MACHINE_CONFIG, MAAS_MACHINE_PHASES, NO_WORLD } from './types.ts';
export type {
  DnsLookupResult, MaasCall, MaasFailureReason, MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasMachinePhase, MaasMachineState,
  MaasMachineStep, MaasMachineWorld, MaasOp, MaasResult, MaasSlotOp, MaasView, SlotState, StaticLink,
} from './types.ts';
export { MAAS_MACHINE_FINALIZER } from '../../api/index.ts';
export type { MaasMachine as MaasMachineObject } from '../../api/index.ts';
export type { MaasMachineStatus } from './status.ts';
export { KNOWN, RUNNING, TERMINATED, verdictOf } from './state-table.ts';
export { ACTOR_CRASHED, FAILURE_REASON } from './failure.ts';
export { addKubeVip, kubeVipFor, kubeVipManifest, KUBE_VIP_IMAGE, KUBE_VIP_MANIFEST_PATH } from './control-plane-vip.ts';
export type { KubeVipSettings } from './control-plane-vip.ts';
export { setCondition, summarise, conditionOf } from './conditions.ts';
export type { ConditionValue } from './conditions.ts';
export {
  CAPI_PAUSED_ANNOTATION, HELD_BY_ANOTHER_USER, POWER_OFF_ANNOTATION, POWERED_OFF_ON_REQUEST, RELEASE_ANNOTATION, powerOffRequested, releaseRequested,
} from './intents.ts';
export { MACHINE_POWER_KNOWN, POWER_KNOWN_REASONS, powerConfirmed } from './power-known.ts';
export { IMAGE_AVAILABLE, IMAGE_REASONS, STATIC_ADDRESS, STATIC_ADDRESS_REASONS } from './deploy-options.ts';
