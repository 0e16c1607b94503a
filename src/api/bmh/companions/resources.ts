import { PART_OF_LABEL } from '../../crd/index.ts';
import type { CustomResource } from '../../crd/index.ts';
import { BMH_API_VERSION } from '../schema.ts';
import { FIRMWARE_SCHEMA_KIND, FirmwareSchema } from './firmware-schema.ts';
import { HARDWARE_DATA_KIND, HardwareData } from './hardware-data.ts';
import { HOST_FIRMWARE_COMPONENTS_KIND, HostFirmwareComponents } from './host-firmware-components.ts';
import { HOST_FIRMWARE_SETTINGS_KIND, HostFirmwareSettings } from './host-firmware-settings.ts';
import { HOST_UPDATE_POLICY_KIND, HostUpdatePolicy } from './host-update-policy.ts';

// The CRDs of BMO's companion kinds, with BMO's names, short names, printer columns and
// subresources as its kubebuilder markers make them (apis/metal3.io/v1alpha1/*_types.go;
// config/base/crds/bases/metal3.io_*.yaml). Only HardwareData has a short name and a column of its
// own; kubectl shows NAME and AGE for the others. Only HostFirmwareSettings and
// HostFirmwareComponents have a status subresource; FirmwareSchema and HardwareData have no status,
// and HostUpdatePolicy's (empty) status is written with the object.

export const HARDWARE_DATA_RESOURCE: CustomResource = {
  apiVersion: BMH_API_VERSION,
  kind: HARDWARE_DATA_KIND,
  plural: 'hardwaredata',
  singular: 'hardwaredata',
  shortNames: ['hd'],
  labels: PART_OF_LABEL,
  description: 'HardwareData is what inspection found in a host, as Metal3\'s baremetal-operator defines it.',
  schema: HardwareData,
  statusSubresource: false,
  printerColumns: [
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time duration since creation of HardwareData' },
  ],
};

export const FIRMWARE_SCHEMA_RESOURCE: CustomResource = {
  apiVersion: BMH_API_VERSION,
  kind: FIRMWARE_SCHEMA_KIND,
  plural: 'firmwareschemas',
  singular: 'firmwareschema',
  labels: PART_OF_LABEL,
  description: 'FirmwareSchema is the BIOS settings registry of one hardware vendor and model, as Metal3\'s baremetal-operator defines it.',
  schema: FirmwareSchema,
  statusSubresource: false,
};

export const HOST_FIRMWARE_SETTINGS_RESOURCE: CustomResource = {
  apiVersion: BMH_API_VERSION,
  kind: HOST_FIRMWARE_SETTINGS_KIND,
  plural: 'hostfirmwaresettings',
  singular: 'hostfirmwaresettings',
  shortNames: ['hfs'],
  labels: PART_OF_LABEL,
  description: 'HostFirmwareSettings is one host\'s BIOS settings, wanted and current, as Metal3\'s baremetal-operator defines it.',
  schema: HostFirmwareSettings,
  statusSubresource: true,
};

export const HOST_FIRMWARE_COMPONENTS_RESOURCE: CustomResource = {
  apiVersion: BMH_API_VERSION,
  kind: HOST_FIRMWARE_COMPONENTS_KIND,
  plural: 'hostfirmwarecomponents',
  singular: 'hostfirmwarecomponents',
  labels: PART_OF_LABEL,
  description: 'HostFirmwareComponents is one host\'s firmware components and the updates wanted on them, as Metal3\'s baremetal-operator defines it.',
  schema: HostFirmwareComponents,
  statusSubresource: true,
};

export const HOST_UPDATE_POLICY_RESOURCE: CustomResource = {
  apiVersion: BMH_API_VERSION,
  kind: HOST_UPDATE_POLICY_KIND,
  plural: 'hostupdatepolicies',
  singular: 'hostupdatepolicy',
  labels: PART_OF_LABEL,
  description: 'HostUpdatePolicy says when a host\'s firmware may change, as Metal3\'s baremetal-operator defines it.',
  schema: HostUpdatePolicy,
  statusSubresource: false,
};

/** BMO's companion kinds, in the order their CRDs follow the BareMetalHost's. */
export const BMH_COMPANION_RESOURCES: readonly CustomResource[] = [
  HARDWARE_DATA_RESOURCE,
  FIRMWARE_SCHEMA_RESOURCE,
  HOST_FIRMWARE_SETTINGS_RESOURCE,
  HOST_FIRMWARE_COMPONENTS_RESOURCE,
  HOST_UPDATE_POLICY_RESOURCE,
];
