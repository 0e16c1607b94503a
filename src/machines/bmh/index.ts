export { step, initialState } from './step.ts';
export { bmhLogic, viewBmh } from './logic.ts';
export { errorBackoffMs, transientBackoffMs } from './backoff.ts';
export { hasImage, provisioningCancelled } from './images.ts';
export { isPaused, rebootRequests, detachRequest, reprovisionRequest, PAUSED, DETACHED, REBOOT, INSPECT, HARDWARE_DETAILS, REPROVISION } from './annotations.ts';
export { DEFAULT_MACHINE_CONFIG, GATED_OPERATIONS, HOST_FINALIZER } from './types.ts';
export type { BmhState, BmhEvent, BmhEffect, CallArgs, GatedOperation, MachineConfig, Operation, OpResult, SecretChange, SecretWait, SlotState, Step } from './types.ts';
export { secretRefsOf, CREDENTIALS_FIELD, DATA_FIELDS } from './secret-refs.ts';
export type { SecretRef } from './secret-refs.ts';
