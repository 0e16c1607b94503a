import { imageFileName } from './image-url.ts';

// Firmware components a SimpleUpdate can replace. An update bumps the last number of the version,
// which is what a test (or Ironic's firmware interface) can see change.
export const FIRMWARE_COMPONENTS = ['BIOS', 'BMC', 'NIC'] as const;
export type FirmwareComponent = (typeof FIRMWARE_COMPONENTS)[number];
export type FirmwareVersions = Record<FirmwareComponent, string>;

export const DEFAULT_FIRMWARE: Readonly<FirmwareVersions> = { BIOS: '2.10.1', BMC: '5.00.00', NIC: '22.5.7' };

export function bumpVersion(version: string): string {
  const m = /^(.*?)(\d+)(\D*)$/.exec(version);
  if (!m) return `${version}.1`;
  const [, head = '', num = '0', tail = ''] = m;
  return `${head}${String(Number(num) + 1).padStart(num.length, '0')}${tail}`;
}

/** Which component an image is for when the request names no Targets: its file name says (not its host or query). */
export function componentOfImage(imageUri: string): FirmwareComponent {
  const name = (imageFileName(imageUri) ?? '').toLowerCase();
  if (name.includes('bmc') || name.includes('idrac') || name.includes('ilo')) return 'BMC';
  if (name.includes('nic')) return 'NIC';
  return 'BIOS';
}
