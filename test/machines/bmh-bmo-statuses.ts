// BareMetalHosts as the Kubernetes API returns them after BMO (baremetal-operator, commit 02aa5059)
// wrote their status: field names, nulls and empty structs exactly as Go's encoding/json emits
// BareMetalHostStatus (apis/metal3.io/v1alpha1/baremetalhost_types.go) and the CRD keeps them
// (`nullable: true` on the RAID volume lists and the operationHistory times). Plain JSON values,
// not metalfleet types: the test parses them as the kube adapter does.

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface RawHost extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: JsonObject;
  spec: JsonObject;
  status: JsonObject;
}

export const NODE_ID = '3f9d1a6e-6c2b-4f1d-9a63-1a0f5c2e7b44';
export const CREDENTIALS = { credentials: { name: 'worker-0-bmc-secret', namespace: 'metal3' }, credentialsVersion: '19311' };

export const IMAGE = {
  url: 'http://172.22.0.1/images/ubuntu-24.04-server-cloudimg-amd64.qcow2',
  checksum: '8d4e1f9c0a5b7e3d2c6f1a9b8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d',
  checksumType: 'sha256',
  format: 'qcow2',
};

// Go serialises the non-pointer status.provisioning.image of a host that never had an image
// recorded as an Image with an empty URL; omitempty does not apply to structs.
export const EMPTY_IMAGE = { url: '' };

// What inspection (Ironic inspector via BMO) leaves in status.hardware.
export const HARDWARE: JsonObject = {
  cpu: { arch: 'x86_64', clockMegahertz: 2100, count: 64, flags: ['avx2', 'sse4_2', 'vmx'], model: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz' },
  firmware: { bios: { date: '03/15/2024', vendor: 'Dell Inc.', version: '1.12.2' } },
  hostname: 'worker-0',
  nics: [
    { ip: '172.22.0.57', mac: '00:5c:52:31:3a:9c', model: '0x8086 0x1572', name: 'eno1', pxe: true, speedGbps: 10, vlanId: 0 },
    { mac: '00:5c:52:31:3a:9d', model: '0x8086 0x1572', name: 'eno2', pxe: false, speedGbps: 10, vlanId: 0 },
  ],
  ramMebibytes: 262144,
  storage: [
    { alternateNames: ['/dev/sda', '/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0'], hctl: '0:2:0:0', model: 'PERC H755', name: '/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0', rotational: false, serialNumber: '6f4ee0806b0b5a002c4a3f7e1b2d3c4e', sizeBytes: 479559942144, type: 'SSD', vendor: 'DELL', wwn: '0x6f4ee0806b0b5a00', wwnWithExtension: '0x6f4ee0806b0b5a002c4a3f7e1b2d3c4e' },
  ],
  systemVendor: { manufacturer: 'Dell Inc.', productName: 'PowerEdge R650', serialNumber: 'GX7K2Q3' },
};

export const HARDWARE_RAID = {
  hardwareRAIDVolumes: [{ controller: 'RAID.Integrated.1-1', level: '1', name: 'root', numberOfPhysicalDisks: 2, physicalDisks: ['Disk.Bay.0:Enclosure.Internal.0-1:RAID.Integrated.1-1', 'Disk.Bay.1:Enclosure.Internal.0-1:RAID.Integrated.1-1'], rotational: false, sizeGibibytes: 446 }],
  softwareRAIDVolumes: [],
};
export const SOFTWARE_RAID_VOLUMES = [{ level: '1', physicalDisks: [{ deviceName: '/dev/nvme0n1' }, { deviceName: '/dev/nvme1n1' }], rootVolume: true }];
// saveHostProvisioningSettings with spec.raid nil and a RAID status: hardware volumes kept (nil
// when there are none), software volumes set to an empty list.
export const NO_RAID = { hardwareRAIDVolumes: null, softwareRAIDVolumes: [] };

const NEVER = { end: null, start: null };
const REGISTERED = { end: '2026-11-28T09:01:12Z', start: '2026-11-28T09:00:03Z' };
const INSPECTED = { end: '2026-11-28T09:09:40Z', start: '2026-11-28T09:01:13Z' };
const PROVISIONED = { end: '2026-11-29T14:31:05Z', start: '2026-11-29T14:18:22Z' };

const CONDITIONS_PROVISIONED = [
  { lastTransitionTime: '2026-11-28T09:01:12Z', message: '', observedGeneration: 3, reason: 'Manageable', status: 'True', type: 'Manageable' },
  { lastTransitionTime: '2026-11-29T14:18:22Z', message: '', observedGeneration: 3, reason: 'NotAvailable', status: 'False', type: 'AvailableForProvisioning' },
  { lastTransitionTime: '2026-11-29T14:31:05Z', message: '', observedGeneration: 3, reason: 'Provisioned', status: 'True', type: 'Provisioned' },
  { lastTransitionTime: '2026-11-29T14:31:05Z', message: '', observedGeneration: 3, reason: 'Provisioned', status: 'True', type: 'Ready' },
  { lastTransitionTime: '2026-11-29T14:31:05Z', message: '', observedGeneration: 3, reason: 'NotProgressing', status: 'False', type: 'Progressing' },
];

const CONSUMER = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'cluster-a-workers-x7k2p', namespace: 'metal3' };

