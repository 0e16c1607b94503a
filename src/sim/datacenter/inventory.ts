import { agentInventory, SimDisk } from '../agent/index.ts';
import type { BlockDevice } from '../agent/index.ts';
import type { SimSystem } from '../redfish/index.ts';

// What the ramdisk reports of the server it runs on, from the same hardware the BMC describes, so
// that an agent inspection and a Redfish inspection of one server agree: vendor, model, serial and
// UUID as ComputerSystem has them, logical CPUs (threads) as LogicalProcessorCount, the CPU model,
// memory and every NIC's MAC. The disk is the one the agent writes images to (installDisk).
export function serverInventory(system: SimSystem, diskBytes: number, disk?: BlockDevice): Record<string, unknown> {
  const hw = system.hardware;
  return agentInventory({
    macs: system.info.macs,
    diskBytes,
    ...(disk !== undefined ? { disk } : {}),
    cpus: hw.cpuCount * hw.coresPerCpu * 2,
    memoryGiB: hw.memoryGiB,
    serial: hw.serial,
    manufacturer: system.model.manufacturer,
    productName: system.model.model,
    systemUuid: hw.uuid,
    cpuModel: system.model.cpuModel,
    cpuMHz: system.model.cpuMaxMHz,
  });
}

// IPA without root device hints installs to the smallest disk of at least 4 GiB; Ironic's redfish
// inspection reports the same drive's size (local_gb). The simulated server's one writable disk is
// that drive, described as the BMC's Drive resource describes it (maker, model, serial, medium),
// so root device hints that name it match, and ones that name no drive of the server do not.
const MIN_ROOT_BYTES = 4 * 2 ** 30;

export function installDisk(system: SimSystem): SimDisk {
  const drives = system.state.drives.map((d, i) => ({ d, i })).filter(({ d }) => d.capacityBytes >= MIN_ROOT_BYTES);
  const pick = drives.sort((a, b) => a.d.capacityBytes - b.d.capacityBytes || a.i - b.i)[0];
  if (pick === undefined) return new SimDisk();
  const { d, i } = pick;
  return new SimDisk({
    device: `/dev/sd${String.fromCharCode(97 + i)}`,
    sizeBytes: d.capacityBytes,
    model: `SIM-${d.mediaType}`,
    vendor: 'metalfleet',
    serial: `${system.hardware.serial}-${d.id}`,
    rotational: d.mediaType === 'HDD',
  });
}
