import { z } from 'zod';

// A DNS resource (GET/POST /dnsresources/, PUT /dnsresources/{id}/), capmaas.md §3.3. Its IPs
// are StaticIPAddress rows (USER_RESERVED); only `ip` is read.
export const DnsResource = z.looseObject({
  id: z.number().int(),
  fqdn: z.string(),
  address_ttl: z.number().int().nullable(),
  ip_addresses: z.array(z.looseObject({ ip: z.string() })),
  resource_records: z.array(z.unknown()).optional(),
  resource_uri: z.string().optional(),
});
export type DnsResource = z.infer<typeof DnsResource>;

export const DnsResourceList = z.array(DnsResource);