// undefined drops a field BMO omits (omitempty) in that state.
type Part = { [key: string]: Json | undefined };

export interface BmoHostParts {
  spec?: Part;
  status?: Part;
  provisioning: Part;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

/** A host as `kubectl get bmh -o json` shows it after BMO's last status write. */
export function bmoHost(p: BmoHostParts): RawHost {
  // Through JSON, as the API server hands it out: undefined fields vanish.
  return JSON.parse(JSON.stringify({
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: 'worker-0',
      namespace: 'metal3',
      uid: '9b3c2f1e-8d7a-4c6b-a5e4-d3c2b1a0f9e8',
      resourceVersion: '204117',
      generation: 3,
      creationTimestamp: '2026-11-28T08:59:58Z',
      labels: { 'cluster.x-k8s.io/cluster-name': 'cluster-a' },
      annotations: p.annotations ?? {},
      finalizers: ['baremetalhost.metal3.io'],
      ...(p.deletionTimestamp ? { deletionTimestamp: p.deletionTimestamp } : {}),
    },
    spec: {
      automatedCleaningMode: 'metadata',
      bmc: { address: 'redfish-virtualmedia://192.168.111.1:8000/redfish/v1/Systems/System.Embedded.1', credentialsName: 'worker-0-bmc-secret' },
      bootMACAddress: '00:5c:52:31:3a:9c',
      bootMode: 'UEFI',
      online: true,
      ...p.spec,
    },
    status: {
      errorCount: 0,
      errorMessage: '',
      goodCredentials: CREDENTIALS,
      hardware: HARDWARE,
      hardwareProfile: 'unknown',
      lastUpdated: '2026-12-01T06:12:44Z',
      operationHistory: { deprovision: NEVER, inspect: INSPECTED, provision: NEVER, register: REGISTERED },
      operationalStatus: 'OK',
      poweredOn: false,
      provisioning: { ID: NODE_ID, bootMode: 'UEFI', image: EMPTY_IMAGE, rootDeviceHints: { deviceName: '/dev/sda' }, ...p.provisioning },
      provisioningFailCount: 0,
      triedCredentials: CREDENTIALS,
      ...p.status,
    },
  })) as RawHost;
}

const provisionedSpec = (extra: Part = {}): Part => ({
  image: IMAGE,
  consumerRef: CONSUMER,
  userData: { name: 'worker-0-user-data', namespace: 'metal3' },
  ...extra,
});

const provisionedStatus = (extra: Part = {}): Part => ({
  poweredOn: true,
  operationHistory: { deprovision: NEVER, inspect: INSPECTED, provision: PROVISIONED, register: REGISTERED },
  conditions: CONDITIONS_PROVISIONED,
  ...extra,
});

