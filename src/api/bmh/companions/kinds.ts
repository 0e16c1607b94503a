import { FIRMWARE_SCHEMA_KIND } from './firmware-schema.ts';
import { HARDWARE_DATA_KIND } from './hardware-data.ts';
import { HOST_FIRMWARE_COMPONENTS_KIND } from './host-firmware-components.ts';
import { HOST_FIRMWARE_SETTINGS_KIND } from './host-firmware-settings.ts';
import { HOST_UPDATE_POLICY_KIND } from './host-update-policy.ts';

/** BMO's companion kinds of BareMetalHost, all metal3.io/v1alpha1. */
export const BMH_COMPANION_KINDS = [
  HARDWARE_DATA_KIND, FIRMWARE_SCHEMA_KIND, HOST_FIRMWARE_SETTINGS_KIND, HOST_FIRMWARE_COMPONENTS_KIND, HOST_UPDATE_POLICY_KIND,
] as const;
export type BmhCompanionKind = (typeof BMH_COMPANION_KINDS)[number];
