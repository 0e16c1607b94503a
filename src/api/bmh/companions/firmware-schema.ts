import { z } from 'zod';
import { ObjectMeta } from '../../meta.ts';
import { SettingSchema } from '../firmware.ts';
import { BMH_API_VERSION } from '../schema.ts';

// FirmwareSchema (BMO apis/metal3.io/v1alpha1/firmwareschema_types.go): the BIOS registry of one
// hardware vendor and model, shared by the HostFirmwareSettings of every host that has it. It has
// no status, and its spec may be absent (Go's omitempty), as on BMO's own sample.

export const FIRMWARE_SCHEMA_KIND = 'FirmwareSchema';

export const FirmwareSchemaSpec = z.object({
  hardwareVendor: z.string().optional().describe('The hardware vendor this schema is for.'),
  hardwareModel: z.string().optional().describe('The hardware model this schema is for.'),
  schema: z.record(z.string(), SettingSchema).describe('Each setting\'s rules, by setting name.'),
}).describe('The firmware settings of one hardware vendor and model, and their rules.');
export type FirmwareSchemaSpec = z.infer<typeof FirmwareSchemaSpec>;

export const FirmwareSchema = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(FIRMWARE_SCHEMA_KIND),
  metadata: ObjectMeta,
  spec: FirmwareSchemaSpec.optional(),
});
export type FirmwareSchema = z.infer<typeof FirmwareSchema>;
