import { randomUUID } from 'node:crypto';
import type { RouteContext } from './context.ts';
import { errors, fault } from './faults.ts';
import type { Answer } from './http-io.ts';
import type { PortRecord } from './state.ts';

// /v1/ports (ironic/api/controllers/v1/port.py): create with node_uuid and address (its schema
// error seen on 21.4: "Schema error for port: 'node_uuid' is a required property"), list with
// ?node (404 for an unknown node, seen) or ?address.

const SCHEMA = ['address', 'node_uuid', 'pxe_enabled', 'physical_network', 'local_link_connection', 'extra', 'portgroup_uuid', 'is_smartnic', 'uuid'];

function view(ctx: RouteContext, p: PortRecord): Record<string, unknown> {
  return {
    ...p, internal_info: {}, portgroup_uuid: null, is_smartnic: false,
    links: [{ href: `${ctx.base}/v1/ports/${p.uuid}`, rel: 'self' }, { href: `${ctx.base}/ports/${p.uuid}`, rel: 'bookmark' }],
  };
}

export function createPort(ctx: RouteContext, body: unknown): Answer {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const unexpected = Object.keys(b).filter((k) => !SCHEMA.includes(k));
  if (unexpected.length > 0) throw fault(400, `Schema error for port: Additional properties are not allowed (${unexpected.map((k) => `'${k}'`).join(', ')} ${unexpected.length === 1 ? 'was' : 'were'} unexpected)`);
  for (const req of ['node_uuid', 'address']) if (b[req] === undefined) throw fault(400, `Schema error for port: '${req}' is a required property`);
  const node = ctx.store.nodes.get(String(b.node_uuid));
  if (!node) throw errors.nodeNotFound(String(b.node_uuid));
  const address = String(b.address).toLowerCase();
  if (!/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(address)) throw fault(400, `Expected a MAC address but received ${String(b.address)}.`);
  for (const p of ctx.store.ports.values()) if (p.address === address) throw errors.macExists(address);
  const p: PortRecord = {
    uuid: typeof b.uuid === 'string' ? b.uuid : randomUUID(), address, node_uuid: node.fields.uuid,
    pxe_enabled: b.pxe_enabled === undefined ? true : Boolean(b.pxe_enabled), physical_network: (b.physical_network as string | undefined) ?? null,
    local_link_connection: (b.local_link_connection as Record<string, unknown> | undefined) ?? {}, extra: (b.extra as Record<string, unknown> | undefined) ?? {},
    created_at: ctx.plan.now(), updated_at: null,
  };
  ctx.store.ports.set(p.uuid, p);
  return { status: 201, json: view(ctx, p), headers: { Location: `${ctx.base}/v1/ports/${p.uuid}` } };
}

export function listPorts(ctx: RouteContext): Answer {
  const nodeRef = ctx.query.get('node');
  const address = ctx.query.get('address');
  let ports = [...ctx.store.ports.values()];
  if (nodeRef !== null) {
    const node = ctx.store.find(nodeRef);
    if (!node) throw errors.nodeNotFound(nodeRef);
    ports = ports.filter((p) => p.node_uuid === node.fields.uuid);
  } else if (address !== null) {
    ports = ports.filter((p) => p.address === address.toLowerCase());
  }
  const detail = /^(true|1|yes|on)$/i.test(ctx.query.get('detail') ?? '');
  return { status: 200, json: { ports: ports.map((p) => (detail ? view(ctx, p) : { uuid: p.uuid, address: p.address, links: view(ctx, p).links })) } };
}
