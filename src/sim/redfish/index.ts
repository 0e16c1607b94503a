// A simulated Redfish BMC fleet (DMTF Redfish as servers speak it, sushy-tools style URLs): the
// first half of the virtual datacenter, driven by a real Ironic through its `redfish` hardware
// type. It shares no code with metalfleet's clients, so a bug on one side cannot hide on the other.
export { startRedfishSim } from './server.ts';
export type { RedfishSim } from './server.ts';
export { SimSystem } from './model/system.ts';
export type { SimSystemEvents, SimSystemInfo } from './model/system.ts';
export { RedfishSimOptionsSchema, SimSystemSpecSchema } from './options.ts';
export type { RedfishSimOptions, SimSystemSpec } from './options.ts';
export { SimFaultsSchema, FAULT_KINDS, faultFromKind } from './model/faults.ts';
export type { SimFaults, FaultKind } from './model/faults.ts';
export { RESET_TYPES } from './model/power.ts';
export type { ResetType } from './model/power.ts';
export { BOOT_TARGETS, BOOT_ENABLED, BOOT_MODES } from './model/boot.ts';
export type { BootTarget, BootEnabled, BootMode, BootOverride } from './model/boot.ts';
export type { BootEvent, PowerEvent, SystemState, VirtualMediaSlot, VirtualMediaState, SecureBootState, Hardware } from './model/state.ts';
export type { BiosAttributes, BiosState, BiosValue } from './model/bios.ts';
export { biosProblem, BIOS_ATTRIBUTE_TYPES } from './model/bios-registry.ts';
export type { BiosAttributeRule, BiosAttributeType, BiosProblem, BiosRegistry } from './model/bios-registry.ts';
export { SIM_MODELS, SIM_VENDOR, modelInfo } from './model/models.ts';
export { BMC_PROFILES, bmcProfile } from './model/bmc.ts';
export type { BmcProfile, BmcProfileName } from './model/bmc.ts';
export type { ModelInfo, SimModel } from './model/models.ts';
export { REGISTRIES, registryUri } from './resources/registries.ts';
export type { Drive, Volume, RaidType } from './model/storage.ts';
export type { FirmwareComponent, FirmwareVersions } from './model/firmware.ts';
