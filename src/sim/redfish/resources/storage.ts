import { oneOf } from '../model/boot.ts';
import { maxVolumeBytes, RAID_TYPES, volumeProblem, volumeType } from '../model/storage.ts';
import type { Drive, Volume } from '../model/storage.ts';
import { propertyTypeError } from '../http/action.ts';
import { badRequest, notFound, propertyValueError } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, ref, STATUS_OK } from '../http/odata.ts';

// Storage/1: one RAID controller, its drives, and Volumes that POST creates and DELETE removes.
// Volumes take effect at once ("Immediate"), so sushy gets 201 + Location and Ironic's `redfish`
// raid interface needs no reboot.
const STORAGE = '/redfish/v1/Systems/:sys/Storage/1';
const base = (ctx: Ctx) => `${ctx.system().info.systemPath}/Storage/1`;
const APPLY_TIMES = ['Immediate'] as const;
const APPLY_TIME = '@Redfish.OperationApplyTime';

/** A create or delete asked for at a time the collection does not offer is refused, as a BMC does. */
function checkApplyTime(ctx: Ctx): void {
  const at = ctx.body[APPLY_TIME];
  if (at !== undefined && !(APPLY_TIMES as readonly unknown[]).includes(at)) {
    throw propertyValueError('PropertyValueNotInList', APPLY_TIME, at);
  }
}

function drive(ctx: Ctx): Drive {
  const d = ctx.system().state.drives.find((x) => x.id === ctx.params.id);
  if (!d) throw notFound(ctx.path);
  return d;
}

function volume(ctx: Ctx): Volume {
  const v = ctx.system().state.volumes.find((x) => x.id === ctx.params.id);
  if (!v) throw notFound(ctx.path);
  return v;
}

function volumeBody(ctx: Ctx, v: Volume): object {
  return {
    ...odata(`${base(ctx)}/Volumes/${v.id}`, '#Volume.v1_5_0.Volume'),
    Id: v.id, Name: v.name, RAIDType: v.raidType, VolumeType: volumeType(v.raidType), CapacityBytes: v.capacityBytes,
    BlockSizeBytes: 512, Encrypted: false, Status: STATUS_OK,
    Identifiers: [{ DurableNameFormat: 'UUID', DurableName: `${ctx.system().hardware.uuid.slice(0, 24)}${v.id.padStart(12, '0')}` }],
    Links: { Drives: v.driveIds.map((id) => ref(`${base(ctx)}/Drives/${id}`)) },
  };
}

/** Drives named in Links.Drives, or every drive when the request names none. */
function requestedDrives(ctx: Ctx): Drive[] {
  const all = ctx.system().state.drives;
  const links = ctx.body.Links as { Drives?: unknown } | undefined;
  if (links?.Drives === undefined) return all;
  if (!Array.isArray(links.Drives)) throw propertyTypeError('Links/Drives', links.Drives);
  return links.Drives.map((r: unknown) => {
    const id = typeof r === 'object' && r !== null ? (r as Record<string, unknown>)['@odata.id'] : undefined;
    const d = typeof id === 'string' ? all.find((x) => `${base(ctx)}/Drives/${x.id}` === id.replace(/\/$/, '')) : undefined;
    if (!d) throw propertyValueError('PropertyValueNotInList', 'Links/Drives', id);
    return d;
  });
}

function createVolume(ctx: Ctx) {
  const s = ctx.system();
  checkApplyTime(ctx);
  const raid = ctx.body.RAIDType;
  if (raid !== undefined && typeof raid !== 'string') throw propertyTypeError('RAIDType', raid);
  if (!oneOf(RAID_TYPES, raid)) throw propertyValueError('PropertyValueNotInList', 'RAIDType', raid);
  const cap = ctx.body.CapacityBytes;
  if (cap !== undefined && (typeof cap !== 'number' || !Number.isInteger(cap) || cap <= 0)) throw typeof cap === 'number' ? propertyValueError('PropertyValueOutOfRange', 'CapacityBytes', cap) : propertyTypeError('CapacityBytes', cap);
  const drives = requestedDrives(ctx);
  const problem = volumeProblem(raid, drives, cap, s.state.volumes);
  if (problem) throw badRequest('PropertyValueConflict', problem, 'CapacityBytes');
  const id = String(Math.max(0, ...s.state.volumes.map((v) => Number(v.id))) + 1);
  const name = typeof ctx.body.Name === 'string' ? ctx.body.Name : `Volume ${id}`;
  const v: Volume = { id, name, raidType: raid, capacityBytes: cap ?? maxVolumeBytes(raid, drives, s.state.volumes), driveIds: drives.map((d) => d.id) };
  s.state.volumes.push(v);
  return { status: 201, body: volumeBody(ctx, v), headers: { Location: `${base(ctx)}/Volumes/${id}` } };
}

export const storageResources: Resource[] = [
  {
    pattern: '/redfish/v1/Systems/:sys/Storage',
    get: (ctx) => collection(`${ctx.system().info.systemPath}/Storage`, '#StorageCollection.StorageCollection', 'Storage', [base(ctx)]),
  },
  {
    pattern: STORAGE,
    get: (ctx) => ({
      ...odata(base(ctx), '#Storage.v1_8_0.Storage'),
      Id: '1', Name: 'RAID Controller 1', Status: STATUS_OK,
      Drives: ctx.system().state.drives.map((d) => ref(`${base(ctx)}/Drives/${d.id}`)),
      Volumes: ref(`${base(ctx)}/Volumes`),
      StorageControllers: [{
        '@odata.id': `${base(ctx)}#/StorageControllers/0`, MemberId: '0', Name: 'Simulated RAID Controller', Status: STATUS_OK,
        SpeedGbps: 12, SupportedControllerProtocols: ['PCIe'], SupportedDeviceProtocols: ['SAS', 'SATA'], SupportedRAIDTypes: RAID_TYPES,
        Identifiers: [{ DurableNameFormat: 'NAA', DurableName: '5000000000000001' }],
      }],
    }),
  },
  {
    pattern: `${STORAGE}/Drives/:id`,
    get: (ctx) => {
      const d = drive(ctx);
      return { ...odata(`${base(ctx)}/Drives/${d.id}`, '#Drive.v1_9_0.Drive'), Id: d.id, Name: d.id, CapacityBytes: d.capacityBytes, MediaType: d.mediaType, Protocol: d.protocol, BlockSizeBytes: 512, Manufacturer: 'metalfleet', Model: `SIM-${d.mediaType}`, SerialNumber: `${ctx.system().hardware.serial}-${d.id}`, IndicatorLED: 'Off', Status: STATUS_OK };
    },
  },
  {
    pattern: `${STORAGE}/Volumes`,
    get: (ctx) => ({
      ...collection(`${base(ctx)}/Volumes`, '#VolumeCollection.VolumeCollection', 'Volumes', ctx.system().state.volumes.map((v) => `${base(ctx)}/Volumes/${v.id}`)),
      '@Redfish.OperationApplyTimeSupport': { '@odata.type': '#Settings.v1_3_0.OperationApplyTimeSupport', SupportedValues: APPLY_TIMES },
    }),
    post: createVolume,
  },
  {
    pattern: `${STORAGE}/Volumes/:id`,
    get: (ctx) => volumeBody(ctx, volume(ctx)),
    delete: (ctx) => {
      const v = volume(ctx);
      checkApplyTime(ctx);
      const s = ctx.system();
      s.state.volumes = s.state.volumes.filter((x) => x !== v);
      return { status: 204 };
    },
  },
];
