import { z } from 'zod';
import { ObjectMeta } from '../../meta.ts';
import { BMH_API_VERSION } from '../schema.ts';
import { MetaConditions } from './condition.ts';

// HostFirmwareSettings (BMO apis/metal3.io/v1alpha1/hostfirmwaresettings_types.go): one host's
// BIOS settings, wanted (spec, int-or-string values as a user writes them) and current (status,
// strings as the BMC reports them), and the FirmwareSchema they are checked against.

export const HOST_FIRMWARE_SETTINGS_KIND = 'HostFirmwareSettings';

/** Condition types of status.conditions (BMO's SettingsConditionType). */
export const FIRMWARE_SETTINGS_CONDITIONS = { changeDetected: 'ChangeDetected', valid: 'Valid' } as const;

/** A wanted setting's value: Go's intstr.IntOrString, as the CRD's x-kubernetes-int-or-string. */
export const IntOrString = z.union([z.number().int(), z.string()]).describe('The value wanted, a number or a string.');
export type IntOrString = z.infer<typeof IntOrString>;

export const HostFirmwareSettingsSpec = z.object({
  settings: z.record(z.string(), IntOrString).describe('The wanted firmware settings, by name.'),
}).describe('The firmware settings wanted on the host.');
export type HostFirmwareSettingsSpec = z.infer<typeof HostFirmwareSettingsSpec>;

export const SchemaReference = z.object({
  namespace: z.string().describe('The namespace of the FirmwareSchema.'),
  name: z.string().describe('The name of the FirmwareSchema.'),
}).describe('The FirmwareSchema that describes each setting.');
export type SchemaReference = z.infer<typeof SchemaReference>;

export const HostFirmwareSettingsStatus = z.object({
  schema: SchemaReference.optional(),
  settings: z.record(z.string(), z.string().describe('The value the host has.')).describe('The firmware settings the host has, by name.'),
  lastUpdated: z.string().meta({ format: 'date-time' }).optional().describe('When the status was last updated (RFC 3339).'),
  conditions: MetaConditions.optional().describe('Whether the wanted settings differ from the host\'s (ChangeDetected) and are valid for its schema (Valid).'),
}).describe('The firmware settings the host has, as last read from it.');
export type HostFirmwareSettingsStatus = z.infer<typeof HostFirmwareSettingsStatus>;

export const HostFirmwareSettings = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(HOST_FIRMWARE_SETTINGS_KIND),
  metadata: ObjectMeta,
  spec: HostFirmwareSettingsSpec.optional(),
  status: HostFirmwareSettingsStatus.optional(),
});
export type HostFirmwareSettings = z.infer<typeof HostFirmwareSettings>;