export const DETACHED_ANNOTATION = 'baremetalhost.metal3.io/detached';

/** Every state BMO leaves a host in, with the variants of status it writes there. */
export const BMO_HOSTS = {
  registering: bmoHost({
    provisioning: { state: 'registering', ID: '', image: EMPTY_IMAGE },
    status: { goodCredentials: {}, hardware: undefined, hardwareProfile: undefined, operationHistory: { deprovision: NEVER, inspect: NEVER, provision: NEVER, register: { end: null, start: '2026-12-01T06:12:40Z' } } },
  }),
  registrationError: bmoHost({
    provisioning: { state: 'registering', ID: NODE_ID },
    status: {
      operationalStatus: 'error', errorType: 'registration error', errorCount: 2,
      errorMessage: 'Failed to get power state for node 3f9d1a6e-6c2b-4f1d-9a63-1a0f5c2e7b44. Error: Redfish exception occurred. Error: HTTP GET https://192.168.111.1:8000/redfish/v1/Systems/System.Embedded.1 returned code 401.',
      goodCredentials: {}, hardware: undefined, hardwareProfile: undefined,
      operationHistory: { deprovision: NEVER, inspect: NEVER, provision: NEVER, register: { end: null, start: '2026-12-01T06:02:11Z' } },
    },
  }),
  inspecting: bmoHost({
    provisioning: { state: 'inspecting' },
    status: { hardware: undefined, operationHistory: { deprovision: NEVER, inspect: { end: null, start: '2026-12-01T06:10:02Z' }, provision: NEVER, register: REGISTERED } },
  }),
  preparing: bmoHost({ provisioning: { state: 'preparing' } }),
  matchProfile: bmoHost({ provisioning: { state: 'match profile' } }),
  available: bmoHost({ spec: { online: false }, provisioning: { state: 'available' } }),
  ready: bmoHost({ spec: { online: false }, provisioning: { state: 'ready' } }),
  availableHardwareRaid: bmoHost({ spec: { online: false }, provisioning: { state: 'available', raid: HARDWARE_RAID } }),
  availableNoRaid: bmoHost({ spec: { online: false }, provisioning: { state: 'available', raid: NO_RAID } }),
  availableSoftwareRaid: bmoHost({
    spec: { online: false, raid: { softwareRAIDVolumes: SOFTWARE_RAID_VOLUMES } },
    provisioning: { state: 'available', raid: { hardwareRAIDVolumes: null, softwareRAIDVolumes: SOFTWARE_RAID_VOLUMES }, rootDeviceHints: undefined },
  }),
  delayed: bmoHost({ spec: { image: IMAGE, consumerRef: CONSUMER }, provisioning: { state: 'available' }, status: { operationalStatus: 'delayed' } }),
  provisioning: bmoHost({
    spec: provisionedSpec(),
    provisioning: { state: 'provisioning', raid: NO_RAID },
    status: { lastAttemptedImage: IMAGE, operationHistory: { deprovision: NEVER, inspect: INSPECTED, provision: { end: null, start: '2026-12-01T06:05:19Z' }, register: REGISTERED } },
  }),
  provisioningError: bmoHost({
    spec: provisionedSpec(),
    provisioning: { state: 'provisioning', raid: NO_RAID },
    status: {
      operationalStatus: 'error', errorType: 'provisioning error', errorCount: 1,
      errorMessage: 'Image provisioning failed: Deploy step deploy.write_image failed: Image failed to verify against checksum.',
      provisioningFailCount: 1, lastAttemptedImage: IMAGE,
      operationHistory: { deprovision: NEVER, inspect: INSPECTED, provision: { end: null, start: '2026-12-01T05:41:19Z' }, register: REGISTERED },
    },
  }),
  provisioned: bmoHost({ spec: provisionedSpec(), provisioning: { state: 'provisioned', image: IMAGE, raid: NO_RAID }, status: provisionedStatus() }),
  provisionedEmptyImage: bmoHost({ spec: provisionedSpec(), provisioning: { state: 'provisioned', image: EMPTY_IMAGE }, status: provisionedStatus() }),
  provisionedCustomDeploy: bmoHost({
    spec: { consumerRef: CONSUMER, customDeploy: { method: 'install_coreos' } },
    provisioning: { state: 'provisioned', image: EMPTY_IMAGE, customDeploy: { method: 'install_coreos' } },
    status: provisionedStatus(),
  }),
  provisionedHardwareRaid: bmoHost({
    spec: provisionedSpec(),
    provisioning: { state: 'provisioned', image: IMAGE, raid: HARDWARE_RAID, firmware: { simultaneousMultithreadingEnabled: true, virtualizationEnabled: true } },
    status: provisionedStatus(),
  }),
  provisionedSoftwareRaid: bmoHost({
    spec: provisionedSpec({ raid: { softwareRAIDVolumes: SOFTWARE_RAID_VOLUMES } }),
    provisioning: { state: 'provisioned', image: IMAGE, raid: { hardwareRAIDVolumes: null, softwareRAIDVolumes: SOFTWARE_RAID_VOLUMES }, rootDeviceHints: undefined },
    status: provisionedStatus(),
  }),
  provisionedPowerError: bmoHost({
    spec: provisionedSpec(),
    provisioning: { state: 'provisioned', image: IMAGE, raid: NO_RAID },
    status: provisionedStatus({
      operationalStatus: 'error', errorType: 'power management error', errorCount: 1, poweredOn: false,
      errorMessage: 'Failed to set node power state to power on. Error: Redfish exception occurred. Error: HTTP POST returned code 500.',
    }),
  }),
  provisionedRegistrationError: bmoHost({
    spec: provisionedSpec(),
    provisioning: { state: 'provisioned', image: IMAGE, raid: NO_RAID },
    status: provisionedStatus({
      operationalStatus: 'error', errorType: 'registration error', errorCount: 2,
      errorMessage: 'Failed to validate power interface for node 3f9d1a6e-6c2b-4f1d-9a63-1a0f5c2e7b44: connection timed out',
    }),
  }),
  externallyProvisioned: bmoHost({
    spec: { externallyProvisioned: true, consumerRef: CONSUMER },
    provisioning: { state: 'externally provisioned' },
    status: { poweredOn: true },
  }),
  detached: bmoHost({
    spec: provisionedSpec(),
    annotations: { [DETACHED_ANNOTATION]: '' },
    provisioning: { state: 'provisioned', image: IMAGE, raid: NO_RAID },
    status: provisionedStatus({ operationalStatus: 'detached' }),
  }),
  detachedDelay: bmoHost({
    spec: { online: false },
    annotations: { [DETACHED_ANNOTATION]: '{"deleteAction":"delay"}' },
    provisioning: { state: 'available' },
    status: { operationalStatus: 'detached' },
  }),
  deprovisioning: bmoHost({
    spec: { consumerRef: CONSUMER },
    provisioning: { state: 'deprovisioning', image: IMAGE, raid: NO_RAID },
    status: provisionedStatus({ operationHistory: { deprovision: { end: null, start: '2026-12-01T06:11:30Z' }, inspect: INSPECTED, provision: PROVISIONED, register: REGISTERED } }),
  }),
  poweringOffBeforeDelete: bmoHost({
    deletionTimestamp: '2026-12-01T06:12:30Z',
    spec: { online: false },
    provisioning: { state: 'powering off before delete' },
    status: { poweredOn: true },
  }),
  deleting: bmoHost({
    deletionTimestamp: '2026-12-01T06:12:30Z',
    spec: { online: false },
    provisioning: { state: 'deleting' },
  }),
} satisfies Record<string, RawHost>;

export type BmoHostName = keyof typeof BMO_HOSTS;
