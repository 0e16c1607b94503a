import { errors, fault } from './faults.ts';
import { checkInterfaces } from './node-create.ts';
import type { NodeRecord } from './node.ts';
import { NEWER_NODE_FIELDS } from './node.ts';
import { pyRepr } from './py-repr.ts';
import type { Microversion } from './versions.ts';
import { allows } from './versions.ts';

// PATCH /v1/nodes/{node}: ironic/api/controllers/v1/node.py NodesController.patch —
// api_utils.patch_validate_allowed_fields (PATCH_ALLOWED_FIELDS, 21.4.0's list as its 400 answer
// shows; 23.0.0 adds parent_node and firmware_interface), reject_patch_in_newer_versions (406),
// then api_utils.apply_jsonpatch (jsonpatch's messages: "can't replace a non-existent object").

const ALLOWED_21_4 = [
  'automated_clean', 'bios_interface', 'boot_interface', 'chassis_uuid', 'conductor_group', 'console_interface', 'deploy_interface',
  'description', 'driver', 'driver_info', 'extra', 'inspect_interface', 'instance_info', 'instance_uuid', 'lessee', 'maintenance',
  'management_interface', 'name', 'network_data', 'network_interface', 'owner', 'power_interface', 'properties', 'protected',
  'protected_reason', 'raid_interface', 'rescue_interface', 'resource_class', 'retired', 'retired_reason', 'shard',
  'storage_interface', 'vendor_interface',
];

function allowedFields(max: Microversion): string[] {
  const newer = ['parent_node', 'firmware_interface'].filter((f) => allows(max, NEWER_NODE_FIELDS[f] ?? Infinity));
  return [...ALLOWED_21_4, ...newer];
}

interface Op {
  op: string;
  path: string;
  value?: unknown;
}

export function patchNode(node: NodeRecord, ops: unknown, version: Microversion, max: Microversion): void {
  if (!Array.isArray(ops)) throw fault(400, 'Invalid patch: the patch must be a list of operations');
  const allowed = allowedFields(max);
  for (const op of ops as Op[]) {
    const field = op.path.split('/')[1] ?? '';
    if (!allowed.includes(field)) throw fault(400, `Cannot patch ${op.path}. Only the following can be updated: ${allowed.join(', ')}`);
  }
  for (const op of ops as Op[]) {
    const field = op.path.split('/')[1] ?? '';
    const since = NEWER_NODE_FIELDS[field];
    if (since !== undefined && op.op !== 'remove' && !allows(version, since)) throw errors.notAcceptable();
  }
  // conductor/manager.py update_node takes the lock.
  if (node.fields.reservation) throw errors.locked(node.fields.uuid, String(node.fields.reservation));
  const doc = structuredClone(node.fields) as Record<string, unknown>;
  for (const op of ops as Op[]) applyOp(doc, op);
  checkInterfaces(doc);
  Object.assign(node.fields, doc);
}

function applyOp(doc: Record<string, unknown>, op: Op): void {
  const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop() ?? '';
  let parent: unknown = doc;
  for (const p of parts) {
    parent = typeof parent === 'object' && parent !== null ? (parent as Record<string, unknown>)[p] : undefined;
    if (typeof parent !== 'object' || parent === null) throw couldNot(op, `can't find ${p}`);
  }
  const obj = parent as Record<string, unknown>;
  switch (op.op) {
    case 'add':
      obj[last] = op.value;
      return;
    case 'replace':
      if (!(last in obj)) throw couldNot(op, `can't replace a non-existent object '${last}'`);
      obj[last] = op.value;
      return;
    case 'remove':
      if (!(last in obj)) throw couldNot(op, `can't remove a non-existent object '${last}'`);
      // Removing a top-level field resets it (api_utils.apply_jsonpatch then the object default).
      if (parts.length === 0) obj[last] = null;
      else delete obj[last];
      return;
    default:
      throw couldNot(op, `Unknown operation ${pyRepr(op.op)}`);
  }
}

function couldNot(op: Op, reason: string): Error {
  return fault(400, `Couldn't apply patch '${pyRepr(op)}'. Reason: ${reason}`);
}
