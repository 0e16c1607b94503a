import { agentInventory } from '../agent/index.ts';
import type { SimSystem } from '../redfish/index.ts';

// What the ramdisk reports of the server it runs on, from the same hardware the BMC describes, so
// that an agent inspection and a Redfish inspection of one server agree: vendor, model, serial and
// UUID as ComputerSystem has them, logical CPUs (threads) as LogicalProcessorCount, the CPU model,
// memory and every NIC's MAC. The disk is the one the agent writes images to.
export function serverInventory(system: SimSystem, diskBytes: number): Record<string, unknown> {
  const hw = system.hardware;
  return agentInventory({
    macs: system.info.macs,
    diskBytes,
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
