import { z } from 'zod';
import { ObjectMeta } from '../../meta.ts';
import { FirmwareComponentStatus, FirmwareUpdate } from '../firmware.ts';
import { BMH_API_VERSION } from '../schema.ts';
import { MetaConditions } from './condition.ts';

// HostFirmwareComponents (BMO apis/metal3.io/v1alpha1/hostfirmwarecomponents_types.go): the
// firmware a user wants flashed on one host (spec.updates) and the components the host has.

export const HOST_FIRMWARE_COMPONENTS_KIND = 'HostFirmwareComponents';

/** Condition types of status.conditions (BMO's UpdatesConditionType). */
export const FIRMWARE_COMPONENTS_CONDITIONS = { changeDetected: 'ChangeDetected', valid: 'Valid' } as const;

export const HostFirmwareComponentsSpec = z.object({
  updates: z.array(FirmwareUpdate).describe('The firmware to flash, one image per component.'),
}).describe('The firmware updates wanted on the host.');
export type HostFirmwareComponentsSpec = z.infer<typeof HostFirmwareComponentsSpec>;

export const HostFirmwareComponentsStatus = z.object({
  updates: z.array(FirmwareUpdate).optional().describe('The updates last applied to the host.'),
  components: z.array(FirmwareComponentStatus).optional().describe('Every firmware component of the host and its versions.'),
  lastUpdated: z.string().meta({ format: 'date-time' }).optional().describe('When the status was last updated (RFC 3339).'),
  conditions: MetaConditions.optional().describe('Whether the wanted updates differ from the applied ones (ChangeDetected) and are valid (Valid).'),
}).describe('The host\'s firmware components, as last read from it.');
export type HostFirmwareComponentsStatus = z.infer<typeof HostFirmwareComponentsStatus>;

export const HostFirmwareComponents = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(HOST_FIRMWARE_COMPONENTS_KIND),
  metadata: ObjectMeta,
  spec: HostFirmwareComponentsSpec.optional(),
  status: HostFirmwareComponentsStatus.optional(),
});
export type HostFirmwareComponents = z.infer<typeof HostFirmwareComponents>;
