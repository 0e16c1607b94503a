import type { RouteContext } from './context.ts';
import { pecanAbort } from './faults.ts';
import type { Answer } from './http-io.ts';
import * as nodes from './node-routes.ts';
import { createPort, listPorts } from './port-routes.ts';

// The routing table under /v1 (ironic/api/controllers/v1/__init__.py Controller._subcontroller_map
// and node.py NodesController._lookup). Anything else is pecan's bare 404.

export function route(ctx: RouteContext, method: string, parts: readonly string[], body: unknown): Answer {
  const [top, ref, sub, leaf] = parts;
  if (top === 'nodes') {
    if (ref === undefined) {
      if (method === 'GET') return nodes.listNodes(ctx);
      if (method === 'POST') return nodes.createNode(ctx, body);
      throw pecanAbort(405);
    }
    const r = decodeURIComponent(ref);
    if (sub === undefined) {
      if (method === 'GET') return nodes.getNode(ctx, r);
      if (method === 'PATCH') return nodes.patch(ctx, r, body);
      if (method === 'DELETE') return nodes.deleteNode(ctx, r);
      throw pecanAbort(405);
    }
    const key = `${method} ${sub}${leaf === undefined ? '' : `/${leaf}`}`;
    switch (key) {
      case 'PUT states/provision': return nodes.setProvision(ctx, r, body);
      case 'PUT states/power': return nodes.setPower(ctx, r, body);
      case 'PUT states/raid': return nodes.setRaid(ctx, r, body);
      case 'PUT maintenance': return nodes.setMaintenance(ctx, r, body, true);
      case 'DELETE maintenance': return nodes.setMaintenance(ctx, r, body, false);
      case 'GET validate': return nodes.validate(ctx, r);
      case 'GET bios': return nodes.bios(ctx, r);
      case 'GET firmware': return nodes.firmware(ctx, r);
      case 'GET inventory': return nodes.inventory(ctx, r);
      default: throw pecanAbort(404);
    }
  }
  if (top === 'ports' && ref === undefined) {
    if (method === 'GET') return listPorts(ctx);
    if (method === 'POST') return createPort(ctx, body);
    throw pecanAbort(405);
  }
  throw pecanAbort(404);
}
