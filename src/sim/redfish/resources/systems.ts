import { BOOT_ENABLED, BOOT_MODES, BOOT_TARGETS, oneOf } from '../model/boot.ts';
import type { BootOverride } from '../model/boot.ts';
import { isResetType, RESET_TYPES } from '../model/power.ts';
import { INDICATOR_LEDS } from '../model/state.ts';
import type { IndicatorLed } from '../model/state.ts';
import type { SimSystem } from '../model/system.ts';
import { onlyParameters, propertyTypeError, stringParameter, valueNotInList } from '../http/action.ts';
import { notPatchable, propertyValueError } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, ref, resetActionInfo, STATUS_OK } from '../http/odata.ts';

export function systemBody(s: SimSystem): object {
  const base = s.info.systemPath;
  const { state, hardware: hw } = s;
  return {
    ...odata(base, '#ComputerSystem.v1_13_0.ComputerSystem'),
    Id: s.id,
    Name: `Simulated server ${s.id}`,
    UUID: hw.uuid,
    Manufacturer: s.model.manufacturer,
    Model: s.model.model,
    SKU: s.model.sku,
    SerialNumber: hw.serial,
    SystemType: 'Physical',
    PowerState: state.on ? 'On' : 'Off',
    IndicatorLED: state.indicatorLed,
    BiosVersion: state.firmware.BIOS,
    Status: STATUS_OK,
    Boot: {
      BootSourceOverrideEnabled: state.boot.enabled,
      BootSourceOverrideTarget: state.boot.target,
      BootSourceOverrideMode: state.boot.mode,
      HttpBootUri: state.boot.httpBootUri,
      'BootSourceOverrideEnabled@Redfish.AllowableValues': BOOT_ENABLED,
      'BootSourceOverrideTarget@Redfish.AllowableValues': BOOT_TARGETS,
      'BootSourceOverrideMode@Redfish.AllowableValues': BOOT_MODES,
    },
    ProcessorSummary: { Count: hw.cpuCount, LogicalProcessorCount: hw.cpuCount * hw.coresPerCpu * 2, Model: s.model.cpuModel, Status: STATUS_OK },
    MemorySummary: { TotalSystemMemoryGiB: hw.memoryGiB, Status: STATUS_OK },
    Processors: ref(`${base}/Processors`),
    Memory: ref(`${base}/Memory`),
    EthernetInterfaces: ref(`${base}/EthernetInterfaces`),
    SimpleStorage: ref(`${base}/SimpleStorage`),
    Storage: ref(`${base}/Storage`),
    Bios: ref(`${base}/Bios`),
    SecureBoot: ref(`${base}/SecureBoot`),
    VirtualMedia: ref(`${base}/VirtualMedia`),
    Links: { Chassis: [ref(`/redfish/v1/Chassis/${s.id}`)], ManagedBy: [ref(`/redfish/v1/Managers/${s.id}`)] },
    Actions: {
      '#ComputerSystem.Reset': { target: `${base}/Actions/ComputerSystem.Reset`, 'ResetType@Redfish.AllowableValues': RESET_TYPES, '@Redfish.ActionInfo': `${base}/ResetActionInfo` },
    },
  };
}

function httpBootUri(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value === 'string' && /^https?:\/\/\S+$/.test(value)) return value;
  throw propertyValueError('PropertyValueFormatError', 'Boot/HttpBootUri', value);
}

const OVERRIDE_KEYS = ['BootSourceOverrideTarget', 'BootSourceOverrideEnabled', 'BootSourceOverrideMode'];

function bootPatch(raw: unknown): Partial<BootOverride> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw propertyTypeError('Boot', raw);
  const out: Partial<BootOverride> = {};
  for (const [key, value] of Object.entries(raw)) {
    // A number or boolean where a string goes is of the wrong type, not a string missing from the list.
    if (OVERRIDE_KEYS.includes(key) && typeof value !== 'string') throw propertyTypeError(`Boot/${key}`, value);
    if (key === 'BootSourceOverrideTarget' && oneOf(BOOT_TARGETS, value)) out.target = value;
    else if (key === 'BootSourceOverrideEnabled' && oneOf(BOOT_ENABLED, value)) out.enabled = value;
    else if (key === 'BootSourceOverrideMode' && oneOf(BOOT_MODES, value)) out.mode = value;
    // Newer sushy sends HttpBootUri with every UefiHttp override (null: the URI DHCP offers).
    else if (key === 'HttpBootUri') out.httpBootUri = httpBootUri(value);
    else if (OVERRIDE_KEYS.includes(key)) {
      throw propertyValueError('PropertyValueNotInList', `Boot/${key}`, value);
    } else throw notPatchable(`Boot/${key}`, {});
  }
  return out;
}

function patchSystem(ctx: Ctx) {
  const s = ctx.system();
  let boot: Partial<BootOverride> | undefined;
  let led: IndicatorLed | undefined;
  // Validate everything first: a PATCH with one bad property changes nothing.
  for (const [key, value] of Object.entries(ctx.body)) {
    if (key === 'Boot') boot = bootPatch(value);
    else if (key === 'IndicatorLED' && oneOf(INDICATOR_LEDS, value)) led = value;
    else if (key === 'IndicatorLED' && typeof value !== 'string') throw propertyTypeError(key, value);
    else if (key === 'IndicatorLED') throw propertyValueError('PropertyValueNotInList', key, value);
    else throw notPatchable(key, systemBody(s));
  }
  if (boot) s.setBootOverride(boot);
  if (led) s.state.indicatorLed = led;
  return { status: 200, body: systemBody(s) };
}

export const systemResources: Resource[] = [
  {
    pattern: '/redfish/v1/Systems',
    get: (ctx) => collection('/redfish/v1/Systems', '#ComputerSystemCollection.ComputerSystemCollection', 'Computer System Collection', ctx.principal.systemIds.map((id) => `/redfish/v1/Systems/${id}`)),
  },
  { pattern: '/redfish/v1/Systems/:sys', get: (ctx) => systemBody(ctx.system()), patch: patchSystem },
  { pattern: '/redfish/v1/Systems/:sys/ResetActionInfo', get: (ctx) => resetActionInfo(`${ctx.system().info.systemPath}/ResetActionInfo`, RESET_TYPES) },
  {
    pattern: '/redfish/v1/Systems/:sys/Actions/ComputerSystem.Reset',
    post: (ctx) => {
      onlyParameters('ComputerSystem.Reset', ctx.body, ['ResetType']);
      const type = stringParameter('ComputerSystem.Reset', ctx.body, 'ResetType');
      if (!isResetType(type)) throw valueNotInList('ComputerSystem.Reset', 'ResetType', type);
      ctx.system().reset(type);
      return { status: 204 };
    },
  },
];
