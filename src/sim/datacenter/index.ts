// The virtual datacenter: simulated servers with Redfish BMCs, disks and NICs that boot an
// ironic-python-agent stand-in when Ironic prepares a ramdisk boot, so a real Ironic runs its
// real drivers here (tests, `metalfleet demo --ironic --datacenter N`, `bench ironic`).
export { startVirtualDatacenter } from './datacenter.ts';
export type { VirtualDatacenter } from './datacenter.ts';
export type { DatacenterOptions } from './options.ts';
export { SimServer } from './server.ts';
export { installDisk, serverInventory } from './inventory.ts';
export type { BootOutcome } from './firmware.ts';
export { parseIpxeDeploy, ipxeConfigPath } from './ipxe-config.ts';
export { DEPLOY_FILES, demoImage } from './boot-files.ts';
