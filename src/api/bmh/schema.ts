import { z } from 'zod';
import { Condition, ObjectMeta, ObjectReference, SecretReference } from '../meta.ts';

// BareMetalHost, metal3.io/v1alpha1, field for field as the baremetal-operator's CRD has it so
// existing manifests apply unchanged (reference/bmo.md §2.1).

export const PROVISIONING_STATES = [
  '', 'unmanaged', 'registering', 'match profile', 'inspecting', 'preparing', 'ready', 'available',
  'provisioning', 'provisioned', 'externally provisioned', 'deprovisioning',
  'powering off before delete', 'deleting',
] as const;
export const ProvisioningState = z.enum(PROVISIONING_STATES);
export type ProvisioningState = z.infer<typeof ProvisioningState>;

export const OPERATIONAL_STATUSES = ['', 'OK', 'discovered', 'error', 'delayed', 'detached', 'servicing'] as const;
export const OperationalStatus = z.enum(OPERATIONAL_STATUSES);
export type OperationalStatus = z.infer<typeof OperationalStatus>;

export const ERROR_TYPES = [
  'provisioned registration error', 'registration error', 'inspection error', 'preparation error',
  'provisioning error', 'power management error', 'servicing error', 'detach error',
] as const;
export const ErrorType = z.enum(ERROR_TYPES);
export type ErrorType = z.infer<typeof ErrorType>;

export const BootMode = z.enum(['UEFI', 'UEFISecureBoot', 'legacy']);
export type BootMode = z.infer<typeof BootMode>;

export const BmcDetails = z.object({
  address: z.string(),
  credentialsName: z.string(),
  disableCertificateVerification: z.boolean().optional(),
});

export const Image = z.object({
  url: z.string(),
  checksum: z.string().optional(),
  checksumType: z.enum(['md5', 'sha256', 'sha512', 'auto', '']).optional(),
  format: z.enum(['raw', 'qcow2', 'vdi', 'vmdk', 'live-iso', '']).optional(),
  ociAuthSecretName: z.string().optional(),
});
export type Image = z.infer<typeof Image>;

export const RootDeviceHints = z.object({
  deviceName: z.string().optional(),
  hctl: z.string().optional(),
  model: z.string().optional(),
  vendor: z.string().optional(),
  serialNumber: z.string().optional(),
  minSizeGigabytes: z.number().int().min(0).optional(),
  wwn: z.string().optional(),
  wwnWithExtension: z.string().optional(),
  wwnVendorExtension: z.string().optional(),
  rotational: z.boolean().optional(),
});
export type RootDeviceHints = z.infer<typeof RootDeviceHints>;

export const HardwareRaidVolume = z.object({
  name: z.string().optional(),
  level: z.enum(['0', '1', '2', '5', '6', '1+0', '5+0', '6+0']),
  sizeGibibytes: z.number().int().min(0).optional(),
  rotational: z.boolean().optional(),
  numberOfPhysicalDisks: z.number().int().min(1).optional(),
  controller: z.string().optional(),
  physicalDisks: z.array(z.string()).optional(),
});
export const SoftwareRaidVolume = z.object({
  level: z.enum(['0', '1', '1+0']),
  rootVolume: z.boolean().optional(),
  sizeGibibytes: z.number().int().min(0).optional(),
  physicalDisks: z.array(RootDeviceHints).optional(),
});
export const RaidConfig = z.object({
  hardwareRAIDVolumes: z.array(HardwareRaidVolume).nullable().optional(),
  softwareRAIDVolumes: z.array(SoftwareRaidVolume).max(2).nullable().optional(),
});
export type RaidConfig = z.infer<typeof RaidConfig>;

// RAID as a controller acts on it (BMO's Go struct): each list is null (keep what is there) or a
// list, maybe empty (clear it). The preparing call carries target and actual in this shape.
export const RaidTarget = z.object({
  hardwareRAIDVolumes: z.array(HardwareRaidVolume).nullable(),
  softwareRAIDVolumes: z.array(SoftwareRaidVolume).max(2).nullable(),
});
export type RaidTarget = z.infer<typeof RaidTarget>;

export const NetworkInterface = z.object({
  name: z.string().optional(),
  macAddress: z.string().optional(),
  switchPort: z.looseObject({}).optional(),
});

