import { createHash } from 'node:crypto';

// What commissioning finds in a machine: disks, NICs, firmware facts. A seed may describe them;
// otherwise a machine gets one 480 GB disk and one NIC, as the simulator always had.

export interface SimDisk {
  readonly id: number;
  readonly name: string;
  readonly sizeBytes: number;
  readonly model: string;
  readonly serial: string;
  readonly blockSize: number;
  /** MAAS tags disks 'ssd' or 'rotary' at commissioning; a seed may add more. */
  readonly tags: readonly string[];
  /** The partition id when the disk carries the root filesystem (the boot disk), else undefined. */
  readonly partitionId: number | undefined;
}

export interface SimNic {
  readonly id: number;
  readonly name: string;
  readonly mac: string;
  /** Mbit/s. */
  readonly linkSpeed: number;
  readonly tags: readonly string[];
  /** The subnet (CIDR) this NIC is cabled to, when the seed names one: it gets an address there when deployed. */
  readonly subnet?: string | undefined;
}

export interface DiskSpec {
  readonly name?: string | undefined;
  readonly sizeGb: number;
  readonly model?: string | undefined;
  readonly serial?: string | undefined;
  readonly tags?: readonly string[] | undefined;
}

export interface NicSpec {
  readonly name?: string | undefined;
  readonly mac?: string | undefined;
  readonly linkSpeedMbps?: number | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly subnet?: string | undefined;
}

/** Ids MAAS would hand out: one counter per table, shared by every machine. */
export class IdCounters {
  private disk = 1;
  private partition = 1;
  private nic = 1;
  nextDisk(): number {
    return this.disk++;
  }
  nextPartition(): number {
    return this.partition++;
  }
  nextNic(): number {
    return this.nic++;
  }
}

// A 480 GB disk, so `storage` stays 480000 MB for machines seeded without disks.
export const DEFAULT_DISK_GB = 480;

export const HARDWARE_INFO_KEYS = [
  'system_vendor', 'system_product', 'system_family', 'system_version', 'system_sku', 'system_serial', 'cpu_model',
  'mainboard_vendor', 'mainboard_product', 'mainboard_serial', 'mainboard_version', 'mainboard_firmware_vendor',
  'mainboard_firmware_date', 'mainboard_firmware_version', 'chassis_vendor', 'chassis_type', 'chassis_serial', 'chassis_version',
] as const;

function digestHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A stable RFC 4122-looking UUID from a seed text. */
export function stableUuid(text: string): string {
  const h = digestHex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function macFor(systemId: string, index = 0): string {
  const digest = createHash('sha256').update(index === 0 ? `mac/${systemId}` : `mac/${systemId}/${index}`).digest();
  // 52:54:00 is the locally administered prefix QEMU uses; fine for a simulator.
  return ['52', '54', '00', ...[...digest.subarray(0, 3)].map((b) => b.toString(16).padStart(2, '0'))].join(':');
}

export function buildDisks(systemId: string, specs: readonly DiskSpec[] | undefined, machineTags: readonly string[], ids: IdCounters): SimDisk[] {
  const given = specs && specs.length > 0 ? specs : [{ sizeGb: DEFAULT_DISK_GB }];
  return given.map((spec, i) => {
    const kind = machineTags.includes('ssd') ? 'ssd' : 'rotary';
    return {
      id: ids.nextDisk(),
      name: spec.name ?? `sd${String.fromCharCode(97 + (i % 26))}`,
      sizeBytes: Math.round(spec.sizeGb * 1e9),
      model: spec.model ?? (kind === 'ssd' ? 'SIMSSD 960' : 'SIMHDD 7200'),
      serial: spec.serial ?? `SIM${digestHex(`${systemId}/disk/${i}`).slice(0, 10).toUpperCase()}`,
      blockSize: 512,
      tags: spec.tags ? [...spec.tags] : [kind],
      // The flat layout MAAS applies after commissioning puts '/' on a partition of the first disk.
      partitionId: i === 0 ? ids.nextPartition() : undefined,
    };
  });
}

export function buildNics(systemId: string, specs: readonly NicSpec[] | undefined, ids: IdCounters): SimNic[] {
  const given = specs && specs.length > 0 ? specs : [{}];
  return given.map((spec, i) => ({
    id: ids.nextNic(),
    name: spec.name ?? `eth${i}`,
    mac: (spec.mac ?? macFor(systemId, i)).toLowerCase(),
    linkSpeed: spec.linkSpeedMbps ?? 1000,
    tags: [...(spec.tags ?? [])],
    ...(spec.subnet !== undefined ? { subnet: spec.subnet } : {}),
  }));
}

/** hardware_info as MAAS renders it: every key present, 'Unknown' where commissioning found nothing. */
export function hardwareInfo(known: Readonly<Record<string, string>>, commissioned: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of HARDWARE_INFO_KEYS) out[key] = commissioned ? (known[key] ?? 'Unknown') : 'Unknown';
  return out;
}

/** What commissioning of a simulated machine reports, unless the seed says otherwise. */
export function defaultHardwareInfo(systemId: string, cpuCount: number): Record<string, string> {
  return {
    system_vendor: 'Simulated Systems',
    system_product: `SIM-${cpuCount >= 32 ? 'L' : cpuCount >= 8 ? 'M' : 'S'}`,
    system_serial: `SIM${digestHex(`serial/${systemId}`).slice(0, 8).toUpperCase()}`,
    cpu_model: 'Simulated CPU @ 2.40GHz',
    mainboard_vendor: 'Simulated Systems',
    chassis_type: 'Rack Mount Chassis',
  };
}
