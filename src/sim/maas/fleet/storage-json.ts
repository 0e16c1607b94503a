import type { SimDisk } from './hardware.ts';
import { stableUuid } from './hardware.ts';
import { API_PREFIX } from './machine-json.ts';

// Block devices, partitions and filesystems of a machine as MAAS renders them
// (api/blockdevices.py, api/partitions.py; gomaasapi blockdevice.go, partition.go, filesystem.go).

// MAAS aligns partitions to 4 MiB and keeps the partition table's overhead out of the partition.
const ALIGN = 4 * 1024 * 1024;
// MBR holds disks up to 2 TiB; MAAS uses GPT beyond (and always on UEFI).
const MBR_LIMIT = 2 * 1024 ** 4;

export function rootPartitionSize(disk: SimDisk): number {
  return Math.floor((disk.sizeBytes - 2 * ALIGN) / ALIGN) * ALIGN;
}

function rootFilesystem(systemId: string, disk: SimDisk) {
  return { fstype: 'ext4', label: 'root', uuid: stableUuid(`fs/${systemId}/${disk.id}`), mount_point: '/', mount_options: null };
}

function partitionJson(systemId: string, disk: SimDisk, partitionId: number) {
  return {
    id: partitionId,
    uuid: stableUuid(`part/${systemId}/${partitionId}`),
    size: rootPartitionSize(disk),
    bootable: false,
    device_id: disk.id,
    type: 'partition',
    path: `/dev/disk/by-dname/${disk.name}-part1`,
    used_for: 'ext4 formatted filesystem mounted at /',
    filesystem: rootFilesystem(systemId, disk),
    tags: [] as string[],
    system_id: systemId,
    resource_uri: `${API_PREFIX}/nodes/${systemId}/blockdevices/${disk.id}/partition/${partitionId}`,
  };
}

/** A physical block device; the first disk carries the flat layout's root partition. */
export function blockDeviceJson(systemId: string, disk: SimDisk) {
  const partitions = disk.partitionId === undefined ? [] : [partitionJson(systemId, disk, disk.partitionId)];
  const used = partitions.length === 0 ? 0 : rootPartitionSize(disk) + ALIGN;
  const tableType = partitions.length === 0 ? null : disk.sizeBytes > MBR_LIMIT ? 'GPT' : 'MBR';
  return {
    id: disk.id,
    name: disk.name,
    uuid: null,
    model: disk.model,
    serial: disk.serial,
    id_path: `/dev/disk/by-id/wwn-0x${stableUuid(`wwn/${systemId}/${disk.id}`).replace(/-/g, '').slice(0, 16)}`,
    path: `/dev/disk/by-dname/${disk.name}`,
    type: 'physical',
    block_size: disk.blockSize,
    size: disk.sizeBytes,
    used_size: used,
    available_size: partitions.length === 0 ? disk.sizeBytes : 0,
    used_for: partitions.length === 0 ? 'Unused' : `${tableType} partitioned with 1 partition`,
    partition_table_type: tableType,
    filesystem: null,
    partitions,
    tags: [...disk.tags],
    storage_pool: null,
    firmware_version: '1.0',
    numa_node: 0,
    system_id: systemId,
    resource_uri: `${API_PREFIX}/nodes/${systemId}/blockdevices/${disk.id}/`,
  };
}
