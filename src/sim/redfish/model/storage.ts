// One RAID controller with its drives and the volumes made of them: what the `redfish` raid
// interface of Ironic creates and deletes through Storage/<id>/Volumes.
export const RAID_TYPES = ['RAID0', 'RAID1', 'RAID5', 'RAID6', 'RAID10'] as const;
export type RaidType = (typeof RAID_TYPES)[number];

export interface Drive {
  id: string;
  capacityBytes: number;
  mediaType: 'SSD' | 'HDD';
  protocol: 'SATA' | 'SAS' | 'NVMe';
}

export interface Volume {
  id: string;
  name: string;
  raidType: RaidType;
  capacityBytes: number;
  driveIds: string[];
}

const GB = 1_000_000_000;
export const DEFAULT_DRIVES: readonly Drive[] = [
  { id: 'Disk0', capacityBytes: 480 * GB, mediaType: 'SSD', protocol: 'SATA' },
  { id: 'Disk1', capacityBytes: 480 * GB, mediaType: 'SSD', protocol: 'SATA' },
  { id: 'Disk2', capacityBytes: 1_920 * GB, mediaType: 'HDD', protocol: 'SAS' },
  { id: 'Disk3', capacityBytes: 1_920 * GB, mediaType: 'HDD', protocol: 'SAS' },
];

const MIN_DRIVES: Record<RaidType, number> = { RAID0: 1, RAID1: 2, RAID5: 3, RAID6: 4, RAID10: 4 };

/** Usable bytes of `raid` over drives of these sizes (the smallest drive bounds every stripe). */
export function usableBytes(raid: RaidType, sizes: readonly number[]): number {
  const n = sizes.length;
  const min = Math.min(...sizes);
  switch (raid) {
    case 'RAID0': return sizes.reduce((a, b) => a + b, 0);
    case 'RAID1': return min;
    case 'RAID5': return min * (n - 1);
    case 'RAID6': return min * (n - 2);
    case 'RAID10': return (min * n) / 2;
  }
}

/** The bytes a volume takes of each of its drives: usableBytes the other way round. */
function perDriveBytes(v: Volume): number {
  const n = v.driveIds.length;
  switch (v.raidType) {
    case 'RAID0': return Math.ceil(v.capacityBytes / n);
    case 'RAID1': return v.capacityBytes;
    case 'RAID5': return Math.ceil(v.capacityBytes / (n - 1));
    case 'RAID6': return Math.ceil(v.capacityBytes / (n - 2));
    case 'RAID10': return Math.ceil((v.capacityBytes * 2) / n);
  }
}

/** What `drive` has left beside the volumes on it. */
export function freeBytes(drive: Drive, volumes: readonly Volume[]): number {
  const used = volumes.filter((v) => v.driveIds.includes(drive.id)).reduce((sum, v) => sum + perDriveBytes(v), 0);
  return Math.max(0, drive.capacityBytes - used);
}

/** The most a volume of `raid` over `drives` can hold beside the volumes already there. */
export function maxVolumeBytes(raid: RaidType, drives: readonly Drive[], volumes: readonly Volume[]): number {
  return usableBytes(raid, drives.map((d) => freeBytes(d, volumes)));
}

/**
 * Why a volume of `raid` over `drives` cannot be made beside `volumes`, or undefined. A controller
 * gives a new volume only what the volumes on its drives left (a full drive takes none).
 */
export function volumeProblem(raid: RaidType, drives: readonly Drive[], capacityBytes: number | undefined, volumes: readonly Volume[] = []): string | undefined {
  if (drives.length < MIN_DRIVES[raid]) return `${raid} needs at least ${MIN_DRIVES[raid]} drives, got ${drives.length}`;
  if ((raid === 'RAID1' || raid === 'RAID10') && drives.length % 2 !== 0) return `${raid} needs an even number of drives`;
  const full = drives.filter((d) => freeBytes(d, volumes) === 0).map((d) => d.id);
  if (full.length > 0) return `${full.join(', ')} ${full.length === 1 ? 'has' : 'have'} no free space: the volumes on ${full.length === 1 ? 'it' : 'them'} take all of it; delete one or choose other drives`;
  const max = maxVolumeBytes(raid, drives, volumes);
  if (capacityBytes !== undefined && capacityBytes > max) return `CapacityBytes ${capacityBytes} exceeds the ${max} bytes ${raid} offers over the free space of ${drives.map((d) => d.id).join(', ')}`;
  return undefined;
}

export function volumeType(raid: RaidType): string {
  return raid === 'RAID0' ? 'NonRedundant' : raid === 'RAID1' ? 'Mirrored' : raid === 'RAID10' ? 'SpannedMirrors' : 'StripedWithParity';
}
