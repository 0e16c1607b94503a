import type { Answer } from './http-io.ts';
import type { RouteContext } from './context.ts';
import { errors, fault, pecanAbort } from './faults.ts';
import type { NodeRecord } from './node.ts';
import { newNodeRecord, nodeView } from './node.ts';
import { checkCreate } from './node-create.ts';
import { patchNode } from './node-patch.ts';
import { checkProvisionArgs, provision } from './provision.ts';
import { allows, SINCE } from './versions.ts';

// The /v1/nodes routes (ironic/api/controllers/v1/node.py NodesController,
// NodeStatesController, NodeMaintenanceController, bios.py, firmware.py, NodeInventoryController).

export function nodeOr404(ctx: RouteContext, ref: string): NodeRecord {
  const n = ctx.store.find(ref);
  if (n === null) throw errors.nodeNotFound(ref);
  return n;
}

/** ?fields=a,b (node.py _get_fields_for_node_query: "Field x is not a valid field."). */
function fieldsQuery(ctx: RouteContext): string[] | undefined {
  const f = ctx.query.get('fields');
  if (f === null) return undefined;
  const fields = f.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const valid = new Set(['uuid', 'links', ...knownFields(ctx)]);
  for (const x of fields) if (!valid.has(x)) throw fault(400, `Field ${x} is not a valid field.`);
  return fields;
}

function knownFields(ctx: RouteContext): string[] {
  const sample = newNodeRecord(0, { driver: 'fake-hardware' }, ctx.max, '');
  return Object.keys(nodeView(sample, ctx.version, ctx.base));
}

// node.py get_all without detail or fields: the short form.
const SHORT = ['uuid', 'name', 'instance_uuid', 'power_state', 'provision_state', 'maintenance'];

export function listNodes(ctx: RouteContext): Answer {
  const detail = /^(true|1|yes|on)$/i.test(ctx.query.get('detail') ?? '');
  const fields = fieldsQuery(ctx) ?? (detail ? undefined : SHORT);
  const state = ctx.query.get('provision_state');
  const limit = Math.min(Number(ctx.query.get('limit') ?? 1000) || 1000, 1000);
  const marker = ctx.query.get('marker');
  let all = [...ctx.store.nodes.values()].sort((a, b) => a.id - b.id);
  if (state !== null) all = all.filter((n) => n.fields.provision_state === state);
  if (marker !== null) {
    const m = ctx.store.nodes.get(marker);
    if (!m) throw fault(400, `Marker ${marker} could not be found.`);
    all = all.filter((n) => n.id > m.id);
  }
  const page = all.slice(0, limit);
  const out: Record<string, unknown> = { nodes: page.map((n) => nodeView(n, ctx.version, ctx.base, fields)) };
  // collection.py get_next: a full page links the next one with a marker. A full page links the
  // next one even when nothing follows (seen on 21.4). The link carries node.py's `parameters`
  // (sort, detail as the parsed Python bool, fields), never a filter such as provision_state.
  if (page.length === limit) {
    const q = new URLSearchParams({ sort_key: 'id', sort_dir: 'asc' });
    if (ctx.query.has('detail')) q.set('detail', detail ? 'True' : 'False');
    if (ctx.query.has('fields')) q.set('fields', (fields ?? []).join(','));
    q.set('limit', String(limit));
    q.set('marker', page[page.length - 1]?.fields.uuid ?? '');
    out.next = `${ctx.base}/v1/nodes?${q.toString().replace(/%2C/g, ',')}`;
  }
  return { status: 200, json: out };
}

export function getNode(ctx: RouteContext, ref: string): Answer {
  const n = nodeOr404(ctx, ref);
  return { status: 200, json: nodeView(n, ctx.version, ctx.base, fieldsQuery(ctx)) };
}

