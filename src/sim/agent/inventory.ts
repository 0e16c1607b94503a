// The hardware inventory a ramdisk posts to Ironic's /v1/continue_inspection (API 1.84): the shape
// Ironic's DATA_VALIDATOR requires (interfaces with mac_address, at least one) plus what its
// default hooks read (validate-interfaces: a name per interface and boot.pxe_interface; architecture:
// cpu.architecture), as IPA's hardware manager reports them.
import type { BlockDevice } from './root-device.ts';

export interface InventoryHardware {
  readonly macs: readonly string[];
  readonly diskBytes: number;
  /** The install disk as the ramdisk lists it; default /dev/sda of diskBytes. */
  readonly disk?: BlockDevice;
  readonly cpus?: number;
  readonly memoryGiB?: number;
  readonly serial?: string;
  readonly bmcAddress?: string;
  /** What the BMC says of the same server, so that both inspections agree. */
  readonly manufacturer?: string;
  readonly productName?: string;
  readonly systemUuid?: string;
  readonly cpuModel?: string;
  readonly cpuMHz?: number;
}

export function agentInventory(h: InventoryHardware): Record<string, unknown> {
  const memBytes = (h.memoryGiB ?? 64) * 1024 ** 3;
  return {
    interfaces: h.macs.map((mac, i) => ({ name: `eth${i}`, mac_address: mac, ipv4_address: null, has_carrier: true })),
    cpu: { model_name: h.cpuModel ?? 'Simulated CPU', architecture: 'x86_64', count: h.cpus ?? 2, flags: [], ...(h.cpuMHz !== undefined ? { frequency: String(h.cpuMHz) } : {}) },
    memory: { total: memBytes, physical_mb: memBytes / 1024 ** 2 },
    disks: [h.disk ?? { name: '/dev/sda', size: h.diskBytes, rotational: false, model: 'Simulated disk' }],
    system_vendor: { manufacturer: h.manufacturer ?? 'metalfleet', product_name: h.productName ?? 'Simulated server', serial_number: h.serial ?? '', ...(h.systemUuid !== undefined ? { system_uuid: h.systemUuid } : {}) },
    // The MAC the machine booted from: with add_ports=pxe (the default) only its port is kept.
    boot: { current_boot_mode: 'uefi', pxe_interface: h.macs[0] ?? null },
    ...(h.bmcAddress !== undefined ? { bmc_address: h.bmcAddress } : {}),
  };
}
