// metalfleet/plugin: the provisioner plugin contract (types a plugin author imports, the version
// it implements) and the loader and registry the node uses. Loads no runtime: zod and node only.
export { PROVISIONER_CONTRACT_VERSION, defineProvisionerPlugin, PROVISIONER_METHODS, OPTIONAL_PROVISIONER_METHODS, MAAS_DRIVER_METHODS } from './contract.ts';
export type { BareMetalHostPlugin, MaasMachinePlugin, PluginContext, ProvisionerPlugin } from './contract.ts';
export { PluginError } from './plugin-error.ts';
export { checkPlugin } from './check-plugin.ts';
export { isPluginPath, loadPlugin, loadPluginFolder } from './load.ts';
export type { LoadOptions } from './load.ts';
export { ProvisionerRegistry } from './registry.ts';
export type { CapacityClaim, Credentials, HostData, Logger, MaasDriver, Provisioner } from '../ports/index.ts';
export type { CallArgs, OpResult, Operation } from '../machines/bmh/index.ts';
