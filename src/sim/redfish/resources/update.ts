import { bumpVersion, componentOfImage, FIRMWARE_COMPONENTS } from '../model/firmware.ts';
import type { FirmwareComponent } from '../model/firmware.ts';
import { imageFileName } from '../model/image-url.ts';
import type { SimTask } from '../model/tasks.ts';
import { onlyParameters, parameterTypeError, valueNotInList } from '../http/action.ts';
import { badRequest, notFound } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, ref, STATUS_OK } from '../http/odata.ts';

// UpdateService is shared by every system on the server, so its inventory shows the caller's
// systems only, and SimpleUpdate updates the caller's systems (or the Targets it names). An account
// that opens several systems (--password-file) reaches them all through this one UpdateService, as
// a multi-system BMC (a blade chassis manager) serves its blades: an untargeted image goes to each.
const INVENTORY = '/redfish/v1/UpdateService/FirmwareInventory';
const TASKS = '/redfish/v1/TaskService/Tasks';
const MONITORS = '/redfish/v1/TaskService/TaskMonitors';
// The protocols SimpleUpdate offers (its TransferProtocol@Redfish.AllowableValues); ImageURI's scheme is one of them.
const PROTOCOLS = ['HTTP', 'HTTPS'] as const;

interface Target { systemId: string; component: FirmwareComponent }

function parseInventoryId(id: string): Target | undefined {
  const m = /^(BIOS|BMC|NIC)-(.+)$/.exec(id);
  return m ? { component: m[1] as FirmwareComponent, systemId: m[2] ?? '' } : undefined;
}

function inventoryItem(ctx: Ctx): Target {
  const t = parseInventoryId(ctx.params.id ?? '');
  // Another system's firmware is on another BMC: unknown here.
  if (!t || !ctx.principal.systemIds.includes(t.systemId)) throw notFound(ctx.path);
  return t;
}

/**
 * What one Targets URI names, of the caller's systems: a FirmwareInventory item; a ComputerSystem
 * (sushy-tools takes it, newer Ironic sends its redfish_system_id) or a Manager (its BMC firmware);
 * or a collection of them, meaning each applicable member (DMTF UpdateService.SimpleUpdate).
 * Undefined when it names nothing of the caller's.
 */
function targetsOf(uri: string, own: readonly string[], component: FirmwareComponent): Target[] | undefined {
  const path = uri.replace(/\/+$/, '');
  const all = (c: FirmwareComponent) => own.map((systemId) => ({ systemId, component: c }));
  // An image fits one component: in a collection of systems or of inventory items, that one of each system.
  if (path === '/redfish/v1/Systems' || path === INVENTORY) return all(component);
  if (path === '/redfish/v1/Managers') return all('BMC');
  const system = /^\/redfish\/v1\/Systems\/([^/]+)$/.exec(path)?.[1];
  if (system !== undefined) return own.includes(system) ? [{ systemId: system, component }] : undefined;
  const manager = /^\/redfish\/v1\/Managers\/([^/]+)$/.exec(path)?.[1];
  if (manager !== undefined) return own.includes(manager) ? [{ systemId: manager, component: 'BMC' }] : undefined;
  const t = path.startsWith(`${INVENTORY}/`) ? parseInventoryId(path.slice(INVENTORY.length + 1)) : undefined;
  return t && own.includes(t.systemId) ? [t] : undefined;
}

function targets(ctx: Ctx, image: string): Target[] {
  const raw = ctx.body.Targets;
  const own = ctx.principal.systemIds;
  const component = componentOfImage(image);
  // No Targets: "the service shall apply the software image to all applicable targets, as
  // determined by the service" (DMTF UpdateService.SimpleUpdate). The image's component on each
  // system this BMC account serves: one system for a BMC of one, all of them on a shared one.
  // Ironic 21.4 (sushy's simple_update(url)) never sends Targets.
  if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) return own.map((systemId) => ({ systemId, component }));
  if (!Array.isArray(raw)) throw parameterTypeError('UpdateService.SimpleUpdate', 'Targets', raw);
  const out = new Map<string, Target>();
  for (const uri of raw as unknown[]) {
    const found = typeof uri === 'string' ? targetsOf(uri, own, component) : undefined;
    if (found === undefined) throw valueNotInList('UpdateService.SimpleUpdate', 'Targets', uri);
    for (const t of found) out.set(`${t.component}-${t.systemId}`, t);
  }
  return [...out.values()];
}

export function taskBody(t: SimTask): object {
  return {
    ...odata(`${TASKS}/${t.id}`, '#Task.v1_4_3.Task'),
    Id: t.id, Name: t.name, TaskState: t.state, TaskStatus: t.status, PercentComplete: t.percent,
    StartTime: t.started, ...(t.ended === undefined ? {} : { EndTime: t.ended }),
    TaskMonitor: `${MONITORS}/${t.id}`, Messages: [],
  };
}

