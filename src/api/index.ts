// metalfleet/api: resource schemas, types, validation and the BMC address parser. Loads nothing
// of the runtime (no nact, NATS or Kubernetes client) so other controllers can depend on it alone.
export * from './meta.ts';
export * from './bmh/schema.ts';
export * from './field-error.ts';
export * from './secret.ts';
export * from './manifest.ts';
export * from './names.ts';
export * from './generate-name.ts';
export * from './limits.ts';
export * from './bmc/index.ts';
export * from './bmh/annotations.ts';
export * from './bmh/firmware.ts';
export * from './bmh/oci-image.ts';
export * from './bmh/companions/index.ts';
export * from './bmh/validate.ts';
export * from './maas/index.ts';
export { shardOf } from './shard.ts';
export { KNOWN_KINDS, misspelledKind } from './kind-typo.ts';
export { HOST_COMMAND_TYPES } from './command-types.ts';
export type { HostCommandName } from './command-types.ts';
export { fmix32, fnv1a32 } from './hash.ts';
export { RetryPolicy, RetryJitter, nextDelay } from './retry-policy.ts';
export type { RetryPolicyInput } from './retry-policy.ts';
export { MetalfleetError, errorMessage } from './metalfleet-error.ts';
export { deepEqual } from './deep-equal.ts';
