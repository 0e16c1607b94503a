// Boot override values as a Redfish ComputerSystem.Boot offers them.
export const BOOT_TARGETS = ['None', 'Pxe', 'Cd', 'Usb', 'Hdd', 'BiosSetup', 'Floppy', 'UefiHttp', 'UefiShell'] as const;
export type BootTarget = (typeof BOOT_TARGETS)[number];
export const BOOT_ENABLED = ['Once', 'Continuous', 'Disabled'] as const;
export type BootEnabled = (typeof BOOT_ENABLED)[number];
export const BOOT_MODES = ['UEFI', 'Legacy'] as const;
export type BootMode = (typeof BOOT_MODES)[number];

export interface BootOverride {
  target: BootTarget;
  enabled: BootEnabled;
  mode: BootMode;
  /** Boot.HttpBootUri: what a UefiHttp boot loads; null means the URI DHCP offers. */
  httpBootUri: string | null;
}

export function oneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** The device a boot uses: the override while enabled, else the system's own first device. */
export function bootDevice(override: BootOverride, fallback: BootTarget): BootTarget {
  return override.enabled !== 'Disabled' && override.target !== 'None' ? override.target : fallback;
}
