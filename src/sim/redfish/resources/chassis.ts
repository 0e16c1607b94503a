import type { Resource } from '../http/context.ts';
import { collection, odata, ref, STATUS_OK } from '../http/odata.ts';

export const chassisResources: Resource[] = [
  {
    pattern: '/redfish/v1/Chassis',
    get: (ctx) => collection('/redfish/v1/Chassis', '#ChassisCollection.ChassisCollection', 'Chassis Collection', ctx.principal.systemIds.map((id) => `/redfish/v1/Chassis/${id}`)),
  },
  {
    pattern: '/redfish/v1/Chassis/:sys',
    get: (ctx) => {
      const s = ctx.system();
      return {
        ...odata(`/redfish/v1/Chassis/${s.id}`, '#Chassis.v1_14_0.Chassis'),
        Id: s.id, Name: `Chassis of ${s.id}`, ChassisType: 'RackMount', Manufacturer: s.model.manufacturer, Model: s.model.model, SKU: s.model.sku, SerialNumber: s.hardware.serial,
        PowerState: s.state.on ? 'On' : 'Off', IndicatorLED: s.state.indicatorLed, Status: STATUS_OK,
        Links: { ComputerSystems: [ref(s.info.systemPath)], ManagedBy: [ref(`/redfish/v1/Managers/${s.id}`)] },
      };
    },
  },
];
