import { z } from 'zod';

// The firmware shapes BMO's companion kinds share (apis/metal3.io/v1alpha1: firmwareschema_types,
// hostfirmwarecomponents_types), and what a provisioner reads from and sends to its backend for
// them. The CRD objects (FirmwareSchema, HostFirmwareSettings, HostFirmwareComponents,
// HostUpdatePolicy, HardwareData) are built on these; the host machine and every provisioner
// speak only these shapes, never Ironic's.

/** One BIOS setting's rules, as Ironic's BIOS registry (API 1.74) gives them and BMO copies them. */
export const SettingSchema = z.object({
  attribute_type: z.enum(['Enumeration', 'String', 'Integer', 'Boolean', 'Password']).optional().describe('The type of the setting.'),
  allowable_values: z.array(z.string().describe('A value the setting may take.')).optional().describe('The values an Enumeration setting may take.'),
  lower_bound: z.number().int().optional().describe('The lowest value of an Integer setting.'),
  upper_bound: z.number().int().optional().describe('The highest value of an Integer setting.'),
  min_length: z.number().int().optional().describe('The shortest value of a String setting.'),
  max_length: z.number().int().optional().describe('The longest value of a String setting.'),
  read_only: z.boolean().optional().describe('Whether the setting is read only.'),
  unique: z.boolean().optional().describe('Whether the value is unique to this host, e.g. a serial number.'),
}).describe('What values one firmware setting takes.');
export type SettingSchema = z.infer<typeof SettingSchema>;

/**
 * A firmware image to flash on one component: `bios`, `bmc` or `nic:<id>`, from a URL. Both plain
 * required strings as in BMO's Go type: an empty or unknown component and a bad URL are refused by
 * validation (companions/validate-rules.ts) with BMO's own messages, not by the schema.
 */
export const FirmwareUpdate = z.object({
  component: z.string().describe('The component to update: bios, bmc, or nic:<id>.'),
  url: z.string().describe('Where the firmware image is.'),
}).describe('A firmware image to flash on one component.');
export type FirmwareUpdate = z.infer<typeof FirmwareUpdate>;

/** One component's firmware as the backend reports it (HostFirmwareComponents status.components). */
export const FirmwareComponentStatus = z.object({
  component: z.string().describe('The component: bios, bmc, or nic:<id>.'),
  initialVersion: z.string().describe('The version the component had when first seen.'),
  currentVersion: z.string().optional().describe('The version the component has now.'),
  lastVersionFlashed: z.string().optional().describe('The version last flashed on the component.'),
  updatedAt: z.string().meta({ format: 'date-time' }).optional().describe('When the component was last updated (RFC 3339).'),
}).describe('One firmware component and its versions.');
export type FirmwareComponentStatus = z.infer<typeof FirmwareComponentStatus>;

/** What preparing or servicing is to change: BIOS settings by name, and firmware to flash. */
export const FirmwareChanges = z.object({
  settings: z.record(z.string(), z.string()),
  updates: z.array(FirmwareUpdate),
});
export type FirmwareChanges = z.infer<typeof FirmwareChanges>;

export const NO_FIRMWARE_CHANGES: FirmwareChanges = { settings: {}, updates: [] };

/**
 * What a backend reports of a host's firmware: current BIOS settings, the registry they follow
 * (absent where the backend has none), the hardware it identifies the schema by, and firmware
 * components (absent where the backend cannot list them, as Ironic before API 1.86).
 */
export const FirmwareReport = z.object({
  settings: z.record(z.string(), z.string()),
  schema: z.record(z.string(), SettingSchema).optional(),
  vendor: z.string().optional(),
  model: z.string().optional(),
  components: z.array(FirmwareComponentStatus).optional(),
});
export type FirmwareReport = z.infer<typeof FirmwareReport>;

/**
 * What a host's companion objects ask of its firmware, as the host actor reads them and hands
 * them to the machine (BMO's getHostFirmwareSettings/getHostFirmwareComponents and
 * acquireHostUpdatePolicy, baremetalhost_controller.go). settings: HostFirmwareSettings
 * spec.settings that differ from the current ones, only when the HFS is valid; updates:
 * HostFirmwareComponents spec.updates; valid: the HFS is valid (an invalid one is never
 * applied); onReboot: what HostUpdatePolicy lets a provisioned host change when it reboots.
 */
export const FirmwareIntent = z.object({
  settings: z.record(z.string(), z.string()),
  updates: z.array(FirmwareUpdate),
  valid: z.boolean(),
  onReboot: z.object({ settings: z.boolean(), updates: z.boolean() }),
});
export type FirmwareIntent = z.infer<typeof FirmwareIntent>;
