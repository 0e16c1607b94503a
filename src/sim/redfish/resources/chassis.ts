import { oneOf } from '../model/boot.ts';
import { INDICATOR_LEDS } from '../model/state.ts';
import type { SimSystem } from '../model/system.ts';
import { propertyTypeError } from '../http/action.ts';
import { notFound, notPatchable, propertyValueError } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, ref, STATUS_OK } from '../http/odata.ts';

// Chassis/<id> holds Systems/<id>. Its NetworkAdapters carry the NIC firmware version
// (Controllers[].FirmwarePackageVersion), where newer Ironic's redfish firmware interface reads a
// `nic:<serial>` component; one adapter has a port per MAC of the system. Ironic's indicator API
// names a chassis LED by Chassis.UUID and sets it by PATCHing IndicatorLED: the one identify LED
// of the server, the same the ComputerSystem shows.
const CHASSIS = '/redfish/v1/Chassis/:sys';
const ADAPTER = 'NIC.Slot.1';
const chassisPath = (s: SimSystem) => `/redfish/v1/Chassis/${s.id}`;

function chassisBody(s: SimSystem): object {
  return {
    ...odata(chassisPath(s), '#Chassis.v1_14_0.Chassis'),
    Id: s.id, Name: `Chassis of ${s.id}`, UUID: s.hardware.uuid, ChassisType: 'RackMount', Manufacturer: s.model.manufacturer, Model: s.model.model, SKU: s.model.sku, SerialNumber: s.hardware.serial,
    PowerState: s.state.on ? 'On' : 'Off', IndicatorLED: s.state.indicatorLed, Status: STATUS_OK,
    NetworkAdapters: ref(`${chassisPath(s)}/NetworkAdapters`),
    Links: { ComputerSystems: [ref(s.info.systemPath)], ManagedBy: [ref(`/redfish/v1/Managers/${s.id}`)] },
  };
}

function patchChassis(ctx: Ctx) {
  const s = ctx.system();
  // Validate before changing anything, as a PATCH of the ComputerSystem does.
  for (const [key, value] of Object.entries(ctx.body)) {
    if (key !== 'IndicatorLED') throw notPatchable(key, chassisBody(s));
    if (typeof value !== 'string') throw propertyTypeError(key, value);
    if (!oneOf(INDICATOR_LEDS, value)) throw propertyValueError('PropertyValueNotInList', key, value);
  }
  const led = ctx.body.IndicatorLED;
  if (oneOf(INDICATOR_LEDS, led)) s.state.indicatorLed = led;
  return { status: 204 };
}

function adapterBody(ctx: Ctx): object {
  const s = ctx.system();
  if (ctx.params.id !== ADAPTER) throw notFound(ctx.path);
  const path = `${chassisPath(s)}/NetworkAdapters/${ADAPTER}`;
  return {
    ...odata(path, '#NetworkAdapter.v1_5_0.NetworkAdapter'),
    Id: ADAPTER, Name: 'Simulated 25GbE Adapter', Manufacturer: s.model.manufacturer, Model: 'SIM-25G-2P', PartNumber: 'SIM25G2P',
    SerialNumber: `${s.hardware.serial}-${ADAPTER}`, Status: STATUS_OK,
    Controllers: [{ FirmwarePackageVersion: s.state.firmware.NIC, ControllerCapabilities: { NetworkPortCount: s.hardware.macs.length } }],
  };
}

export const chassisResources: Resource[] = [
  {
    pattern: '/redfish/v1/Chassis',
    get: (ctx) => collection('/redfish/v1/Chassis', '#ChassisCollection.ChassisCollection', 'Chassis Collection', ctx.principal.systemIds.map((id) => `/redfish/v1/Chassis/${id}`)),
  },
  {
    pattern: CHASSIS,
    get: (ctx) => chassisBody(ctx.system()),
    patch: patchChassis,
  },
  {
    pattern: `${CHASSIS}/NetworkAdapters`,
    get: (ctx) => collection(`${chassisPath(ctx.system())}/NetworkAdapters`, '#NetworkAdapterCollection.NetworkAdapterCollection', 'Network Adapters', [`${chassisPath(ctx.system())}/NetworkAdapters/${ADAPTER}`]),
  },
  { pattern: `${CHASSIS}/NetworkAdapters/:id`, get: adapterBody },
];
