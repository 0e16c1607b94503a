import { z } from 'zod';

// A node as Ironic returns it (GET /v1/nodes/{node}, POST /v1/nodes, PATCH). Only `uuid` and
// `provision_state` are always there (listNodes asks for them whatever `fields` says); every other
// field is optional because `fields` may leave it out. Unknown fields are kept. Secret
// driver_info values come back from Ironic as "******".
const str = z.string().nullable().optional();
const dict = z.record(z.string(), z.unknown());

export const IronicNode = z.looseObject({
  uuid: z.string(),
  provision_state: z.string(),
  name: str,
  driver: z.string().optional(),
  driver_info: dict.optional(),
  driver_internal_info: dict.optional(),
  target_provision_state: str,
  power_state: str,
  target_power_state: str,
  maintenance: z.boolean().optional(),
  maintenance_reason: str,
  fault: str,
  last_error: str,
  reservation: str,
  instance_uuid: str,
  instance_info: dict.optional(),
  properties: dict.optional(),
  extra: dict.optional(),
  network_data: dict.nullable().optional(),
  automated_clean: z.boolean().nullable().optional(),
  boot_mode: str,
  secure_boot: z.boolean().nullable().optional(),
  clean_step: dict.nullable().optional(),
  deploy_step: dict.nullable().optional(),
  resource_class: str,
  conductor: str,
  protected: z.boolean().optional(),
  retired: z.boolean().optional(),
  boot_interface: str,
  deploy_interface: str,
  inspect_interface: str,
  management_interface: str,
  power_interface: str,
  raid_interface: str,
  bios_interface: str,
  vendor_interface: str,
  network_interface: str,
  rescue_interface: str,
  console_interface: str,
  storage_interface: str,
  firmware_interface: str, // 1.86
  disable_power_off: z.boolean().optional(), // 1.95
  health: str, // 1.109
  provision_updated_at: str,
  inspection_started_at: str,
  inspection_finished_at: str,
  created_at: str,
  updated_at: str,
});
export type IronicNode = z.infer<typeof IronicNode>;

export const NodeList = z.looseObject({ nodes: z.array(IronicNode), next: z.string().optional() });

/** The body of POST /v1/nodes, in Ironic's own field names. */
export interface CreateNode {
  driver: string;
  name?: string;
  uuid?: string;
  driver_info?: Record<string, unknown>;
  properties?: Record<string, unknown>;
  instance_info?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  network_data?: Record<string, unknown>;
  resource_class?: string;
  automated_clean?: boolean | null;
  disable_power_off?: boolean;
  boot_interface?: string;
  deploy_interface?: string;
  inspect_interface?: string;
  management_interface?: string;
  power_interface?: string;
  raid_interface?: string;
  bios_interface?: string;
  vendor_interface?: string;
  network_interface?: string;
  rescue_interface?: string;
  console_interface?: string;
  storage_interface?: string;
  firmware_interface?: string;
  owner?: string;
  description?: string;
  [field: string]: unknown;
}

/** One RFC 6902 operation for PATCH /v1/nodes/{node}. */
export type JsonPatch =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

// GET /v1/nodes/{node}/validate: one entry per interface; `reason` is left out on success.
export const ValidateResult = z.record(z.string(), z.looseObject({ result: z.boolean().nullable(), reason: z.string().nullable().optional() }));
export type ValidationResult = Record<string, { result: boolean | null; reason: string | null }>;

// GET /v1/nodes/{node}/inventory (1.81): what inspection found.
export const NodeInventory = z.looseObject({ inventory: z.unknown(), plugin_data: z.unknown().optional() });
export type NodeInventory = z.infer<typeof NodeInventory>;
