import type { BiosAttributeRule, BiosRegistry } from './bios-registry.ts';

// The server models the virtual datacenter stocks. A model fixes the BIOS attribute registry, so
// two servers of one model publish the same registry (BMO keys a FirmwareSchema on vendor+model),
// and servers of different models disagree on which attributes exist and on their bounds.
export const SIM_MODELS = ['SIM-1', 'SIM-2'] as const;
export type SimModel = (typeof SIM_MODELS)[number];

export const SIM_VENDOR = 'metalfleet';

export interface ModelInfo {
  manufacturer: string;
  /** ComputerSystem.Model, what Ironic and BMO identify the model by. */
  model: string;
  sku: string;
  /** Processor.Model and MaxSpeedMHz of its CPUs. */
  cpuModel: string;
  cpuMaxMHz: number;
  registry: BiosRegistry;
}

const onOff = (name: string, displayName: string, defaultValue: 'Enabled' | 'Disabled', resetRequired = true): BiosAttributeRule => ({
  name, displayName, type: 'Enumeration', values: ['Enabled', 'Disabled'], defaultValue, readOnly: false, resetRequired, unique: false,
});

const serial: BiosAttributeRule = { name: 'SerialNumber', displayName: 'System Serial Number', type: 'String', defaultValue: null, readOnly: true, resetRequired: false, unique: true, maxLength: 32 };
const password = (name: string, displayName: string): BiosAttributeRule => ({ name, displayName, type: 'Password', defaultValue: null, readOnly: false, resetRequired: true, unique: false, minLength: 8, maxLength: 32 });

const SIM1_ATTRIBUTES: readonly BiosAttributeRule[] = [
  { name: 'BootMode', displayName: 'Boot Mode', type: 'Enumeration', values: ['Uefi', 'Bios'], defaultValue: 'Uefi', readOnly: false, resetRequired: true, unique: false },
  onOff('ProcVirtualization', 'Virtualization Technology', 'Enabled'),
  onOff('LogicalProc', 'Logical Processor', 'Enabled'),
  onOff('SriovGlobalEnable', 'SR-IOV Global Enable', 'Disabled'),
  onOff('EmbeddedNic1', 'Embedded NIC 1', 'Enabled'),
  onOff('PxeDev1EnDis', 'PXE Device 1', 'Enabled'),
  { name: 'NumLock', displayName: 'Keyboard NumLock', type: 'Enumeration', values: ['On', 'Off'], defaultValue: 'On', readOnly: false, resetRequired: true, unique: false },
  serial,
  { name: 'AssetTag', displayName: 'Asset Tag', type: 'String', defaultValue: '', readOnly: false, resetRequired: true, unique: true, minLength: 0, maxLength: 16 },
  { name: 'BootDelaySeconds', displayName: 'Boot Delay (seconds)', type: 'Integer', defaultValue: 0, readOnly: false, resetRequired: true, unique: false, lowerBound: 0, upperBound: 60, scalarIncrement: 1 },
  { name: 'SecureBootAllowed', displayName: 'Secure Boot Allowed', type: 'Boolean', defaultValue: true, readOnly: false, resetRequired: true, unique: false },
  password('AdminPassword', 'System Password'),
  password('UserPassword', 'Setup Password'),
];

// A newer board from the same vendor: different names for the same knobs, a power profile, wider bounds.
const SIM2_ATTRIBUTES: readonly BiosAttributeRule[] = [
  { name: 'BootMode', displayName: 'Boot Mode', type: 'Enumeration', values: ['Uefi', 'Bios'], defaultValue: 'Uefi', readOnly: false, resetRequired: true, unique: false },
  onOff('ProcVirtualization', 'Virtualization Technology', 'Enabled'),
  onOff('ProcHyperthreading', 'Hyper-Threading', 'Enabled'),
  { name: 'PowerProfile', displayName: 'System Power Profile', type: 'Enumeration', values: ['MaxPerformance', 'Balanced', 'PowerSaving'], defaultValue: 'Balanced', readOnly: false, resetRequired: true, unique: false },
  serial,
  { name: 'AssetTag', displayName: 'Asset Tag', type: 'String', defaultValue: '', readOnly: false, resetRequired: true, unique: true, minLength: 0, maxLength: 64 },
  { name: 'BootRetryCount', displayName: 'Boot Retry Count', type: 'Integer', defaultValue: 3, readOnly: false, resetRequired: true, unique: false, lowerBound: 0, upperBound: 10 },
  password('AdminPassword', 'System Password'),
];

function registry(tag: string, model: string, attributes: readonly BiosAttributeRule[]): BiosRegistry {
  return { id: `BiosAttributeRegistry${tag}.v1_0_0`, registry: `BiosAttributeRegistry${tag}.1.0`, version: '1.0.0', owningEntity: SIM_VENDOR, vendor: SIM_VENDOR, model, attributes };
}

const MODELS: Record<SimModel, ModelInfo> = {
  'SIM-1': { manufacturer: SIM_VENDOR, model: 'Virtual Server SIM-1', sku: 'SIM1-64C', cpuModel: 'Simulated Xeon 8480', cpuMaxMHz: 3800, registry: registry('SIM1', 'Virtual Server SIM-1', SIM1_ATTRIBUTES) },
  'SIM-2': { manufacturer: SIM_VENDOR, model: 'Virtual Server SIM-2', sku: 'SIM2-128C', cpuModel: 'Simulated EPYC 9654', cpuMaxMHz: 3700, registry: registry('SIM2', 'Virtual Server SIM-2', SIM2_ATTRIBUTES) },
};

export function modelInfo(model: SimModel): ModelInfo {
  return MODELS[model];
}

/** The registry with this Id, whatever model publishes it. */
export function registryById(id: string): BiosRegistry | undefined {
  return Object.values(MODELS).find((m) => m.registry.id === id)?.registry;
}
