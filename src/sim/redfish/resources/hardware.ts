import type { SimSystem } from '../model/system.ts';
import { notFound } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, STATUS_OK } from '../http/odata.ts';

// The inventory Ironic's redfish inspect interface reads: CPUs, memory, NICs with their MACs, disks.
const SYS = '/redfish/v1/Systems/:sys';
const cpuIds = (s: SimSystem) => Array.from({ length: s.hardware.cpuCount }, (_, i) => `CPU${i + 1}`);
const dimmIds = (_s: SimSystem) => Array.from({ length: 4 }, (_, i) => `DIMM${i + 1}`);
const nicIds = (s: SimSystem) => s.hardware.macs.map((_, i) => `NIC${i + 1}`);

function member(ctx: Ctx, ids: (s: SimSystem) => string[]): string {
  const id = ctx.params.id ?? '';
  if (!ids(ctx.system()).includes(id)) throw notFound(ctx.path);
  return id;
}

export const hardwareResources: Resource[] = [
  {
    pattern: `${SYS}/Processors`,
    get: (ctx) => collection(`${ctx.system().info.systemPath}/Processors`, '#ProcessorCollection.ProcessorCollection', 'Processors', cpuIds(ctx.system()).map((id) => `${ctx.system().info.systemPath}/Processors/${id}`)),
  },
  {
    pattern: `${SYS}/Processors/:id`,
    get: (ctx) => {
      const id = member(ctx, cpuIds);
      const cores = ctx.system().hardware.coresPerCpu;
      return { ...odata(`${ctx.system().info.systemPath}/Processors/${id}`, '#Processor.v1_9_0.Processor'), Id: id, Name: id, Socket: id, ProcessorType: 'CPU', ProcessorArchitecture: 'x86', InstructionSet: 'x86-64', Manufacturer: 'Intel(R) Corporation', Model: ctx.system().model.cpuModel, MaxSpeedMHz: ctx.system().model.cpuMaxMHz, TotalCores: cores, TotalThreads: cores * 2, Status: STATUS_OK };
    },
  },
  {
    pattern: `${SYS}/Memory`,
    get: (ctx) => collection(`${ctx.system().info.systemPath}/Memory`, '#MemoryCollection.MemoryCollection', 'Memory', dimmIds(ctx.system()).map((id) => `${ctx.system().info.systemPath}/Memory/${id}`)),
  },
  {
    pattern: `${SYS}/Memory/:id`,
    get: (ctx) => {
      const id = member(ctx, dimmIds);
      const mib = (ctx.system().hardware.memoryGiB * 1024) / 4;
      return { ...odata(`${ctx.system().info.systemPath}/Memory/${id}`, '#Memory.v1_10_0.Memory'), Id: id, Name: id, MemoryDeviceType: 'DDR5', CapacityMiB: mib, OperatingSpeedMhz: 4800, Status: STATUS_OK };
    },
  },
  {
    pattern: `${SYS}/EthernetInterfaces`,
    get: (ctx) => collection(`${ctx.system().info.systemPath}/EthernetInterfaces`, '#EthernetInterfaceCollection.EthernetInterfaceCollection', 'Ethernet Interfaces', nicIds(ctx.system()).map((id) => `${ctx.system().info.systemPath}/EthernetInterfaces/${id}`)),
  },
  {
    pattern: `${SYS}/EthernetInterfaces/:id`,
    get: (ctx) => {
      const id = member(ctx, nicIds);
      const mac = ctx.system().hardware.macs[Number(id.slice(3)) - 1] ?? '';
      return { ...odata(`${ctx.system().info.systemPath}/EthernetInterfaces/${id}`, '#EthernetInterface.v1_6_0.EthernetInterface'), Id: id, Name: id, MACAddress: mac, PermanentMACAddress: mac, SpeedMbps: 25_000, LinkStatus: 'LinkUp', Status: STATUS_OK };
    },
  },
  {
    pattern: `${SYS}/SimpleStorage`,
    get: (ctx) => collection(`${ctx.system().info.systemPath}/SimpleStorage`, '#SimpleStorageCollection.SimpleStorageCollection', 'Simple Storage', [`${ctx.system().info.systemPath}/SimpleStorage/1`]),
  },
  {
    pattern: `${SYS}/SimpleStorage/:id`,
    get: (ctx) => {
      if (ctx.params.id !== '1') throw notFound(ctx.path);
      const devices = ctx.system().state.drives.map((d) => ({ Name: d.id, CapacityBytes: d.capacityBytes, Status: STATUS_OK }));
      return { ...odata(`${ctx.system().info.systemPath}/SimpleStorage/1`, '#SimpleStorage.v1_2_0.SimpleStorage'), Id: '1', Name: 'Simple Storage Controller', Devices: devices, Status: STATUS_OK };
    },
  },
];
