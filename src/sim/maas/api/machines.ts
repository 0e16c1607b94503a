import type { Backend, CallContext, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import type { MachineRecord } from '../fleet/machine.ts';
import { notFound } from '../http/api-error.ts';
import { checkView } from '../fleet/fleet-access.ts';
import { machineJson } from '../fleet/machine-json.ts';
import { blockDeviceJson } from '../fleet/storage-json.ts';
import { NodeStatus } from '../fleet/status.ts';
import { readAllPowerParameters, readDetails, readPowerParameters } from './nodes.ts';

// machines/ and machines/{system_id}/ (MachinesHandler, MachineHandler in api/machines.py), and a
// machine's block devices and partitions under nodes/{system_id}/ (api/blockdevices.py,
// api/partitions.py), read-only: the storage layout is the flat one commissioning applies.

const json = (b: Backend, m: MachineRecord) => machineJson(m, b);
type MachineOp = (b: Backend, c: CallContext) => MachineRecord;
const one = (op: MachineOp) => (b: Backend, c: CallContext) => ok(json(b, op(b, c)));

// The {id} of a two-level path ("abc123/blockdevices/7") split into its parts; what MAAS answers
// for a part that does not exist is get_object_or_404's text for its model.
function disksOf(b: Backend, c: CallContext) {
  const [systemId = '', , diskText = '', , partText] = c.id.split('/');
  const m = b.fleet.bySystemId(systemId);
  if (!m) throw notFound('Machine');
  // blockdevices.py: get_node_or_404 with NodePermission.view.
  checkView(c.user, m);
  const disks = m.commissioned ? m.disks.map((d) => blockDeviceJson(m.systemId, d)) : [];
  return { disks, diskText, partText };
}

function oneDisk(b: Backend, c: CallContext) {
  const { disks, diskText, partText } = disksOf(b, c);
  const disk = disks.find((d) => String(d.id) === diskText);
  if (!disk) throw notFound('BlockDevice');
  return { disk, partText };
}

export const MACHINE_RESOURCES: readonly Resource[] = [
  {
    name: 'machines/',
    pattern: /^machines\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.fleet.list(c.user, c.params).map((m) => json(b, m))),
      'POST allocate': (b, c) => {
        const { machine, constraintsByType } = b.fleet.allocate(c.user, c.params, b.network);
        return ok({ ...json(b, machine), constraints_by_type: constraintsByType });
      },
      'POST release': (b, c) => ok(b.fleet.releaseMany(c.user, c.params)),
      'POST accept': (b, c) => ok(b.fleet.accept(c.user, c.params, false).map((m) => json(b, m))),
      'POST accept_all': (b, c) => ok(b.fleet.accept(c.user, c.params, true).map((m) => json(b, m))),
      'GET power_parameters': readAllPowerParameters,
      'GET list_allocated': (b, c) => {
        const ids = c.params.getAll('id');
        const mine = b.fleet.all().filter((m) => m.owner === c.user.name && m.status === NodeStatus.Allocated && (ids.length === 0 || ids.includes(m.systemId)));
        return ok(mine.map((m) => json(b, m)));
      },
    },
  },
  {
    name: 'machines/{id}/',
    pattern: /^machines\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': one((b, c) => b.fleet.read(c.user, c.id)),
      'PUT ': one((b, c) => b.fleet.update(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.fleet.remove(c.user, c.id);
        // A machine's devices (its containers) go with it, as in MAAS.
        b.network.devices.removeChildrenOf(c.id);
        return noContent;
      },
      'POST deploy': one((b, c) => b.fleet.deploy(c.user, c.id, c.params)),
      'POST release': one((b, c) => b.fleet.release(c.user, c.id, c.params)),
      'POST power_on': one((b, c) => b.fleet.powerOn(c.user, c.id, c.params)),
      'POST power_off': one((b, c) => b.fleet.powerOffByRequest(c.user, c.id, c.params)),
      'GET power_parameters': readPowerParameters,
      'GET details': readDetails,
      'GET query_power_state': (b, c) => ok(b.fleet.queryPowerState(c.user, c.id)),
      'POST set_workload_annotations': one((b, c) => b.fleet.setOwnerData(c.user, c.id, c.params)),
      'POST set_owner_data': one((b, c) => b.fleet.setOwnerData(c.user, c.id, c.params)),
      'POST commission': one((b, c) => b.fleet.commission(c.user, c.id, c.params)),
      'POST abort': one((b, c) => b.fleet.abort(c.user, c.id, c.params)),
      'POST mark_broken': one((b, c) => b.fleet.markBroken(c.user, c.id, c.params)),
      'POST mark_fixed': one((b, c) => b.fleet.markFixed(c.user, c.id, c.params)),
      'POST lock': one((b, c) => b.fleet.lock(c.user, c.id, c.params, true)),
      'POST unlock': one((b, c) => b.fleet.lock(c.user, c.id, c.params, false)),
    },
  },
  {
    name: 'nodes/{system_id}/blockdevices/',
    pattern: /^nodes\/([^/]+)\/blockdevices\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: { 'GET ': (b, c) => ok(disksOf(b, c).disks) },
  },
  {
    name: 'nodes/{system_id}/blockdevices/{id}/',
    pattern: /^nodes\/([^/]+\/blockdevices\/[^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: { 'GET ': (b, c) => ok(oneDisk(b, c).disk) },
  },
  {
    name: 'nodes/{system_id}/blockdevices/{device_id}/partitions/',
    pattern: /^nodes\/([^/]+\/blockdevices\/[^/]+)\/partitions\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: { 'GET ': (b, c) => ok(oneDisk(b, c).disk.partitions) },
  },
  {
    // MAAS's partition URI has no trailing slash (resource_uri …/partition/9).
    name: 'nodes/{system_id}/blockdevices/{device_id}/partition/{id}',
    pattern: /^nodes\/([^/]+\/blockdevices\/[^/]+\/partition\/[^/]+)\/?(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => {
        const { disk, partText } = oneDisk(b, c);
        const part = disk.partitions.find((p) => String(p.id) === partText);
        if (!part) throw notFound('Partition');
        return ok(part);
      },
    },
  },
];
