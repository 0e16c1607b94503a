import { oneOf } from '../model/boot.ts';
import { imageFileName } from '../model/image-url.ts';
import type { VirtualMediaSlot } from '../model/state.ts';
import { onlyParameters, parameterFormatError, parameterTypeError, propertyTypeError, stringParameter, valueNotInList } from '../http/action.ts';
import { badRequest, notFound, notPatchable, RedfishError, registryError } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, ref, resetActionInfo, STATUS_OK } from '../http/odata.ts';

// Managers/<id> is the BMC of Systems/<id>; its VirtualMedia are what redfish-virtual-media boots.
// Newer BMCs (iDRAC 6+, sushy-tools) list the same drives under the ComputerSystem too, where newer
// sushy (System.virtual_media) and Ironic look first: both paths lead to the one pair of drives.
const MEDIA_TYPES: Record<VirtualMediaSlot, string[]> = { Cd: ['CD', 'DVD'], Floppy: ['Floppy', 'USBStick'] };
const MANAGER_RESETS = ['GracefulRestart', 'ForceRestart'] as const;
// The parameters VirtualMedia.InsertMedia defines (sushy sends UserName, Password and TransferMethod when asked).
const INSERT_PARAMETERS = ['Image', 'Inserted', 'WriteProtected', 'TransferProtocolType', 'TransferMethod', 'MediaType', 'UserName', 'Password'];
const mgr = (ctx: Ctx) => `/redfish/v1/Managers/${ctx.system().id}`;
/** The VirtualMedia collection the request came through: the manager's or the system's. */
const mediaBase = (ctx: Ctx) => (ctx.path.startsWith('/redfish/v1/Systems/') ? `${ctx.system().info.systemPath}/VirtualMedia` : `${mgr(ctx)}/VirtualMedia`);

function slot(ctx: Ctx): VirtualMediaSlot {
  const id = ctx.params.id;
  if (id !== 'Cd' && id !== 'Floppy') throw notFound(ctx.path);
  return id;
}

function mediaBody(ctx: Ctx): object {
  const id = slot(ctx);
  const m = ctx.system().state.virtualMedia[id];
  const path = `${mediaBase(ctx)}/${id}`;
  return {
    ...odata(path, '#VirtualMedia.v1_4_0.VirtualMedia'),
    Id: id, Name: `Virtual ${id}`, MediaTypes: MEDIA_TYPES[id],
    Image: m.image, ImageName: m.image === null ? null : imageFileName(m.image),
    Inserted: m.inserted, WriteProtected: m.writeProtected, ConnectedVia: m.inserted ? 'URI' : 'NotConnected',
    VerifyCertificate: ctx.system().state.virtualMediaVerifyCertificate[id],
    TransferMethod: 'Stream', Status: STATUS_OK,
    Actions: {
      '#VirtualMedia.InsertMedia': { target: `${path}/Actions/VirtualMedia.InsertMedia` },
      '#VirtualMedia.EjectMedia': { target: `${path}/Actions/VirtualMedia.EjectMedia` },
    },
  };
}

/**
 * TransferProtocolType, the protocol of the image URL: optional (a current BMC reads the protocol
 * from the URL), required by BMCs whose profile says so (ActionParameterMissing naming it, the
 * refusal on which sushy retries with it). Given, it must agree with the URL.
 */
function transferProtocol(ctx: Ctx, image: string): void {
  const given = ctx.body.TransferProtocolType;
  if (given === undefined) {
    if (!ctx.system().bmc.insertMediaNeedsTransferProtocol) return;
    throw registryError(400, 'ActionParameterMissing', ['VirtualMedia.InsertMedia', 'TransferProtocolType'], ['#/TransferProtocolType']);
  }
  const scheme = image.slice(0, image.indexOf(':')).toUpperCase();
  if (given !== scheme) throw parameterFormatError('VirtualMedia.InsertMedia', 'TransferProtocolType', given);
}

function insert(ctx: Ctx) {
  onlyParameters('VirtualMedia.InsertMedia', ctx.body, INSERT_PARAMETERS);
  const image = stringParameter('VirtualMedia.InsertMedia', ctx.body, 'Image');
  if (!/^(https?|nfs|cifs):\/\/\S+$/.test(image)) {
    throw badRequest('ActionParameterValueFormatError', 'Image must be an http, https, nfs or cifs URL of the image.', 'Image');
  }
  const inserted = ctx.body.Inserted ?? true;
  const writeProtected = ctx.body.WriteProtected ?? true;
  if (typeof inserted !== 'boolean') throw parameterTypeError('VirtualMedia.InsertMedia', 'Inserted', inserted);
  if (typeof writeProtected !== 'boolean') throw parameterTypeError('VirtualMedia.InsertMedia', 'WriteProtected', writeProtected);
  const id = slot(ctx);
  transferProtocol(ctx, image);
  // A drive holds one image: real BMCs refuse a second InsertMedia until EjectMedia rather than swap
  // it (iDRAC: 500 with IDRAC.x.VRM0012 "image server is already connected"; Lenovo XCC: 400
  // Conflict). The Base registry has no message of its own for it; 409 ResourceInUse is the nearest
  // standard answer. sushy-tools alone swaps silently. Ironic ejects first and skips an occupied drive.
  const current = ctx.system().state.virtualMedia[id].image;
  if (current !== null) {
    // Named by its file only: an image URL may carry credentials or a signed query.
    const name = imageFileName(current);
    throw new RedfishError(409, 'ResourceInUse', `The virtual media ${id} already holds ${name === null ? 'an image' : `the image ${name}`}; eject it (VirtualMedia.EjectMedia) before inserting another.`, 'Eject the media with VirtualMedia.EjectMedia, then insert the new image.', ['#/Image']);
  }
  ctx.system().setVirtualMedia(id, { image, inserted, writeProtected });
  return { status: 204 };
}

