import { randomUUID } from 'node:crypto';
import type { ProvisionState } from './state-machine.ts';
import type { Microversion } from './versions.ts';
import { allows, SINCE } from './versions.ts';

// A node as the server keeps it, and how it is shown at a request's version. The fields and their
// defaults are those Ironic 21.4 returned for `POST /v1/nodes {"name", "driver": "fake-hardware"}`
// at 1.82 (seen); newer fields come from ironic/api/controllers/v1/node.py (node_schema,
// _get_fields_for_node_query) and are hidden below the version that added them, as
// api_utils.hide_fields_in_newer_versions does.

/** A BIOS attribute's registry entry (GET .../bios?detail=True, API 1.74; objects/bios.py). */
export interface BiosRegistry {
  attribute_type: 'Enumeration' | 'String' | 'Integer' | 'Boolean' | 'Password' | null;
  allowable_values: string[] | null;
  lower_bound: number | null;
  upper_bound: number | null;
  min_length: number | null;
  max_length: number | null;
  read_only: boolean | null;
  reset_required: boolean | null;
  unique: boolean | null;
}

export interface BiosSetting {
  name: string;
  value: string | null;
  registry: BiosRegistry;
  /** What bios.factory_reset restores; never shown. */
  factory: string | null;
}

export interface FirmwareComponent {
  component: string;
  initial_version: string;
  current_version: string;
  last_version_flashed: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface NodeRecord {
  /** The database id: Ironic quotes it in "Node inventory record for node <id> ...". */
  readonly id: number;
  readonly fields: Record<string, unknown> & { uuid: string; provision_state: ProvisionState; target_provision_state: ProvisionState | null };
  bios: BiosSetting[];
  firmware: FirmwareComponent[];
  inventory: { inventory: unknown; plugin_data: unknown } | null;
}

// Fields newer than the 1.82 baseline, with the minor that added them (versions.py).
export const NEWER_NODE_FIELDS: Readonly<Record<string, number>> = {
  parent_node: SINCE.parentNode,
  firmware_interface: SINCE.firmware,
  service_step: SINCE.service,
  disable_power_off: SINCE.disablePowerOff,
};

export const INTERFACES = ['bios', 'boot', 'console', 'deploy', 'inspect', 'management', 'network', 'power', 'raid', 'rescue', 'storage', 'vendor'] as const;

/** The interfaces fake-hardware defaults to (noop network and storage, as the 21.4 answer shows). */
export function defaultInterfaces(serverMax: Microversion): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of INTERFACES) out[`${i}_interface`] = i === 'network' || i === 'storage' ? 'noop' : 'fake';
  // 22.1: enabled_firmware_interfaces defaults to no-firmware (ironic/conf/default.py).
  if (allows(serverMax, SINCE.firmware)) out.firmware_interface = 'no-firmware';
  return out;
}

export function newNodeRecord(id: number, body: Record<string, unknown>, serverMax: Microversion, now: string): NodeRecord {
  const fields: NodeRecord['fields'] = {
    uuid: typeof body.uuid === 'string' ? body.uuid : randomUUID(),
    created_at: now, updated_at: null,
    automated_clean: null, boot_mode: null, clean_step: {}, conductor_group: '', console_enabled: false,
    deploy_step: {}, description: null, driver: body.driver, driver_info: {}, driver_internal_info: {}, extra: {},
    fault: null, inspection_finished_at: null, inspection_started_at: null, instance_info: {}, instance_uuid: null,
    last_error: null, lessee: null, maintenance: false, maintenance_reason: null, name: null, network_data: {}, owner: null,
    power_state: null, properties: {}, protected: false, protected_reason: null,
    provision_state: 'enroll', provision_updated_at: null, raid_config: {}, reservation: null,
    resource_class: null, retired: false, retired_reason: null, secure_boot: null, shard: null,
    target_power_state: null, target_provision_state: null, target_raid_config: {}, traits: [],
    ...defaultInterfaces(serverMax),
    ...(allows(serverMax, SINCE.parentNode) ? { parent_node: null } : {}),
    ...(allows(serverMax, SINCE.service) ? { service_step: {} } : {}),
    ...(allows(serverMax, SINCE.disablePowerOff) ? { disable_power_off: false } : {}),
  };
  for (const [k, v] of Object.entries(body)) if (v !== undefined) fields[k] = v;
  return { id, fields, bios: [], firmware: [], inventory: null };
}

// driver_info values Ironic masks in answers (ironic/common/utils.py mask_secrets / strutils).
const SECRET = /password|secret|token|key|credential/i;

function masked(info: unknown): unknown {
  if (typeof info !== 'object' || info === null) return info;
  return Object.fromEntries(Object.entries(info).map(([k, v]) => [k, SECRET.test(k) && v !== null && v !== undefined ? '******' : v]));
}

const HEAD = ['uuid', 'created_at', 'updated_at'];

/** The node as a request at `version` sees it: newer fields hidden, `fields` honoured, links added. */
export function nodeView(n: NodeRecord, version: Microversion, base: string, only?: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Ironic's order: uuid, created_at, updated_at, then the rest by name (api/controllers/v1/utils.py object_to_dict).
  // With ?fields=, the order asked for (seen on 21.4).
  const rest = Object.keys(n.fields).filter((k) => !HEAD.includes(k)).sort();
  for (const k of only ?? [...HEAD, ...rest]) {
    if (!(k in n.fields)) continue;
    const v = n.fields[k];
    const since = NEWER_NODE_FIELDS[k];
    if (since !== undefined && !allows(version, since)) continue;
    if (only !== undefined && !only.includes(k)) continue;
    out[k] = k === 'driver_info' ? masked(v) : v;
  }
  const self = `${base}/v1/nodes/${n.fields.uuid}`;
  out.links = [{ href: self, rel: 'self' }, { href: `${base}/nodes/${n.fields.uuid}`, rel: 'bookmark' }];
  return out;
}
