// The inventory the simulated ramdisk posts and what the simulated BMC serves describe one server:
// an agent inspection (Ironic >= 22.1, or ironic-inspector) and a Redfish inspection agree.
import test from 'ava';
import { installDisk, serverInventory } from '../../src/sim/datacenter/index.ts';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function get(url: string, info: SimSystemInfo, path: string): Promise<Record<string, unknown>> {
  return (await (await fetch(url + path, { headers: { authorization: basic(info) } })).json()) as Record<string, unknown>;
}

for (const model of ['SIM-1', 'SIM-2'] as const) {
  test(`datacenter inventory - the agent's inventory matches the BMC's system, processors, memory and NICs (${model})`, async (t) => {
    const sim = await startRedfishSim({ systems: [{ model, cpuCount: 2, coresPerCpu: 24, memoryGiB: 192 }] });
    t.teardown(() => sim.stop());
    const info = sim.systems[0] as SimSystemInfo;
    const inv = serverInventory(sim.system(info.id), 10 * 2 ** 30) as {
      system_vendor: Record<string, string>; cpu: { count: number; model_name: string; frequency: string }; memory: { physical_mb: number }; interfaces: { mac_address: string }[];
    };
    const sys = await get(sim.url, info, info.systemPath);
    t.deepEqual(inv.system_vendor, { manufacturer: sys.Manufacturer, product_name: sys.Model, serial_number: sys.SerialNumber, system_uuid: sys.UUID });
    t.is(inv.cpu.count, (sys.ProcessorSummary as { LogicalProcessorCount: number }).LogicalProcessorCount);
    t.is(inv.memory.physical_mb, (sys.MemorySummary as { TotalSystemMemoryGiB: number }).TotalSystemMemoryGiB * 1024);
    const cpu = await get(sim.url, info, `${info.systemPath}/Processors/CPU1`);
    t.is(inv.cpu.model_name, String(cpu.Model));
    t.is(Number(inv.cpu.frequency), Number(cpu.MaxSpeedMHz));
    const nics = await Promise.all(info.macs.map((_, i) => get(sim.url, info, `${info.systemPath}/EthernetInterfaces/NIC${i + 1}`)));
    t.deepEqual(inv.interfaces.map((i) => i.mac_address), nics.map((n) => n.MACAddress));
    const bios = await get(sim.url, info, `${info.systemPath}/Bios`);
    t.is((bios.Attributes as Record<string, unknown>).SerialNumber, sys.SerialNumber, 'the BIOS knows the same serial number');
  });
}

test('datacenter inventory - the disk the agent writes to is the BMC\'s smallest drive, as IPA picks it and Redfish inspection sizes it, described as the BMC describes that drive', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const info = sim.systems[0] as SimSystemInfo;
  const system = sim.system(info.id);
  const drives = system.state.drives;
  const smallest = [...drives].sort((a, b) => a.capacityBytes - b.capacityBytes)[0];
  if (smallest === undefined) throw new Error('the simulated system has no drives');
  const drive = await get(sim.url, info, `${info.systemPath}/Storage/1/Drives/${smallest.id}`) as { CapacityBytes: number; Model: string; Manufacturer: string; SerialNumber: string; MediaType: string };
  const disk = installDisk(system);
  t.is(disk.sizeBytes, drive.CapacityBytes);
  t.like(disk.blockDevice(), { name: `/dev/sd${String.fromCharCode(97 + drives.indexOf(smallest))}`, size: drive.CapacityBytes, model: drive.Model, vendor: drive.Manufacturer, serial: drive.SerialNumber, rotational: drive.MediaType === 'HDD' });
  const inv = serverInventory(system, disk.sizeBytes, disk.blockDevice()) as { disks: unknown[] };
  t.deepEqual(inv.disks, [disk.blockDevice()]);
});