function simpleUpdate(ctx: Ctx) {
  // UpdateService v1_8_0's parameters: an unknown one is refused, not ignored.
  onlyParameters('UpdateService.SimpleUpdate', ctx.body, ['ImageURI', 'TransferProtocol', 'Targets', 'Username', 'Password']);
  const image = ctx.body.ImageURI;
  const protocol = ctx.body.TransferProtocol;
  if (protocol !== undefined && !(PROTOCOLS as readonly unknown[]).includes(protocol)) {
    throw valueNotInList('UpdateService.SimpleUpdate', 'TransferProtocol', protocol);
  }
  if (typeof image !== 'string' || !/^https?:\/\/\S+$/.test(image)) throw badRequest('ActionParameterValueFormatError', 'ImageURI must be the http or https URL of the firmware image.', 'ImageURI');
  const list = targets(ctx, image);
  const systemIds = [...new Set(list.map((t) => t.systemId))];
  const file = imageFileName(image);
  const task = ctx.world.tasks.start(file === null ? 'SimpleUpdate' : `SimpleUpdate ${file}`, systemIds, ctx.world.updateMs, () => {
    for (const t of list) {
      const s = ctx.world.systems.get(t.systemId);
      s?.setFirmware(t.component, bumpVersion(s.state.firmware[t.component]));
    }
  });
  // No body: sushy would take a Task's @odata.id as the monitor, and a Task GET is always 200.
  return { status: 202, headers: { Location: `${MONITORS}/${task.id}` } };
}

function ownTask(ctx: Ctx): SimTask {
  const t = ctx.world.tasks.get(ctx.params.id ?? '');
  if (!t || !t.systemIds.some((id) => ctx.principal.systemIds.includes(id))) throw notFound(ctx.path);
  return t;
}

export const updateResources: Resource[] = [
  {
    pattern: '/redfish/v1/UpdateService',
    get: () => ({
      ...odata('/redfish/v1/UpdateService', '#UpdateService.v1_8_0.UpdateService'),
      Id: 'UpdateService', Name: 'Update Service', ServiceEnabled: true, Status: STATUS_OK,
      FirmwareInventory: ref(INVENTORY),
      Actions: { '#UpdateService.SimpleUpdate': { target: '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate', 'TransferProtocol@Redfish.AllowableValues': PROTOCOLS } },
    }),
  },
  { pattern: '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate', post: simpleUpdate },
  {
    pattern: INVENTORY,
    get: (ctx) => collection(INVENTORY, '#SoftwareInventoryCollection.SoftwareInventoryCollection', 'Firmware Inventory', ctx.principal.systemIds.flatMap((id) => FIRMWARE_COMPONENTS.map((c) => `${INVENTORY}/${c}-${id}`))),
  },
  {
    pattern: `${INVENTORY}/:id`,
    get: (ctx) => {
      const t = inventoryItem(ctx);
      const s = ctx.world.systems.get(t.systemId);
      const related = t.component === 'BMC' ? `/redfish/v1/Managers/${t.systemId}` : s?.info.systemPath ?? '';
      return { ...odata(`${INVENTORY}/${ctx.params.id ?? ''}`, '#SoftwareInventory.v1_2_3.SoftwareInventory'), Id: ctx.params.id, Name: `${t.component} firmware of ${t.systemId}`, Version: s?.state.firmware[t.component], Updateable: true, SoftwareId: t.component, RelatedItem: [ref(related)], Status: STATUS_OK };
    },
  },
  {
    pattern: '/redfish/v1/TaskService',
    get: () => ({ ...odata('/redfish/v1/TaskService', '#TaskService.v1_1_4.TaskService'), Id: 'TaskService', Name: 'Task Service', ServiceEnabled: true, CompletedTaskOverWritePolicy: 'Oldest', LifeCycleEventOnTaskStateChange: false, Status: STATUS_OK, Tasks: ref(TASKS) }),
  },
  {
    pattern: TASKS,
    get: (ctx) => collection(TASKS, '#TaskCollection.TaskCollection', 'Task Collection', ctx.world.tasks.all().filter((t) => t.systemIds.some((id) => ctx.principal.systemIds.includes(id))).map((t) => `${TASKS}/${t.id}`)),
  },
  { pattern: `${TASKS}/:id`, get: (ctx) => taskBody(ownTask(ctx)) },
  {
    pattern: `${MONITORS}/:id`,
    getReply: (ctx) => {
      const t = ownTask(ctx);
      const done = t.state === 'Completed' || t.state === 'Exception';
      // No Retry-After: sushy 4.3's TaskMonitor.sleep_for hands its string to time.sleep and fails.
      return { status: done ? 200 : 202, body: taskBody(t) };
    },
  },
];
