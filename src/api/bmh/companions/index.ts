// BMO's companion kinds of BareMetalHost (metal3.io/v1alpha1): their schemas, CRD declarations
// and validation.
export * from './condition.ts';
export * from './kinds.ts';
export * from './firmware-schema.ts';
export * from './hardware-data.ts';
export * from './host-firmware-components.ts';
export * from './host-firmware-settings.ts';
export * from './host-update-policy.ts';
export * from './resources.ts';
export * from './validate.ts';
export * from './validate-settings.ts';
export * from './validate-updates.ts';
