import { z } from 'zod';

// The firmware shapes BMO's companion kinds share (apis/metal3.io/v1alpha1: firmwareschema_types,
// hostfirmwarecomponents_types), and what a provisioner reads from and sends to its backend for
// them. The CRD objects (FirmwareSchema, HostFirmwareSettings, HostFirmwareComponents,
// HostUpdatePolicy, HardwareData) are built on these; the host machine and every provisioner
// speak only these shapes, never Ironic's.

/** One BIOS setting's rules, as Ironic's BIOS registry (API 1.74) gives them and BMO copies them. */
export const SettingSchema = z.object({
  attribute_type: z.enum(['Enumeration', 'String', 'Integer', 'Boolean', 'Password']).optional(),
  allowable_values: z.array(z.string()).optional(),
  lower_bound: z.number().int().optional(),
  upper_bound: z.number().int().optional(),
  min_length: z.number().int().optional(),
  max_length: z.number().int().optional(),
  read_only: z.boolean().optional(),
  unique: z.boolean().optional(),
});
export type SettingSchema = z.infer<typeof SettingSchema>;

/** A firmware image to flash on one component: `bios`, `bmc` or `nic:<id>`, from a URL. */
export const FirmwareUpdate = z.object({
  component: z.string().min(1),
  url: z.string().min(1),
});
export type FirmwareUpdate = z.infer<typeof FirmwareUpdate>;

/** One component's firmware as the backend reports it (HostFirmwareComponents status.components). */
export const FirmwareComponentStatus = z.object({
  component: z.string(),
  initialVersion: z.string(),
  currentVersion: z.string().optional(),
  lastVersionFlashed: z.string().optional(),
  updatedAt: z.string().optional(),
});
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
