export { createIronicProvisioner } from './ironic-provisioner.ts';
export type { IronicProvisionerOptions } from './ironic-provisioner.ts';
export type { DriverOverride, DeployImages } from './node-spec.ts';
export { nodeName } from './node-name.ts';
export { OWNER_EXTRA, recordedOwner } from './owner-fence.ts';