export function createNode(ctx: RouteContext, body: unknown): Answer {
  const b = checkCreate(body, ctx.version, ctx.max);
  if (typeof b.name === 'string' && ctx.store.find(b.name)) throw errors.duplicateName(b.name);
  if (typeof b.uuid === 'string' && ctx.store.nodes.has(b.uuid)) throw fault(409, `A node with UUID ${b.uuid} already exists.`);
  const n = newNodeRecord(ctx.store.newId(), b, ctx.max, ctx.plan.now());
  ctx.store.nodes.set(n.fields.uuid, n);
  return { status: 201, json: nodeView(n, ctx.version, ctx.base), headers: { Location: `${ctx.base}/v1/nodes/${n.fields.uuid}` } };
}

export function patch(ctx: RouteContext, ref: string, body: unknown): Answer {
  const n = nodeOr404(ctx, ref);
  const before = structuredClone(n.fields);
  patchNode(n, body, ctx.version, ctx.max);
  const name = n.fields.name;
  // The database's unique name (db/sqlalchemy/api.py update_node: DuplicateName); nothing is saved.
  if (typeof name === 'string' && name !== before.name && [...ctx.store.nodes.values()].some((o) => o !== n && o.fields.name === name)) {
    Object.assign(n.fields, before);
    throw errors.duplicateName(name);
  }
  n.fields.updated_at = ctx.plan.now();
  return { status: 200, json: nodeView(n, ctx.version, ctx.base) };
}

// states.py DELETE_ALLOWED_STATES, plus available ([conductor]allow_deleting_available_nodes,
// true by default): the tuple as Ironic 21.4 printed it.
const DELETABLE = ['manageable', 'enroll', 'adopt failed', 'available'];

export function deleteNode(ctx: RouteContext, ref: string): Answer {
  const n = nodeOr404(ctx, ref);
  if (n.fields.reservation) throw errors.locked(n.fields.uuid, String(n.fields.reservation));
  if (!DELETABLE.includes(n.fields.provision_state) && !n.fields.maintenance) {
    throw fault(409, `Can not delete node "${n.fields.uuid}" while it is in provision state "${n.fields.provision_state}". Valid provision states to perform deletion are: "(${DELETABLE.map((s) => `'${s}'`).join(', ')})", or set the node into maintenance mode`);
  }
  ctx.conductor.cancel(n.fields.uuid);
  ctx.store.nodes.delete(n.fields.uuid);
  for (const [id, p] of ctx.store.ports) if (p.node_uuid === n.fields.uuid) ctx.store.ports.delete(id);
  return { status: 204 };
}

export function setProvision(ctx: RouteContext, ref: string, body: unknown): Answer {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  checkProvisionArgs(b, ctx.max.minor);
  const n = nodeOr404(ctx, ref);
  provision(n, b, ctx.version, { conductor: ctx.conductor, plan: ctx.plan });
  return { status: 202, headers: { Location: `${ctx.base}/v1/nodes/${ref}/states` } };
}

// node.py ALLOWED_TARGET_POWER_STATES and NodeStatesController.power.
const POWER: Readonly<Record<string, 'power on' | 'power off'>> = {
  'power on': 'power on', 'power off': 'power off', rebooting: 'power on', 'soft rebooting': 'power on', 'soft power off': 'power off',
};

export function setPower(ctx: RouteContext, ref: string, body: unknown): Answer {
  const b = (typeof body === 'object' && body !== null ? body : {}) as { target?: unknown; timeout?: unknown };
  const n = nodeOr404(ctx, ref);
  const target = String(b.target);
  if (typeof b.timeout === 'number' && b.timeout < 1) throw fault(400, 'timeout has to be positive integer');
  const after = POWER[target];
  if (after === undefined) throw errors.invalidState(target, ref, n.fields.power_state as string | null);
  if (n.fields.provision_state === 'cleaning' || n.fields.provision_state === 'clean wait') throw errors.invalidState(target, ref, n.fields.provision_state);
  if (n.fields.reservation) throw errors.locked(n.fields.uuid, String(n.fields.reservation));
  n.fields.target_power_state = after;
  n.fields.reservation = 'ironic-api-test-server';
  ctx.conductor.start(n, [(node) => {
    node.fields.power_state = after;
    node.fields.target_power_state = null;
    node.fields.updated_at = ctx.plan.now();
  }], `${n.fields.uuid}#power`);
  return { status: 202, headers: { Location: `${ctx.base}/v1/nodes/${ref}/states` } };
}

