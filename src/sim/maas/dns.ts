import { isIP } from 'node:net';
import { forbidden, METHOD_RESERVED_ADMIN, notFound, validationError } from './api-error.ts';
import type { SimClock } from './clock.ts';
import type { Places } from './machine-json.ts';
import { API_PREFIX } from './machine-json.ts';
import type { SimUser } from './oauth.ts';
import type { Params } from './params.ts';

// DNS resources (src/maasserver/api/dnsresources.py): a name in a domain with address records.
// The addresses become USER_RESERVED static IPs; PUT replaces the whole set (capmaas.md §3.2).

interface DnsRecord {
  readonly id: number;
  name: string;
  domain: string;
  addressTtl: number | null;
  ips: string[];
  readonly created: string;
}

/** A copy of a DNS resource as tests and the CLI see it. */
export interface SimDnsResource {
  id: number;
  fqdn: string;
  addressTtl: number | null;
  ips: string[];
}

const DNS_NAME = /^([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?|@|\*)$/i;

// separate_fqdn for an address record: the first label is the name, the rest the domain.
function separateFqdn(fqdn: string): { name: string; domain: string | undefined } {
  const dot = fqdn.indexOf('.');
  return dot === -1 ? { name: fqdn, domain: undefined } : { name: fqdn.slice(0, dot), domain: fqdn.slice(dot + 1) };
}

function dnsJson(r: DnsRecord) {
  return {
    id: r.id,
    fqdn: `${r.name}.${r.domain}`,
    address_ttl: r.addressTtl,
    ip_addresses: r.ips.map((ip) => ({
      ip,
      alloc_type: 4,
      alloc_type_name: 'User reserved',
      created: r.created,
      subnet: null,
      owner: { username: 'admin', is_superuser: true, resource_uri: `${API_PREFIX}/users/admin/` },
      interface_set: [],
      resource_uri: `${API_PREFIX}/ipaddresses/`,
    })),
    resource_records: [],
    resource_uri: `${API_PREFIX}/dnsresources/${r.id}/`,
  };
}

type DnsJson = ReturnType<typeof dnsJson>;

export class DnsResources {
  private readonly records = new Map<number, DnsRecord>();
  private nextId = 1;

  constructor(private readonly places: Places, private readonly clock: SimClock) {}

  snapshot(): SimDnsResource[] {
    return this.sorted([...this.records.values()]).map((r) => ({ id: r.id, fqdn: `${r.name}.${r.domain}`, addressTtl: r.addressTtl, ips: [...r.ips] }));
  }

  // GET /dnsresources/?fqdn=&domain=&name=&rrtype=
  list(params: Params): DnsJson[] {
    let name = params.get('name');
    let domainText = params.get('domain');
    const fqdn = params.get('fqdn');
    const rrtype = params.get('rrtype');
    if (domainText === undefined && name === undefined && fqdn !== undefined) ({ name, domain: domainText } = separateFqdn(fqdn));
    let domain: string | undefined;
    if (domainText !== undefined) {
      domain = this.places.domains.resolve(domainText);
      if (domain === undefined) throw notFound('Domain');
    }
    const found = [...this.records.values()].filter((r) => (domain === undefined || r.domain === domain) && (name === undefined || r.name === name));
    // rrtype selects by the resource's other records (DNSData); these resources have only addresses.
    if (rrtype !== undefined) return [];
    return this.sorted(found).map((r) => dnsJson(r));
  }

  read(idText: string): DnsJson {
    return dnsJson(this.get(idText));
  }

  // POST /dnsresources/ (admin_method)
  create(user: SimUser, params: Params): DnsJson {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const target = this.target(params, undefined);
    const ttl = this.ttl(params, null);
    const ips = this.ips(params, []);
    if (!this.places.domains.has(target.domain)) throw validationError({ domain: ['Select a valid choice. That choice is not one of the available choices.'] });
    this.checkUnique(target.name, target.domain, undefined);
    const record: DnsRecord = { id: this.nextId++, name: target.name, domain: target.domain, addressTtl: ttl, ips, created: new Date(this.clock.now()).toISOString() };
    this.records.set(record.id, record);
    return dnsJson(record);
  }

  // PUT /dnsresources/{id}/
  update(user: SimUser, idText: string, params: Params): DnsJson {
    const record = this.get(idText);
    if (!user.admin) throw forbidden();
    const target = this.target(params, record);
    const ttl = this.ttl(params, record.addressTtl);
    const ips = this.ips(params, record.ips);
    if (!this.places.domains.has(target.domain)) throw validationError({ domain: ['Select a valid choice. That choice is not one of the available choices.'] });
    this.checkUnique(target.name, target.domain, record.id);
    Object.assign(record, { name: target.name, domain: target.domain, addressTtl: ttl, ips });
    return dnsJson(record);
  }

  // DELETE /dnsresources/{id}/
  remove(user: SimUser, idText: string): void {
    const record = this.get(idText);
    if (!user.admin) throw forbidden();
    this.records.delete(record.id);
  }

  private get(idText: string): DnsRecord {
    const record = /^\d+$/.test(idText) ? this.records.get(Number(idText)) : undefined;
    if (!record) throw notFound('DNSResource');
    return record;
  }

  // fqdn counts only when neither name nor domain is given; a missing domain is the default one.
  private target(params: Params, current: DnsRecord | undefined): { name: string; domain: string } {
    let name = params.get('name');
    let domainText = params.get('domain');
    const fqdn = params.get('fqdn');
    if (name === undefined && domainText === undefined && fqdn !== undefined) ({ name, domain: domainText } = separateFqdn(fqdn));
    name ??= current?.name;
    if (name === undefined || name === '') throw validationError({ name: ['This field is required.'] });
    if (!DNS_NAME.test(name)) throw validationError({ name: [`Invalid dnsresource name: ${name}.`] });
    const domain = domainText === undefined ? (current?.domain ?? this.places.defaultDomain) : (this.places.domains.resolve(domainText) ?? domainText);
    return { name, domain };
  }

  private ttl(params: Params, current: number | null): number | null {
    const text = params.get('address_ttl');
    if (text === undefined) return current;
    if (text.trim() === '') return null;
    if (!/^\s*[+-]?\d+\s*$/.test(text)) throw validationError({ address_ttl: ['Enter a whole number.'] });
    const ttl = Number(text.trim());
    if (ttl < 0) throw validationError({ address_ttl: ['Ensure this value is greater than or equal to 0.'] });
    return ttl;
  }

  // Whitespace separated; "" clears the set.
  private ips(params: Params, current: readonly string[]): string[] {
    const text = params.get('ip_addresses');
    if (text === undefined) return [...current];
    const ips = text.split(/\s+/).filter((ip) => ip !== '');
    const bad = ips.find((ip) => isIP(ip) === 0);
    if (bad !== undefined) throw validationError({ ip_addresses: [`'${bad}' is not a valid IP address.`] });
    return [...new Set(ips)];
  }

  private checkUnique(name: string, domain: string, selfId: number | undefined): void {
    for (const r of this.records.values()) {
      if (r.id !== selfId && r.name === name && r.domain === domain) throw validationError({ __all__: ['DNS resource with this Name and Domain already exists.'] });
    }
  }

  private sorted(records: DnsRecord[]): DnsRecord[] {
    const domainId = (d: string) => this.places.domains.id(d);
    return records.sort((a, b) => domainId(a.domain) - domainId(b.domain) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
