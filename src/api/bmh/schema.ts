import { z } from 'zod';
import { readDefault } from '../crd/index.ts';
import { Condition, ObjectMeta, SecretReference } from '../meta.ts';

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

// BMO's MAC pattern. Upstream anchors it on networkInterfaces but not on bootMACAddress (nor on
// hardware NICs), so a longer string containing a MAC passes there; kept as is, to refuse what
// upstream refuses and no more.
const MAC = '[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}';
// The API server's words for a value its pattern refuses, so `metalfleet validate` reads like kubectl.
const shouldMatch = (pattern: string): { error: string } => ({ error: `should match '${pattern}'` });

/** A Secret by name, in the host's namespace unless `namespace` is set. */
function secretReference(what: string): z.ZodType<SecretReference> {
  return SecretReference.extend({
    name: SecretReference.shape.name.describe(`Name of the Secret holding ${what}.`),
    namespace: SecretReference.shape.namespace.describe('Namespace of the Secret; the host\'s own when unset.'),
  }).describe(`The Secret holding ${what}.`);
}

export const BmcDetails = z.object({
  address: z.string().describe('How to reach the BMC: a URL whose scheme names the driver, e.g. ipmi://192.168.122.1:6233, redfish://10.0.0.5/redfish/v1/Systems/1 or idrac-virtualmedia://10.0.0.6/redfish/v1/Systems/System.Embedded.1.'),
  credentialsName: z.string().describe('Name of the Secret, in the host\'s namespace, with the BMC `username` and `password`.'),
  disableCertificateVerification: z.boolean().optional().describe('Skip verification of the BMC\'s TLS certificate (self-signed BMCs).'),
}).describe('How to reach and log in to the host\'s baseboard management controller.');

export const Image = z.object({
  // BMO's webhook takes http, https, ftp, gopher and oci URLs only (reference/bmo.md §2.3 rule 8).
  url: z.string().describe('Where the image is downloaded from: an http://, https:// or ftp:// URL, or oci:// for an OCI artifact.'),
  checksum: z.string().optional().describe('The image\'s checksum, or a URL of a file holding it. Not needed for live-iso images.'),
  checksumType: z.enum(['md5', 'sha256', 'sha512', 'auto']).optional().describe('Algorithm of checksum; auto (or unset) infers it from the checksum\'s length.'),
  format: z.enum(['raw', 'qcow2', 'vdi', 'vmdk', 'live-iso']).optional().describe('Disk format of the image; live-iso boots the ISO from virtual media instead of writing it to disk.'),
  ociAuthSecretName: z.string().optional().describe('Name of a Secret with registry credentials (.dockerconfigjson) for an oci:// url.'),
}).describe('An image to write to the host\'s root disk, or to boot as a live ISO.');
export type Image = z.infer<typeof Image>;

export const RootDeviceHints = z.object({
  deviceName: z.string().optional().describe('A Linux device name (/dev/sda) or a by-path link (/dev/disk/by-path/...). Not a /dev/disk/by-id link.'),
  hctl: z.string().optional().describe('SCSI address as Host:Channel:Target:Lun, e.g. 0:0:0:0.'),
  model: z.string().optional().describe('Vendor-specific model string; a substring is enough.'),
  vendor: z.string().optional().describe('Device vendor name; a substring is enough.'),
  serialNumber: z.string().optional().describe('Disk serial number, exact.'),
  minSizeGigabytes: z.number().int().min(0).optional().describe('Smallest acceptable disk size, in gigabytes.'),
  wwn: z.string().optional().describe('World Wide Name, exact.'),
  wwnWithExtension: z.string().optional().describe('World Wide Name with its vendor extension, exact.'),
  wwnVendorExtension: z.string().optional().describe('World Wide Name vendor extension, exact.'),
  rotational: z.boolean().optional().describe('true for a spinning disk, false for solid state.'),
}).describe('Hints that pick a disk; the disk must match every hint given.');
export type RootDeviceHints = z.infer<typeof RootDeviceHints>;