// What a PATCH of a VirtualMedia may change: its drive settings (sushy's set_verify_certificate
// sends VerifyCertificate). Media goes in and out by InsertMedia and EjectMedia, as on bmcweb,
// so Image, Inserted and the other insert parameters are refused as not writable here.
const MEDIA_PATCHABLE = ['VerifyCertificate', 'WriteProtected'] as const;

function patchMedia(ctx: Ctx) {
  const id = slot(ctx);
  const s = ctx.system();
  // Validate everything first: a PATCH with one bad property changes nothing.
  for (const [key, value] of Object.entries(ctx.body)) {
    if (!(MEDIA_PATCHABLE as readonly string[]).includes(key)) throw notPatchable(key, mediaBody(ctx));
    if (typeof value !== 'boolean') throw propertyTypeError(key, value);
  }
  const { VerifyCertificate: verify, WriteProtected: writeProtected } = ctx.body;
  if (typeof verify === 'boolean') s.state.virtualMediaVerifyCertificate[id] = verify;
  if (typeof writeProtected === 'boolean') s.setVirtualMedia(id, { writeProtected });
  return { status: 200, body: mediaBody(ctx) };
}

export const managerResources: Resource[] = [
  {
    pattern: '/redfish/v1/Managers',
    get: (ctx) => collection('/redfish/v1/Managers', '#ManagerCollection.ManagerCollection', 'Manager Collection', ctx.principal.systemIds.map((id) => `/redfish/v1/Managers/${id}`)),
  },
  {
    pattern: '/redfish/v1/Managers/:sys',
    get: (ctx) => {
      const s = ctx.system();
      return {
        ...odata(mgr(ctx), '#Manager.v1_10_0.Manager'),
        Id: s.id, Name: `BMC of ${s.id}`, ManagerType: 'BMC', FirmwareVersion: s.state.firmware.BMC, Model: 'SIM-BMC', UUID: s.hardware.uuid, PowerState: 'On', Status: STATUS_OK,
        VirtualMedia: ref(`${mgr(ctx)}/VirtualMedia`),
        Links: { ManagerForServers: [ref(s.info.systemPath)], ManagerForChassis: [ref(`/redfish/v1/Chassis/${s.id}`)] },
        Actions: { '#Manager.Reset': { target: `${mgr(ctx)}/Actions/Manager.Reset`, 'ResetType@Redfish.AllowableValues': MANAGER_RESETS, '@Redfish.ActionInfo': `${mgr(ctx)}/ResetActionInfo` } },
      };
    },
  },
  { pattern: '/redfish/v1/Managers/:sys/ResetActionInfo', get: (ctx) => resetActionInfo(`${mgr(ctx)}/ResetActionInfo`, MANAGER_RESETS) },
  {
    pattern: '/redfish/v1/Managers/:sys/Actions/Manager.Reset',
    // A BMC reset leaves the host alone: accepted and done, once its ResetType is one the action lists.
    post: (ctx) => {
      onlyParameters('Manager.Reset', ctx.body, ['ResetType']);
      const type = stringParameter('Manager.Reset', ctx.body, 'ResetType');
      if (!oneOf(MANAGER_RESETS, type)) throw valueNotInList('Manager.Reset', 'ResetType', type);
      return { status: 204 };
    },
  },
  ...['/redfish/v1/Managers/:sys/VirtualMedia', '/redfish/v1/Systems/:sys/VirtualMedia'].flatMap((base): Resource[] => [
    {
      pattern: base,
      get: (ctx) => collection(mediaBase(ctx), '#VirtualMediaCollection.VirtualMediaCollection', 'Virtual Media', ['Cd', 'Floppy'].map((id) => `${mediaBase(ctx)}/${id}`)),
    },
    { pattern: `${base}/:id`, get: mediaBody, patch: patchMedia },
    { pattern: `${base}/:id/Actions/VirtualMedia.InsertMedia`, post: insert },
    {
      pattern: `${base}/:id/Actions/VirtualMedia.EjectMedia`,
      post: (ctx) => {
        onlyParameters('VirtualMedia.EjectMedia', ctx.body, []);
        ctx.system().setVirtualMedia(slot(ctx), { image: null, inserted: false });
        return { status: 204 };
      },
    },
  ]),
];
