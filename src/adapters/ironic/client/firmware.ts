import { z } from 'zod';

// What Ironic says of a node's firmware: BIOS settings (GET /v1/nodes/{node}/bios, their registry
// fields with detail=True from 1.74) and firmware components (GET /v1/nodes/{node}/firmware, 1.86).
// Field names as ironic/api/controllers/v1/bios.py and firmware.py give them; the registry
// fields are null where the BMC has no registry.
const optInt = z.number().int().nullable().optional();

export const BiosSetting = z.looseObject({
  name: z.string(),
  value: z.string().nullable().optional(),
  attribute_type: z.string().nullable().optional(),
  allowable_values: z.array(z.string()).nullable().optional(),
  lower_bound: optInt,
  upper_bound: optInt,
  min_length: optInt,
  max_length: optInt,
  read_only: z.boolean().nullable().optional(),
  reset_required: z.boolean().nullable().optional(),
  unique: z.boolean().nullable().optional(),
});
export type BiosSetting = z.infer<typeof BiosSetting>;

export const BiosSettingList = z.looseObject({ bios: z.array(BiosSetting) });

export const FirmwareComponent = z.looseObject({
  component: z.string(),
  initial_version: z.string(),
  current_version: z.string().nullable().optional(),
  last_version_flashed: z.string().nullable().optional(),
  created_at: z.string().nullable().optional(),
  updated_at: z.string().nullable().optional(),
});
export type FirmwareComponent = z.infer<typeof FirmwareComponent>;

export const FirmwareComponentList = z.looseObject({ firmware: z.array(FirmwareComponent) });