export const HardwareRaidVolume = z.object({
  name: z.string().max(64).optional().describe('Name of the volume, unique per controller.'),
  level: z.enum(['0', '1', '2', '5', '6', '1+0', '5+0', '6+0']).describe('RAID level of the volume.'),
  sizeGibibytes: z.number().int().min(0).optional().describe('Size in GiB; unset uses the largest size the disks allow.'),
  rotational: z.boolean().optional().describe('Build the volume from spinning (true) or solid-state (false) disks.'),
  numberOfPhysicalDisks: z.number().int().min(1).optional().describe('How many physical disks the volume uses.'),
  controller: z.string().optional().describe('Name of the RAID controller to use.'),
  physicalDisks: z.array(z.string().describe('A physical disk name as the controller names it.')).optional().describe('The physical disks to build the volume from, by name.'),
}).describe('A hardware RAID volume the host\'s RAID controller builds.');
export const SoftwareRaidVolume = z.object({
  level: z.enum(['0', '1', '1+0']).describe('RAID level of the software (mdadm) volume.'),
  rootVolume: z.boolean().optional().describe('This volume holds the root file system; at most one volume, of level 1.'),
  sizeGibibytes: z.number().int().min(0).optional().describe('Size in GiB; unset uses the largest size the disks allow.'),
  physicalDisks: z.array(RootDeviceHints.describe('Hints that pick one disk of the volume.')).min(2).optional().describe('The disks to build the volume from, at least two, each chosen by hints.'),
}).describe('A software RAID volume, built on the host by the deploy ramdisk.');
const raidVolumes = {
  hardwareRAIDVolumes: z.array(HardwareRaidVolume).nullable().optional().describe('Hardware RAID volumes to create; an empty list removes the existing ones, null or unset keeps them.'),
  softwareRAIDVolumes: z.array(SoftwareRaidVolume).max(2).nullable().optional().describe('Software RAID volumes to create, at most two; an empty list removes them, null or unset keeps them.'),
};
export const RaidConfig = z.object(raidVolumes).describe('RAID to configure while the host is prepared. Hardware and software RAID exclude each other.');
export type RaidConfig = z.infer<typeof RaidConfig>;

// RAID as a controller acts on it (BMO's Go struct): each list is null (keep what is there) or a
// list, maybe empty (clear it). The preparing call carries target and actual in this shape.
export const RaidTarget = z.object({
  hardwareRAIDVolumes: z.array(HardwareRaidVolume).nullable(),
  softwareRAIDVolumes: z.array(SoftwareRaidVolume).max(2).nullable(),
});
export type RaidTarget = z.infer<typeof RaidTarget>;

export const NetworkInterface = z.object({
  name: z.string().regex(/^[a-zA-Z0-9._-]+$/, shouldMatch('^[a-zA-Z0-9._-]+$')).optional().describe('Interface name as the host\'s OS sees it, e.g. eno1.'),
  macAddress: z.string().regex(new RegExp(`^${MAC}$`), shouldMatch(`^${MAC}$`)).optional().describe('MAC address of the interface, six colon-separated hex pairs.'),
  switchPort: z.object({
    portID: z.string().describe('The switch port the interface is cabled to, as the switch names it.'),
    switchID: z.string().regex(new RegExp(`^${MAC}$`), shouldMatch(`^${MAC}$`)).describe('The switch\'s chassis MAC address.'),
  }).optional().describe('Where the interface is cabled: a switch and its port (LLDP terms).'),
  hostNetworkAttachment: z.object({
    name: z.string().max(253).optional().describe('Name of the HostNetworkAttachment.'),
    namespace: z.string().max(63).optional().describe('Namespace of the HostNetworkAttachment; the host\'s own when unset.'),
  }).optional().describe('The HostNetworkAttachment that configures the switch port of this interface, when Ironic networking is enabled.'),
}).describe('A network interface of the host, and where it is cabled.');

const FirmwareConfig = z.object({
  simultaneousMultithreadingEnabled: z.boolean().optional().describe('Turn simultaneous multithreading (hyper-threading) on or off.'),
  sriovEnabled: z.boolean().optional().describe('Turn SR-IOV on or off.'),
  virtualizationEnabled: z.boolean().optional().describe('Turn CPU virtualization extensions on or off.'),
}).describe('Deprecated BIOS settings; use a HostFirmwareSettings resource. Refused by validation when set.');

const Taint = z.object({
  key: z.string().describe('Taint key.'),
  value: z.string().optional().describe('Taint value.'),
  effect: z.string().describe('What the taint does to workloads that do not tolerate it: NoSchedule, PreferNoSchedule or NoExecute.'),
  // The API server checks date-time its own (lenient) way; zod's datetime would add a stricter pattern.
  timeAdded: z.string().meta({ format: 'date-time' }).optional().describe('When the taint was added (NoExecute taints).'),
}).describe('A taint to put on the Node of this host.');

