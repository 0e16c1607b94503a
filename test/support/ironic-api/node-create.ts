import { errors, fault } from './faults.ts';
import { NEWER_NODE_FIELDS } from './node.ts';
import type { Microversion } from './versions.ts';
import { allows } from './versions.ts';

// POST /v1/nodes checks, as ironic/api/controllers/v1/node.py NodesController.post does them:
// the node schema (21.4.0's properties, seen in its "Schema error for node" answer; 23.0.0 adds
// parent_node and firmware_interface), reject_fields_in_newer_versions (406 for a field the
// server has but the request's version lacks), then the driver and interfaces the conductor
// offers (conductor/utils, drivers/base: NoValidHost, InterfaceNotFoundInEntrypoint).

const SCHEMA_21_4 = [
  'automated_clean', 'bios_interface', 'boot_interface', 'boot_mode', 'chassis_uuid', 'conductor_group', 'console_enabled',
  'console_interface', 'deploy_interface', 'description', 'driver', 'driver_info', 'extra', 'inspect_interface', 'instance_info',
  'instance_uuid', 'lessee', 'management_interface', 'maintenance', 'name', 'network_data', 'network_interface', 'owner',
  'power_interface', 'properties', 'raid_interface', 'rescue_interface', 'resource_class', 'retired', 'retired_reason',
  'secure_boot', 'shard', 'storage_interface', 'uuid', 'vendor_interface',
];

/** The fields a server of maximum `max` knows in a node body. */
export function knownNodeFields(max: Microversion): string[] {
  return [...SCHEMA_21_4, ...Object.entries(NEWER_NODE_FIELDS).filter(([, since]) => allows(max, since)).map(([f]) => f)];
}

export const DRIVERS = ['fake-hardware', 'redfish', 'ipmi'];

// The interfaces a conductor configured like test/support/ironic.ts (fake-hardware) plus
// redfish offers; unknown names answer the entrypoint error Ironic 21.4 gave for bios "nope".
const VALID: Readonly<Record<string, readonly string[]>> = {
  bios: ['fake', 'no-bios', 'redfish'],
  boot: ['fake', 'ipxe', 'pxe', 'redfish-virtual-media', 'redfish-https'],
  console: ['fake', 'no-console'],
  deploy: ['fake', 'direct', 'ramdisk', 'custom-agent'],
  firmware: ['fake', 'no-firmware', 'redfish'],
  inspect: ['fake', 'no-inspect', 'redfish', 'agent', 'inspector'],
  management: ['fake', 'redfish', 'ipmitool'],
  network: ['noop', 'flat'],
  power: ['fake', 'redfish', 'ipmitool'],
  raid: ['fake', 'no-raid', 'redfish', 'agent'],
  rescue: ['fake', 'no-rescue', 'agent'],
  storage: ['noop'],
  vendor: ['fake', 'no-vendor', 'redfish', 'ipmitool'],
};

export function checkCreate(body: unknown, version: Microversion, max: Microversion): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fault(400, `Schema error for node: ${JSON.stringify(body)} is not of type 'object'`);
  const b = body as Record<string, unknown>;
  const known = knownNodeFields(max);
  const unexpected = Object.keys(b).filter((k) => !known.includes(k));
  if (unexpected.length > 0) {
    throw fault(400, `Schema error for node: Additional properties are not allowed (${unexpected.map((k) => `'${k}'`).join(', ')} ${unexpected.length === 1 ? 'was' : 'were'} unexpected)`);
  }
  if (typeof b.driver !== 'string') throw fault(400, `Schema error for node: 'driver' is a required property`);
  for (const [field, since] of Object.entries(NEWER_NODE_FIELDS)) {
    if (b[field] !== undefined && b[field] !== null && !allows(version, since)) throw errors.notAcceptable();
  }
  if (!DRIVERS.includes(b.driver)) throw fault(400, `No valid host was found. Reason: No conductor service registered which supports driver ${b.driver} for conductor group "".`);
  checkInterfaces(b);
  return b;
}

export function checkInterfaces(b: Record<string, unknown>): void {
  for (const [iface, valid] of Object.entries(VALID)) {
    const v = b[`${iface}_interface`];
    if (v === undefined || v === null) continue;
    if (!valid.includes(String(v))) {
      throw fault(400, `Could not find the following interface in the 'ironic.hardware.interfaces.${iface}' entrypoint: ${String(v)}. Valid interfaces are [${valid.map((x) => `'${x}'`).join(', ')}].`);
    }
  }
}