export function setRaid(ctx: RouteContext, ref: string, body: unknown): Answer {
  const n = nodeOr404(ctx, ref);
  n.fields.target_raid_config = body ?? {};
  return { status: 204 };
}

export function setMaintenance(ctx: RouteContext, ref: string, body: unknown, on: boolean): Answer {
  const n = nodeOr404(ctx, ref);
  const reason = on && typeof body === 'object' && body !== null ? (body as { reason?: unknown }).reason : undefined;
  n.fields.maintenance = on;
  n.fields.maintenance_reason = on ? (typeof reason === 'string' ? reason : null) : null;
  // conductor/manager.py update_node: leaving maintenance clears the fault.
  if (!on) n.fields.fault = null;
  return { status: 202 };
}

// node.py NodesController.validate: one entry per interface of the node.
export function validate(ctx: RouteContext, ref: string): Answer {
  const n = nodeOr404(ctx, ref);
  const ifaces = ['boot', 'deploy', 'management', 'network', 'power', 'bios', 'console', 'inspect', 'raid', 'rescue', 'storage', ...(allows(ctx.max, SINCE.firmware) ? ['firmware'] : [])];
  const out: Record<string, unknown> = {};
  for (const i of ifaces) {
    const v = n.fields[`${i}_interface`];
    out[i] = typeof v === 'string' && v.startsWith('no-') ? { result: null, reason: `not supported` } : { result: true };
  }
  return { status: 200, json: out };
}

export function bios(ctx: RouteContext, ref: string): Answer {
  const n = nodeOr404(ctx, ref);
  const detail = /^(true|1|yes|on)$/i.test(ctx.query.get('detail') ?? '');
  // bios.py get_all: detail needs 1.74 (api_utils.allow_query_bios), else 406.
  if (detail && !allows(ctx.version, SINCE.biosRegistry)) throw errors.notAcceptable();
  return {
    status: 200,
    json: {
      bios: n.bios.map((b) => ({
        created_at: n.fields.created_at, updated_at: null, name: b.name, value: b.value,
        links: [{ href: `${ctx.base}/v1/nodes/${n.fields.uuid}/bios/${b.name}`, rel: 'self' }, { href: `${ctx.base}/nodes/${n.fields.uuid}/bios/${b.name}`, rel: 'bookmark' }],
        ...(detail ? b.registry : {}),
      })),
    },
  };
}

/**
 * GET .../firmware: node.py _lookup refuses it with a bare 404 below 1.86 on a server that has
 * it; a server without it (21.4) takes "firmware" for a field name and answers 400 "Field
 * firmware is not a valid field." (seen).
 */
export function firmware(ctx: RouteContext, ref: string): Answer {
  if (!allows(ctx.max, SINCE.firmware)) throw fault(400, 'Field firmware is not a valid field.');
  if (!allows(ctx.version, SINCE.firmware)) throw pecanAbort(404);
  const n = nodeOr404(ctx, ref);
  return { status: 200, json: { firmware: n.firmware.map((c) => ({ ...c })) } };
}

/** GET .../inventory (1.81): NodeInventoryNotFound names the node's database id (seen). */
export function inventory(ctx: RouteContext, ref: string): Answer {
  if (!allows(ctx.version, SINCE.inventory)) throw pecanAbort(404);
  const n = nodeOr404(ctx, ref);
  if (n.inventory === null) throw errors.inventoryNotFound(n.id);
  return { status: 200, json: n.inventory };
}