const ConsumerReference = z.object({
  apiVersion: z.string().optional().describe('API version of the consumer.'),
  kind: z.string().optional().describe('Kind of the consumer, e.g. Metal3Machine.'),
  name: z.string().optional().describe('Name of the consumer.'),
  namespace: z.string().optional().describe('Namespace of the consumer.'),
  uid: z.string().optional().describe('UID of the consumer.'),
  resourceVersion: z.string().optional().describe('Resource version of the consumer, when the reference was made.'),
  fieldPath: z.string().optional().describe('A field of the consumer the reference is about, if any.'),
}).describe('The object using this host, e.g. a Cluster API Metal3Machine. A host with a consumer is not claimed by another.');

export const BareMetalHostSpec = z.object({
  online: z.boolean().describe('Whether the host should be powered on.'),
  bmc: BmcDetails.optional(),
  bootMACAddress: z.string().regex(new RegExp(MAC), shouldMatch(MAC)).optional().describe('MAC address of the NIC the host PXE-boots from; needed for drivers that boot over the network (ipmi, redfish without virtual media).'),
  bootMode: readDefault(BootMode, 'UEFI').describe('How the host boots: UEFI, UEFISecureBoot or legacy (BIOS). UEFI when unset.'),
  image: Image.optional(),
  customDeploy: z.object({ method: z.string().describe('Name of the custom deploy step the deploy ramdisk runs.') }).optional().describe('Deploy the host with a custom deploy step instead of writing an image.'),
  userData: secretReference('the user data (cloud-init or ignition) for the deployed OS').optional(),
  networkData: secretReference('the network data (network_data.json) for the deployed OS').optional(),
  metaData: secretReference('the meta data for the deployed OS').optional(),
  preprovisioningNetworkDataName: z.string().optional().describe('Name of a Secret, in the host\'s namespace, with network data for the deploy ramdisk.'),
  rootDeviceHints: RootDeviceHints.optional(),
  raid: RaidConfig.optional(),
  automatedCleaningMode: z.enum(['metadata', 'disabled']).default('metadata').describe('Cleaning when the host is prepared and deprovisioned: metadata wipes partition tables, disabled skips cleaning.'),
  externallyProvisioned: z.boolean().optional().describe('The host runs an OS installed some other way; it is not provisioned, only its power is managed.'),
  consumerRef: ConsumerReference.optional(),
  architecture: z.string().optional().describe('CPU architecture of the host, e.g. x86_64 or aarch64.'),
  disablePowerOff: z.boolean().optional().describe('Never power the host off (hosts whose BMC cannot power on again); reboots still happen.'),
  inspectionMode: z.enum(['disabled', 'agent', 'fast']).optional().describe('Hardware inspection: agent boots the inspection ramdisk, fast reads what the BMC reports, disabled skips it.'),
  networkInterfaces: z.array(NetworkInterface).optional().describe('The host\'s network interfaces and where they are cabled.'),
  description: z.string().optional().describe('Free text about the host, for people.'),
  // Deprecated upstream; accepted so old manifests parse. BMO's webhook refuses only firmware of
  // these, not hardwareProfile or taints (reference/bmo.md §2.3 rule 2).
  hardwareProfile: z.string().optional().describe('Deprecated and ignored.'),
  firmware: FirmwareConfig.optional(),
  taints: z.array(Taint).optional().describe('Taints to put on the Node of this host.'),
}).describe('The desired state of the host.');
export type BareMetalHostSpec = z.infer<typeof BareMetalHostSpec>;

export const CredentialsStatus = z.object({
  credentials: secretReference('the BMC credentials').optional(),
  credentialsVersion: z.string().optional().describe('resourceVersion of that Secret.'),
});
export type CredentialsStatus = z.infer<typeof CredentialsStatus>;

function operationMetric(operation: string): z.ZodOptional<z.ZodType<{ start?: string | null | undefined; end?: string | null | undefined }>> {
  return z.object({
    start: z.string().nullable().optional().describe(`When ${operation} last started (RFC 3339).`),
    end: z.string().nullable().optional().describe(`When ${operation} last ended (RFC 3339); null while it runs.`),
  }).optional().describe(`The last ${operation}.`);
}
export const OperationHistory = z.object({
  register: operationMetric('registration'),
  inspect: operationMetric('inspection'),
  provision: operationMetric('provisioning'),
  deprovision: operationMetric('deprovisioning'),
}).describe('When the host was last registered, inspected, provisioned and deprovisioned.');
export type OperationHistory = z.infer<typeof OperationHistory>;

