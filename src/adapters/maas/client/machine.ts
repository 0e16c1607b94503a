import { z } from 'zod';

// A machine as MAAS 2.0 returns it (GET /machines/{id}/, allocate, deploy, release, power_on,
// PUT), capmaas.md §3.3. The fields CAPMAAS reads are required; every other field MAAS sends is
// kept as is.
const Named = z.looseObject({ name: z.string() });

export const MaasMachine = z.looseObject({
  system_id: z.string().min(1),
  hostname: z.string(),
  fqdn: z.string(),
  status: z.number().int(),
  /** The label CAPMAAS switches on: Ready, Allocated, Deploying, Deployed, Failed deployment, ... */
  status_name: z.string(),
  power_state: z.enum(['on', 'off', 'unknown', 'error']),
  power_type: z.string(),
  /** Static IPs first, else dynamic ones; empty until deploy claims addresses. */
  ip_addresses: z.array(z.string()),
  zone: Named,
  pool: Named,
  domain: Named,
  cpu_count: z.number().int(),
  /** MB. */
  memory: z.number(),
  tag_names: z.array(z.string()),
  /** '' until deployed. */
  osystem: z.string(),
  distro_series: z.string(),
  /** Bytes; null when MAAS picks the size. */
  swap_size: z.number().nullable(),
  // Only MAAS versions with in-memory deploy (3.5.10, 3.6.3, 3.7.1 and later) send it.
  ephemeral_deploy: z.boolean().optional(),
  owner: z.string().nullable(),
  /** Key/value data of the current owner (op=set_owner_data); {} when none. */
  owner_data: z.record(z.string(), z.string()).optional(),
  storage: z.number().optional(),
  parent: z.looseObject({ system_id: z.string() }).nullable().optional(),
  /** e.g. amd64/generic: which boot resources fit the machine is decided by its first part. */
  architecture: z.string().optional(),
  /** The NICs with their tags and the addresses linked on each (which one goes into DNS: spec.apiServerInterface). */
  interface_set: z.array(z.looseObject({
    name: z.string(),
    tags: z.array(z.string()).optional(),
    links: z.array(z.looseObject({
      ip_address: z.string().nullable().optional(),
      subnet: z.looseObject({ cidr: z.string(), name: z.string().optional() }).nullable().optional(),
    })).optional(),
  })).optional(),
  resource_uri: z.string().optional(),
});
export type MaasMachine = z.infer<typeof MaasMachine>;

export const MaasMachineList = z.array(MaasMachine);
