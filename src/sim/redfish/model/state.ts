import type { BiosState } from './bios.ts';
import type { BmcProfileName } from './bmc.ts';
import type { BootMode, BootOverride, BootTarget } from './boot.ts';
import type { FirmwareVersions } from './firmware.ts';
import type { SimModel } from './models.ts';
import type { Drive, Volume } from './storage.ts';

export type VirtualMediaSlot = 'Cd' | 'Floppy';

/** IndicatorLED values; a server has one identify LED, which its ComputerSystem and Chassis both show. */
export const INDICATOR_LEDS = ['Lit', 'Blinking', 'Off'] as const;
export type IndicatorLed = (typeof INDICATOR_LEDS)[number];

export interface VirtualMediaState {
  image: string | null;
  inserted: boolean;
  writeProtected: boolean;
}

export interface SecureBootState {
  enabled: boolean;
  mode: 'SetupMode' | 'UserMode' | 'AuditMode' | 'DeployedMode';
  /** Whether the current boot ran with secure boot: set at each boot. */
  currentBoot: 'Enabled' | 'Disabled';
}

/** Everything a system is; SimSystem guards it, tests read and alter it through its methods. */
export interface SystemState {
  on: boolean;
  boot: BootOverride;
  defaultBootTarget: BootTarget;
  bios: BiosState;
  secureBoot: SecureBootState;
  virtualMedia: Record<VirtualMediaSlot, VirtualMediaState>;
  /**
   * Whether each drive checks the TLS certificate of an https image server (VirtualMedia
   * VerifyCertificate): a setting of the drive, kept apart from the media it holds, which
   * EjectMedia leaves as it is.
   */
  virtualMediaVerifyCertificate: Record<VirtualMediaSlot, boolean>;
  drives: Drive[];
  volumes: Volume[];
  firmware: FirmwareVersions;
  indicatorLed: IndicatorLed;
  /** How many times it has booted: a test's cheap way to see a boot happen. */
  boots: number;
}

export interface Hardware {
  uuid: string;
  /** Fixes Manufacturer, Model and the BIOS attribute registry. */
  model: SimModel;
  /** The BMC firmware: which Base registry it cites, which InsertMedia quirks it has. */
  bmc: BmcProfileName;
  macs: string[];
  cpuCount: number;
  coresPerCpu: number;
  memoryGiB: number;
  serial: string;
}

export interface BootEvent {
  target: BootTarget;
  mode: BootMode;
  virtualMedia: { image: string | null; inserted: boolean };
}

export interface PowerEvent {
  on: boolean;
}
