// What a simulated server's install disk holds, as the agent left it: a test asks the disk, not
// the agent, whether an image was written (once, verified), which config drive came with it,
// whether a bootloader went on, and what cleaning erased.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ConfigDrive } from './config-drive.ts';
import type { BlockDevice } from './root-device.ts';

export type ImageType = 'whole-disk' | 'partition';

export interface WrittenImage {
  /** image_info.id (Ironic: the last segment of image_source). */
  readonly id: string;
  readonly url: string;
  readonly bytes: number;
  /** The checksum that was verified against the downloaded bytes. */
  readonly checksum: { readonly algorithm: string; readonly value: string };
  readonly diskFormat: string | null;
  readonly imageType: ImageType;
  readonly at: Date;
}

export interface Partition {
  readonly number: number;
  readonly label: 'root' | 'efi' | 'swap' | 'ephemeral' | 'config-2';
  readonly uuid: string;
  readonly device: string;
}

export interface Bootloader {
  readonly rootUuid: string | null;
  readonly efiSystemPartUuid: string | null;
  readonly prepBootPartUuid: string | null;
  readonly targetBootMode: string | null;
  readonly at: Date;
}

/** metadata: erase_devices_metadata; full: erase_devices; express: erase_devices_express. */
export type EraseKind = 'metadata' | 'full' | 'express';
export interface EraseRecord { readonly kind: EraseKind; readonly step: string; readonly at: Date }

export interface RaidVolume {
  readonly name: string;
  readonly raidLevel: string;
  readonly sizeGb: number | 'MAX';
  readonly controller: string;
  readonly isRootVolume: boolean;
}

export interface SimDiskOptions {
  /** The device the agent reports as its install device; default /dev/sda. */
  device?: string;
  sizeBytes?: number;
  /** What the ramdisk reads of the disk (its inventory, root device hints); default a "Simulated disk" SSD. */
  model?: string;
  vendor?: string;
  serial?: string;
  wwn?: string;
  rotational?: boolean;
  hctl?: string;
  /** /dev/disk/by-path/… */
  byPath?: string;
}

export class SimDisk {
  readonly device: string;
  readonly sizeBytes: number;
  readonly #describe: Omit<SimDiskOptions, 'device' | 'sizeBytes'>;
  #image: WrittenImage | null = null;
  #configDrive: ConfigDrive | null = null;
  #bootloader: Bootloader | null = null;
  #partitions: Partition[] = [];
  #diskId: string | null = null;
  readonly #writes: WrittenImage[] = [];
  readonly #erases: EraseRecord[] = [];
  #raid: RaidVolume[] = [];

  constructor(opts: SimDiskOptions = {}) {
    this.device = opts.device ?? '/dev/sda';
    this.sizeBytes = opts.sizeBytes ?? 100 * 1024 ** 3;
    const { device: _d, sizeBytes: _s, ...describe } = opts;
    this.#describe = describe;
  }

  /** The disk as IPA lists a block device (hardware.BlockDevice.serialize), size in bytes. */
  blockDevice(): BlockDevice {
    const d = this.#describe;
    return {
      name: this.device, size: this.sizeBytes, model: d.model ?? 'Simulated disk', rotational: d.rotational ?? false,
      ...(d.vendor !== undefined ? { vendor: d.vendor } : {}), ...(d.serial !== undefined ? { serial: d.serial } : {}),
      ...(d.wwn !== undefined ? { wwn: d.wwn } : {}), ...(d.hctl !== undefined ? { hctl: d.hctl } : {}),
      ...(d.byPath !== undefined ? { by_path: d.byPath } : {}),
    };
  }

  get image(): WrittenImage | null { return this.#image; }
  get configDrive(): ConfigDrive | null { return this.#configDrive; }
  get bootloader(): Bootloader | null { return this.#bootloader; }
  get partitions(): readonly Partition[] { return this.#partitions; }
  /** Every image write since the disk was made, erases included: "written exactly once" is writes.length === 1. */
  get writes(): readonly WrittenImage[] { return this.#writes; }
  get writeCount(): number { return this.#writes.length; }
  get erases(): readonly EraseRecord[] { return this.#erases; }
  get raidVolumes(): readonly RaidVolume[] { return this.#raid; }
  /** The MBR/GPT disk identifier IPA reports as "root uuid" for a whole-disk image. */
  get diskIdentifier(): string | null { return this.#diskId; }

  writeImage(image: Omit<WrittenImage, 'at'>, opts: { uefi: boolean; swapMb?: number; ephemeralMb?: number }): void {
    const written: WrittenImage = { ...image, at: new Date() };
    this.#image = written;
    this.#writes.push(written);
    this.#bootloader = null;
    this.#configDrive = null;
    this.#diskId = `0x${randomBytes(4).toString('hex')}`;
    const labels: Partition['label'][] = image.imageType === 'whole-disk'
      ? ['root']
      : [...(opts.uefi ? ['efi' as const] : []), ...(opts.swapMb ? ['swap' as const] : []), ...(opts.ephemeralMb ? ['ephemeral' as const] : []), 'root'];
    this.#partitions = labels.map((label, i) => ({ number: i + 1, label, uuid: randomUUID(), device: `${this.device}${i + 1}` }));
  }

  writeConfigDrive(drive: ConfigDrive): void {
    this.#configDrive = drive;
    const rest = this.#partitions.filter((p) => p.label !== 'config-2');
    const number = rest.length + 1;
    this.#partitions = [...rest, { number, label: 'config-2', uuid: randomUUID(), device: `${this.device}${number}` }];
  }

  installBootloader(b: Omit<Bootloader, 'at'>): void {
    this.#bootloader = { ...b, at: new Date() };
  }

  /** Any erase leaves nothing bootable: partition tables and signatures are gone either way. */
  erase(kind: EraseKind, step: string): void {
    this.#erases.push({ kind, step, at: new Date() });
    this.#image = null;
    this.#configDrive = null;
    this.#bootloader = null;
    this.#partitions = [];
    this.#diskId = null;
  }

  setRaid(volumes: readonly RaidVolume[]): void {
    this.#raid = [...volumes];
  }

  /** What standby.get_partition_uuids answers (IPA's keys, spaces included). */
  partitionUuids(): Record<string, unknown> {
    if (this.#image === null) return {};
    const byLabel = (l: Partition['label']) => this.#partitions.find((p) => p.label === l);
    if (this.#image.imageType === 'whole-disk') return { 'root uuid': this.#diskId };
    const out: Record<string, unknown> = {
      'root uuid': byLabel('root')?.uuid,
      partitions: Object.fromEntries(this.#partitions.map((p) => [p.label === 'config-2' ? 'configdrive' : p.label, p.device])),
    };
    const efi = byLabel('efi');
    if (efi) out['efi system partition uuid'] = efi.uuid;
    return out;
  }
}
