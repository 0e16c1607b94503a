import type { Backend, CallContext, Handler, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import { machineJson } from '../fleet/machine-json.ts';
import { powerParameters } from '../fleet/power-parameters.ts';
import { probedDetails } from '../fleet/probed-details.ts';
import type { MachineRecord } from '../fleet/machine.ts';
import { badRequest, forbidden, METHOD_RESERVED_ADMIN, notFound } from '../http/api-error.ts';
import { normaliseMac } from '../fleet/mac-address.ts';
import { checkView } from '../fleet/fleet-access.ts';
import { NodeStatus } from '../fleet/status.ts';
import type { NodeStatusCode } from '../fleet/status.ts';
import { encodeBson } from '../http/bson.ts';

// nodes/ and nodes/{system_id}/ (NodesHandler, NodeHandler in api/nodes.py): every node, each
// rendered as its own type renders it (devices first, then machines, as NodesHandler.read chains
// them), with the read filters each type's handler applies; and the NodeHandler operations that
// machines/{system_id}/ inherits: details (BSON) and power_parameters (admin only).

// Node.objects.get_node_or_404: a system_id of no node of any kind is "No Node matches". A device
// is a node with neither probed details nor power parameters. A machine another user holds is
// PermissionDenied (403, no text) to a non-admin (NodePermission.view, fleet-access.ts); a device
// has no pool, and _can_view lets every user view it.
function machineOrDevice(b: Backend, c: CallContext, systemId: string): MachineRecord | 'device' {
  const m = b.fleet.bySystemId(systemId);
  if (m) {
    checkView(c.user, m);
    return m;
  }
  if (b.network.devices.has(systemId)) return 'device';
  throw notFound('Node');
}

/** GET {system_id}/?op=power_parameters: NodePermission.admin_read, so 403 (no text) for any other user. */
export const readPowerParameters: Handler = (b, c) => {
  const m = machineOrDevice(b, c, c.id);
  if (!c.user.admin) throw forbidden();
  return ok(m === 'device' ? {} : powerParameters(m));
};

/** GET machines/?op=power_parameters: admin_method; `id` (repeatable) narrows it, unknown ids are left out. */
export const readAllPowerParameters: Handler = (b, c) => {
  if (!c.user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
  const ids = c.params.getAll('id');
  const picked = b.fleet.all().filter((m) => !c.params.has('id') || ids.includes(m.systemId));
  return ok(Object.fromEntries(picked.map((m) => [m.systemId, powerParameters(m)])));
};

/** GET {system_id}/?op=details: `{lldp, lshw}` as BSON binaries (null before commissioning). */
export const readDetails: Handler = (b, c) => {
  const m = machineOrDevice(b, c, c.id);
  const details: Array<[string, Buffer | null]> = m === 'device' ? [['lldp', null], ['lshw', null]] : probedDetails(m);
  return { status: 200, bytes: encodeBson(details), contentType: 'application/bson' };
};

function readNode(b: Backend, c: CallContext) {
  const m = b.fleet.bySystemId(c.id);
  if (m) return ok(machineJson(b.fleet.read(c.user, m.systemId), b));
  if (!b.network.devices.has(c.id)) throw notFound('Node');
  return ok(b.network.devices.read(c.user, c.id));
}

// NodeHandler.delete: NodePermission.admin, whatever the node; a machine takes its devices along.
function deleteNode(b: Backend, c: CallContext) {
  const m = machineOrDevice(b, c, c.id);
  if (!c.user.admin) throw forbidden();
  if (m === 'device') {
    b.network.devices.remove(c.user, c.id);
  } else {
    b.fleet.remove(c.user, c.id);
    b.network.devices.removeChildrenOf(c.id);
  }
  return noContent;
}

// GET nodes/?op=is_registered (is_registered in api/nodes.py): a MAC of a node's interface, a node
// in one of `excluded` statuses not counting. A device's MAC counts unless New is excluded: a
// device keeps Node's default status, New.
function registeredCheck(excluded: readonly NodeStatusCode[]): Handler {
  return (b, c) => {
    const mac = normaliseMac(mandatoryMac(c));
    const onMachine = b.fleet.all().some((m) => !excluded.includes(m.status) && m.nics.some((n) => n.mac === mac));
    const onDevice = !excluded.includes(NodeStatus.New) && b.network.devices.hostnameWithMac(mac) !== undefined;
    return ok(onMachine || onDevice);
  };
}

function mandatoryMac(c: CallContext): string {
  const text = c.params.get('mac_address');
  if (text === undefined) throw badRequest('No provided mac_address!');
  return text;
}

const isRegistered = registeredCheck([NodeStatus.Retired]);

// AnonNodesHandler (NodesHandler.anonymous): what a booting machine's enlistment asks with no key.
// Its is_registered leaves New and Commissioning nodes out too, so enlistment can run for them.
const anonymousNodeSignatures: Readonly<Record<string, Handler>> = {
  'GET is_registered': registeredCheck([NodeStatus.New, NodeStatus.Commissioning, NodeStatus.Retired]),
  'GET is_action_in_progress': (b, c) => {
    const mac = normaliseMac(mandatoryMac(c));
    return ok(b.fleet.all().some((m) => (m.status === NodeStatus.Commissioning || m.status === NodeStatus.Deploying) && m.nics.some((n) => n.mac === mac)));
  },
};

export const NODE_RESOURCES: readonly Resource[] = [
  {
    name: 'nodes/',
    pattern: /^nodes\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET is_registered': isRegistered,
      'GET ': (b, c) => ok([...b.network.devices.list(c.user, c.params), ...b.fleet.list(c.user, c.params).map((m) => machineJson(m, b))]),
    },
    anonymousSignatures: anonymousNodeSignatures,
  },
  {
    name: 'nodes/{system_id}/',
    pattern: /^nodes\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': readNode,
      'DELETE ': deleteNode,
      'GET details': readDetails,
      'GET power_parameters': readPowerParameters,
    },
  },
];