// BMO's HardwareDetails (apis/metal3.io/v1alpha1/hardwaredata_types.go), field for field and in
// its Go types as controller-gen writes them: Go int fields are integers (Capacity an int64,
// VLANID an int32 from 0 to 4094), ClockSpeed a float64, DiskType an enum. Plain objects, not
// loose ones: BMO's CRD keeps no unknown field (the API server prunes them), so neither does zod,
// and what metalfleet writes is what the server stores. BareMetalHost status.hardware and
// HardwareData spec.hardware are this one struct. (The hardwaredetails and status annotations are
// first decoded as Go decodes them, hardware-details.ts, which refuses an unknown key.)
const goInt = (): z.ZodNumber => z.number().int();
const VlanId = goInt().min(0).max(4094).meta({ format: 'int32' });
export const HardwareDetails = z.object({
  systemVendor: z.object({
    manufacturer: z.string().optional().describe('System manufacturer.'),
    productName: z.string().optional().describe('System product name.'),
    serialNumber: z.string().optional().describe('System serial number.'),
  }).optional().describe('System vendor information.'),
  firmware: z.object({
    bios: z.object({
      date: z.string().optional().describe('The release/build date for this BIOS'),
      vendor: z.string().optional().describe('The vendor name for this BIOS'),
      version: z.string().optional().describe('The version of the BIOS'),
    }).optional().describe('The BIOS for this firmware'),
  }).optional().describe('System firmware information.'),
  ramMebibytes: goInt().optional().describe('The host\'s amount of memory in Mebibytes.'),
  nics: z.array(z.object({
    name: z.string().optional().describe('The name of the network interface, e.g. "en0"'),
    model: z.string().optional().describe('The vendor and product IDs of the NIC, e.g. "0x8086 0x1572"'),
    mac: z.string().regex(new RegExp(MAC), shouldMatch(MAC)).optional().describe('The device MAC address'),
    ip: z.string().optional().describe('The IP address of the interface: IPv4 or IPv6 (a dual-stack interface is listed twice, once with each).'),
    speedGbps: goInt().optional().describe('The speed of the device in Gigabits per second'),
    vlans: z.array(z.object({
      id: VlanId.optional().describe('VLANID is a 12-bit 802.1Q VLAN identifier'),
      name: z.string().optional().describe('The VLAN\'s name.'),
    }).describe('VLAN represents the name and ID of a VLAN.')).optional().describe('The VLANs available'),
    vlanId: VlanId.optional().describe('The untagged VLAN ID'),
    pxe: z.boolean().optional().describe('Whether the NIC is PXE Bootable'),
    lldp: z.object({
      switchID: z.string().optional().describe('The switch chassis ID from LLDP'),
      portID: z.string().optional().describe('The switch port ID from LLDP'),
      switchSystemName: z.string().optional().describe('The switch system name from LLDP'),
    }).optional().describe('LLDP data for this interface'),
    pciAddress: z.string().optional().describe('The NIC PCI address'),
  }).describe('NIC describes one network interface on the host.')).optional().describe('List of network interfaces for the host.'),
  storage: z.array(z.object({
    name: z.string().optional().describe('A Linux device name of the disk, stable across reboots if one is available, e.g. /dev/disk/by-path/pci-0000:01:00.0-scsi-0:2:0:0.'),
    alternateNames: z.array(z.string().describe('A Linux device name of the disk.')).optional().describe('Other Linux device names of the disk, e.g. /dev/sda; not exhaustive, and maybe not stable across reboots.'),
    rotational: z.boolean().optional().describe('Whether this disk represents rotational storage (prefer type).'),
    type: z.enum(['HDD', 'SSD', 'NVME']).optional().describe('Device type, one of: HDD, SSD, NVME.'),
    sizeBytes: goInt().meta({ format: 'int64' }).optional().describe('The size of the disk in Bytes'),
    vendor: z.string().optional().describe('The name of the vendor of the device'),
    model: z.string().optional().describe('Hardware model'),
    serialNumber: z.string().optional().describe('The serial number of the device'),
    wwn: z.string().optional().describe('The WWN of the device'),
    wwnVendorExtension: z.string().optional().describe('The WWN Vendor extension of the device'),
    wwnWithExtension: z.string().optional().describe('The WWN with the extension'),
    hctl: z.string().optional().describe('The SCSI location of the device'),
  }).describe('Storage describes one storage device (disk, SSD, etc.) on the host.')).optional().describe('List of storage (disk, SSD, etc.) available to the host.'),
  cpu: z.object({
    arch: z.string().optional().describe('CPU architecture, e.g. x86_64.'),
    model: z.string().optional().describe('CPU model name.'),
    clockMegahertz: z.number().meta({ format: 'double' }).optional().describe('ClockSpeed is a clock speed in MHz'),
    flags: z.array(z.string().describe('A CPU flag, e.g. vmx.')).optional().describe('CPU flags.'),
    count: goInt().optional().describe('Number of logical CPUs.'),
  }).optional().describe('Details of the CPU(s) in the system.'),
  hostname: z.string().optional().describe('Name of the host at the inspection time.'),
}).describe('What inspection found in the host.');
export type HardwareDetails = z.infer<typeof HardwareDetails>;

