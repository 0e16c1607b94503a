import type { Call, Send } from './call.ts';
import { invalid, orNullOn404, parse } from './call.ts';
import { checkDnsId, checkIps, checkTtl } from './checks.ts';
import { DnsResource, DnsResourceList } from './dns-resource.ts';
import { formPairs } from './form.ts';

// The calls on /dnsresources/.

export interface DnsQuery {
  /** Split by MAAS at the first label into name and domain; a missing domain is a 404. */
  fqdn?: string;
  domain?: string;
  name?: string;
}

export interface CreateDnsResource {
  fqdn: string;
  addressTtl?: number;
  /** May be empty: CAPMAAS creates the record before any control-plane machine has an address. */
  ipAddresses: string[];
}

export interface UpdateDnsResource {
  /** The whole new set: what is not listed is removed, and [] empties the record. */
  ipAddresses: string[];
  addressTtl?: number;
}

export interface DnsCalls {
  listDnsResources(q: DnsQuery): Promise<DnsResource[]>;
  createDnsResource(d: CreateDnsResource): Promise<DnsResource>;
  /** PUT replaces the whole IP set. */
  updateDnsResource(id: number, d: UpdateDnsResource): Promise<DnsResource>;
  /** A resource that is already gone is fine. */
  deleteDnsResource(id: number): Promise<void>;
}

export function dnsCalls(request: Send): DnsCalls {
  return {
    async listDnsResources(q) {
      const c: Call = { method: 'GET', path: '/dnsresources/', route: 'GET /dnsresources/', query: formPairs({ fqdn: q.fqdn, domain: q.domain, name: q.name }) };
      return parse(c, DnsResourceList, await request(c));
    },

    async createDnsResource(d) {
      const c: Call = {
        method: 'POST',
        path: '/dnsresources/',
        route: 'POST /dnsresources/',
        // ip_addresses is whitespace-separated, and an empty value means no address.
        form: formPairs({ fqdn: d.fqdn, address_ttl: d.addressTtl, ip_addresses: d.ipAddresses.join(' ') }),
      };
      if (typeof d.fqdn !== 'string' || !d.fqdn.includes('.') || /\s/.test(d.fqdn)) throw invalid(c, 'fqdn must be a name with a domain, e.g. c1-3f9a2b.maas');
      checkTtl(c, d.addressTtl);
      checkIps(c, d.ipAddresses);
      return parse(c, DnsResource, await request(c));
    },

    async updateDnsResource(id, d) {
      const c: Call = {
        method: 'PUT',
        path: `/dnsresources/${id}/`,
        route: 'PUT /dnsresources/{id}/',
        form: formPairs({ ip_addresses: d.ipAddresses.join(' '), address_ttl: d.addressTtl }),
      };
      checkDnsId(c, id);
      checkTtl(c, d.addressTtl);
      checkIps(c, d.ipAddresses);
      return parse(c, DnsResource, await request(c));
    },

    async deleteDnsResource(id) {
      const c: Call = { method: 'DELETE', path: `/dnsresources/${id}/`, route: 'DELETE /dnsresources/{id}/' };
      checkDnsId(c, id);
      await orNullOn404(() => request(c));
    },
  };
}
