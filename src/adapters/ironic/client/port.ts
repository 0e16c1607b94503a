import { z } from 'zod';

// A port as listed with detail=true or returned by POST /v1/ports.
export const IronicPort = z.looseObject({
  uuid: z.string(),
  address: z.string(),
  node_uuid: z.string(),
  pxe_enabled: z.boolean().optional(),
  physical_network: z.string().nullable().optional(),
  local_link_connection: z.record(z.string(), z.unknown()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type IronicPort = z.infer<typeof IronicPort>;

export const PortList = z.looseObject({ ports: z.array(IronicPort), next: z.string().optional() });