export const BareMetalHostSpec = z.object({
  online: z.boolean(),
  bmc: BmcDetails.optional(),
  bootMACAddress: z.string().optional(),
  bootMode: BootMode.default('UEFI'),
  image: Image.optional(),
  customDeploy: z.object({ method: z.string() }).optional(),
  userData: SecretReference.optional(),
  networkData: SecretReference.optional(),
  metaData: SecretReference.optional(),
  preprovisioningNetworkDataName: z.string().optional(),
  rootDeviceHints: RootDeviceHints.optional(),
  raid: RaidConfig.optional(),
  automatedCleaningMode: z.enum(['metadata', 'disabled']).default('metadata'),
  externallyProvisioned: z.boolean().optional(),
  consumerRef: ObjectReference.optional(),
  architecture: z.string().optional(),
  disablePowerOff: z.boolean().optional(),
  inspectionMode: z.enum(['disabled', 'agent', 'fast']).optional(),
  networkInterfaces: z.array(NetworkInterface).optional(),
  description: z.string().optional(),
  // Deprecated upstream; accepted so old manifests parse, and rejected by the webhook rules.
  hardwareProfile: z.string().optional(),
  firmware: z.record(z.string(), z.unknown()).optional(),
  taints: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type BareMetalHostSpec = z.infer<typeof BareMetalHostSpec>;

export const CredentialsStatus = z.object({
  credentials: SecretReference.optional(),
  credentialsVersion: z.string().optional(),
});
export type CredentialsStatus = z.infer<typeof CredentialsStatus>;

const OperationMetric = z.object({ start: z.string().nullable().optional(), end: z.string().nullable().optional() });
export const OperationHistory = z.object({
  register: OperationMetric.optional(),
  inspect: OperationMetric.optional(),
  provision: OperationMetric.optional(),
  deprovision: OperationMetric.optional(),
});
export type OperationHistory = z.infer<typeof OperationHistory>;

export const HardwareDetails = z.looseObject({
  systemVendor: z.looseObject({ manufacturer: z.string().optional(), productName: z.string().optional(), serialNumber: z.string().optional() }).optional(),
  firmware: z.looseObject({}).optional(),
  ramMebibytes: z.number().int().optional(),
  nics: z.array(z.looseObject({ name: z.string().optional(), mac: z.string().optional(), ip: z.string().optional(), speedGbps: z.number().optional() })).optional(),
  storage: z.array(z.looseObject({ name: z.string().optional(), sizeBytes: z.number().optional(), rotational: z.boolean().optional() })).optional(),
  cpu: z.looseObject({ arch: z.string().optional(), model: z.string().optional(), count: z.number().int().optional(), clockMegahertz: z.number().optional() }).optional(),
  hostname: z.string().optional(),
});
export type HardwareDetails = z.infer<typeof HardwareDetails>;

export const ProvisionStatus = z.object({
  state: ProvisioningState,
  ID: z.string(),
  image: Image.optional(),
  rootDeviceHints: RootDeviceHints.optional(),
  bootMode: BootMode.optional(),
  raid: RaidConfig.optional(),
  customDeploy: z.object({ method: z.string() }).optional(),
  firmware: z.looseObject({}).optional(),
});
export type ProvisionStatus = z.infer<typeof ProvisionStatus>;

export const BareMetalHostStatus = z.object({
  operationalStatus: OperationalStatus,
  errorType: z.union([ErrorType, z.literal('')]).optional(),
  errorMessage: z.string(),
  errorCount: z.number().int().min(0),
  lastUpdated: z.string().optional(),
  hardware: HardwareDetails.optional(),
  hardwareProfile: z.string().optional(),
  poweredOn: z.boolean(),
  provisioning: ProvisionStatus,
  goodCredentials: CredentialsStatus.optional(),
  triedCredentials: CredentialsStatus.optional(),
  operationHistory: OperationHistory.optional(),
  provisioningFailCount: z.number().int().min(0),
  lastAttemptedImage: Image.optional(),
  conditions: z.array(Condition).max(32).optional(),
});
export type BareMetalHostStatus = z.infer<typeof BareMetalHostStatus>;

export const BMH_API_VERSION = 'metal3.io/v1alpha1';
export const BMH_KIND = 'BareMetalHost';

export const BareMetalHost = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(BMH_KIND),
  metadata: ObjectMeta,
  spec: BareMetalHostSpec,
  status: BareMetalHostStatus.optional(),
});
export type BareMetalHost = z.infer<typeof BareMetalHost>;

// The status a host has before metalfleet has touched it.
export function initialStatus(): BareMetalHostStatus {
  return {
    operationalStatus: '',
    errorMessage: '',
    errorCount: 0,
    poweredOn: false,
    provisioning: { state: '', ID: '' },
    provisioningFailCount: 0,
  };
}