export const ProvisionStatus = z.object({
  state: ProvisioningState.describe('Where the host is in its provisioning life cycle.'),
  ID: z.string().describe('The host\'s node UUID in Ironic.'),
  image: Image.optional().describe('The image written to the host.'),
  rootDeviceHints: RootDeviceHints.optional().describe('The root device hints used to provision the host.'),
  bootMode: BootMode.optional().describe('The boot mode the host was provisioned with.'),
  raid: RaidConfig.optional().describe('The RAID configuration applied to the host.'),
  customDeploy: z.object({ method: z.string().describe('Name of the custom deploy step.') }).optional().describe('The custom deploy step used to provision the host.'),
  firmware: z.looseObject({}).optional().describe('The firmware settings applied to the host (deprecated).'),
}).describe('Provisioning state and what the host was provisioned with.');
export type ProvisionStatus = z.infer<typeof ProvisionStatus>;

const HostCondition = Condition.extend({
  type: Condition.shape.type.describe('Condition type, e.g. Ready.'),
  status: Condition.shape.status.describe('True, False or Unknown.'),
  reason: Condition.shape.reason.describe('A CamelCase word saying why the condition has its status.'),
  message: Condition.shape.message.describe('Details, for people.'),
  lastTransitionTime: Condition.shape.lastTransitionTime.describe('When the status last changed (RFC 3339).'),
  observedGeneration: Condition.shape.observedGeneration.describe('The metadata.generation the condition was computed for.'),
}).describe('One aspect of the host\'s state.');

export const BareMetalHostStatus = z.object({
  operationalStatus: OperationalStatus.describe('Whether the host is usable: OK, discovered (no BMC details yet), error, delayed (waiting for a provisioning slot), detached or servicing.'),
  errorType: z.union([ErrorType, z.literal('')]).optional().describe('The kind of the last error; empty when there is none.'),
  errorMessage: z.string().describe('The last error, for people; empty when there is none.'),
  // Go ints without a minimum in BMO's CRD: a saved status (the status annotation) may carry a
  // negative count, which Go decodes and the API server stores.
  errorCount: z.number().int().describe('Errors since the last success; drives the retry backoff.'),
  lastUpdated: z.string().optional().describe('When the status last changed (RFC 3339).'),
  hardware: HardwareDetails.optional(),
  hardwareProfile: z.string().optional().describe('Deprecated: the hardware profile that matched the host.'),
  poweredOn: z.boolean().describe('Whether the host was powered on when last checked.'),
  provisioning: ProvisionStatus,
  goodCredentials: CredentialsStatus.optional().describe('The last BMC credentials that worked.'),
  triedCredentials: CredentialsStatus.optional().describe('The last BMC credentials tried.'),
  operationHistory: OperationHistory.optional(),
  provisioningFailCount: z.number().int().describe('Failed provisioning attempts in a row.'),
  lastAttemptedImage: Image.optional().describe('The image of the last provisioning attempt.'),
  conditions: z.array(HostCondition).max(32).optional().describe('Conditions of the host, at most 32.'),
}).describe('The observed state of the host, written by the controller.');
export type BareMetalHostStatus = z.infer<typeof BareMetalHostStatus>;

export const BMH_API_VERSION = 'metal3.io/v1alpha1';
export const BMH_KIND = 'BareMetalHost';

export const BareMetalHost = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(BMH_KIND),
  metadata: ObjectMeta,
  // Upstream's CRD does not require spec (BMO's demo-hosts.yaml has a host without one); Go reads
  // the zero value, which is what metalfleet fills when reading.
  spec: readDefault(BareMetalHostSpec, { online: false, bootMode: 'UEFI', automatedCleaningMode: 'metadata' }),
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
