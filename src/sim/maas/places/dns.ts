import { isIP } from 'node:net';
import { badRequest, forbidden, METHOD_RESERVED_ADMIN, notFound, validationError } from '../http/api-error.ts';
import type { SimClock } from '../clock.ts';
import type { DnsData } from './dns-data.ts';
import { checkRrdata, checkRrtype, CNAME_AND_OTHER_MSG, dnsDataJson, MULTI_CNAME_MSG, readDataTtl } from './dns-data.ts';
import type { Places } from '../fleet/machine-json.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';

// DNS resources (src/maasserver/api/dnsresources.py): a name in a domain with address records.
// The addresses become USER_RESERVED static IPs; PUT replaces the whole set (capmaas.md §3.2).
// Other records (CNAME, MX, TXT, ...) hang off a resource as DNSData (api/dnsresourcerecords.py).

interface DnsRecord {
  readonly id: number;
  name: string;
  domain: string;
  addressTtl: number | null;
  ips: string[];
  readonly created: string;
  readonly data: DnsData[];
}

/** A copy of a DNS resource as tests and the CLI see it. */
export interface SimDnsResource {
  id: number;
  fqdn: string;
  addressTtl: number | null;
  ips: string[];
}

const DNS_NAME = /^([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?|@|\*)$/i;

// separate_fqdn: a domain's own name is its '@'; an SRV name is two labels (_service._proto);
// otherwise the first label is the name and the rest the domain.
function separateFqdn(fqdn: string, places: Places, rrtype?: string): { name: string; domain: string | undefined } {
  if (places.domains.has(fqdn)) return { name: '@', domain: fqdn };
  const srv = rrtype?.toUpperCase() === 'SRV' ? /^(_[^.]+\._[^.]+)\.(.+)$/.exec(fqdn) : null;
  if (srv) return { name: srv[1] ?? '', domain: srv[2] };
  const dot = fqdn.indexOf('.');
  return dot === -1 ? { name: fqdn, domain: undefined } : { name: fqdn.slice(0, dot), domain: fqdn.slice(dot + 1) };
}

function fqdnOf(r: DnsRecord): string {
  return r.name === '@' ? r.domain : `${r.name}.${r.domain}`;
}

/** The subnet an address belongs to as MAAS renders it (Subnet.objects.get_best_subnet_for_ip), if any. */
export type SubnetJsonFor = (ip: string) => Record<string, unknown> | undefined;

// Each address is a USER_RESERVED StaticIPAddress row with the subnet it falls in
// (DNSResourceForm.save), rendered with IPAddressesHandler's fields as ipaddresses/ renders it:
// `created` a naive Django DateTimeField (no zone), `subnet` the subnet object or null.
function dnsJson(r: DnsRecord, subnetJsonFor: SubnetJsonFor) {
  return {
    id: r.id,
    fqdn: fqdnOf(r),
    address_ttl: r.addressTtl,
    ip_addresses: r.ips.map((ip) => ({
      alloc_type: 4,
      alloc_type_name: 'User reserved',
      created: r.created.replace(/Z$/, ''),
      ip,
      owner: { username: 'admin', is_superuser: true, resource_uri: `${API_PREFIX}/users/admin/` },
      interface_set: [],
      subnet: subnetJsonFor(ip) ?? null,
      resource_uri: `${API_PREFIX}/ipaddresses/`,
    })),
    resource_records: r.data.map((d) => dnsDataJson(d, fqdnOf(r))),
    resource_uri: `${API_PREFIX}/dnsresources/${r.id}/`,
  };
}

type DnsJson = ReturnType<typeof dnsJson>;
type DnsDataJson = ReturnType<typeof dnsDataJson>;

export class DnsResources {
  private readonly records = new Map<number, DnsRecord>();
  private nextId = 1;
  private nextDataId = 1;

  constructor(private readonly places: Places, private readonly clock: SimClock, private readonly subnetJsonFor: SubnetJsonFor = () => undefined) {}

  snapshot(): SimDnsResource[] {
    return this.sorted([...this.records.values()]).map((r) => ({ id: r.id, fqdn: fqdnOf(r), addressTtl: r.addressTtl, ips: [...r.ips] }));
  }

  // The list filters of both resources: name and domain, or an fqdn split as MAAS splits it.
  private listQuery(params: Params): { name: string | undefined; domain: string | undefined; rrtype: string | undefined } {
    let name = params.get('name');
    let domainText = params.get('domain');
    const fqdn = params.get('fqdn');
    const rrtype = params.get('rrtype');
    if (domainText === undefined && name === undefined && fqdn !== undefined) ({ name, domain: domainText } = separateFqdn(fqdn, this.places, rrtype));
    return { name, domain: domainText === undefined ? undefined : this.domainOr404(domainText), rrtype };
  }

  // GET /dnsresources/?fqdn=&domain=&name=&rrtype=
  list(params: Params): DnsJson[] {
    const { name, domain, rrtype } = this.listQuery(params);
    const found = [...this.records.values()].filter((r) => (domain === undefined || r.domain === domain) && (name === undefined || r.name === name));
    // rrtype selects by the resource's other records (filter(dnsdata__rrtype=...), exact): an
    // address-only resource has none, so rrtype=A finds nothing, as in MAAS without all=true.
    const hasType = (r: DnsRecord) => rrtype === undefined || r.data.some((d) => d.rrtype === rrtype);
    return this.sorted(found.filter(hasType)).map((r) => dnsJson(r, this.subnetJsonFor));
  }

  /** Each address a DNS resource holds, for subnets' op=ip_addresses (created: ms on the clock). */
  addressHolders(): Array<{ id: number; name: string; domain: string; ip: string; created: number }> {
    return [...this.records.values()].flatMap((r) => r.ips.map((ip) => ({ id: r.id, name: r.name, domain: r.domain, ip, created: Date.parse(r.created) })));
  }

  /**
   * Where a reserved address with this hostname goes (ip_addresses.py _claim_ip): "name.domain"
   * names its domain (404 when MAAS has none), a bare name the default domain.
   */
  reservedName(hostname: string): { name: string; domain: string } {
    const dot = hostname.indexOf('.');
    if (dot <= 0) return { name: hostname, domain: this.places.defaultDomain };
    const domain = this.places.domains.resolve(hostname.slice(dot + 1));
    if (domain === undefined) throw notFound('Domain');
    return { name: hostname.slice(0, dot), domain };
  }

  /** DNSResource.objects.get_or_create(name, domain).ip_addresses.add(ip). */
  addReserved(target: { name: string; domain: string }, ip: string): void {
    if (!DNS_NAME.test(target.name)) throw validationError({ name: [`Invalid dnsresource name: ${target.name}.`] });
    let record = [...this.records.values()].find((r) => r.name === target.name && r.domain === target.domain);
    if (!record) {
      record = { id: this.nextId++, name: target.name, domain: target.domain, addressTtl: null, ips: [], created: new Date(this.clock.now()).toISOString(), data: [] };
      this.records.set(record.id, record);
    }
    if (!record.ips.includes(ip)) record.ips.push(ip);
  }

  /** A released address leaves every resource; one left with no address and no record goes (post_delete_clean_up_dns). */
  dropAddress(ip: string): void {
    for (const r of [...this.records.values()]) {
      if (!r.ips.includes(ip)) continue;
      r.ips = r.ips.filter((a) => a !== ip);
      if (r.ips.length === 0) this.records.delete(r.id);
    }
  }

  /** Addresses and records in a domain: its resource_record_count. */
  countInDomain(domain: string): number {
    let n = 0;
    for (const r of this.records.values()) if (r.domain === domain) n += r.ips.length + r.data.length;
    return n;
  }

  renameDomain(from: string, to: string): void {
    for (const r of this.records.values()) if (r.domain === from) r.domain = to;
  }

  /** A deleted domain takes its DNS resources along (on_delete=CASCADE). */
  dropDomain(domain: string): void {
    for (const r of [...this.records.values()]) if (r.domain === domain) this.records.delete(r.id);
  }

  // GET /dnsresourcerecords/?fqdn=&domain=&name=&rrtype=
  listData(params: Params): DnsDataJson[] {
    const { name, domain, rrtype } = this.listQuery(params);
    const out: DnsDataJson[] = [];
    for (const r of this.sorted([...this.records.values()])) {
      if ((domain !== undefined && r.domain !== domain) || (name !== undefined && r.name !== name)) continue;
      for (const d of r.data) if (rrtype === undefined || d.rrtype === rrtype) out.push(dnsDataJson(d, fqdnOf(r)));
    }
    return out;
  }

  readData(idText: string): DnsDataJson {
    const { record, data } = this.getData(idText);
    return dnsDataJson(data, fqdnOf(record));
  }

  // POST /dnsresourcerecords/ (admin_method): the DNS resource is made when the name is new.
  createData(user: SimUser, params: Params): DnsDataJson {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const rrtypeText = params.get('rrtype');
    const rrdata = params.get('rrdata');
    if (rrtypeText === undefined) throw badRequest('rrtype must be provided.');
    if (rrdata === undefined) throw badRequest('rrdata must be provided.');
    let name = params.get('name');
    let domainText = params.get('domain');
    const fqdn = params.get('fqdn');
    if (domainText === undefined && name === undefined && fqdn !== undefined) ({ name, domain: domainText } = separateFqdn(fqdn, this.places, rrtypeText));
    const domain = domainText === undefined ? undefined : this.domainOr404(domainText);
    if (domain === undefined || name === undefined) throw validationError({ __all__: ['Either name and domain (or fqdn) must be specified'] });
    const rrtype = checkRrtype(rrtypeText);
    checkRrdata(rrtype, rrdata);
    const ttl = readDataTtl(params.get('ttl'), null);
    let record = [...this.records.values()].find((r) => r.name === name && r.domain === domain);
    const cnames = record?.data.filter((d) => d.rrtype === 'CNAME').length ?? 0;
    const others = (record?.data.length ?? 0) - cnames + (record?.ips.length ?? 0);
    if (rrtype === 'CNAME' && others > 0) throw validationError({ __all__: [CNAME_AND_OTHER_MSG] });
    if (rrtype === 'CNAME' && cnames > 0) throw validationError({ __all__: [MULTI_CNAME_MSG] });
    if (rrtype !== 'CNAME' && cnames > 0) throw validationError({ __all__: [CNAME_AND_OTHER_MSG] });
    if (record === undefined) {
      if (!DNS_NAME.test(name) && name !== '@' && !/^_[^.]+\._[^.]+$/.test(name)) throw validationError({ name: [`Invalid dnsresource name: ${name}.`] });
      record = { id: this.nextId++, name, domain, addressTtl: null, ips: [], created: new Date(this.clock.now()).toISOString(), data: [] };
      this.records.set(record.id, record);
    }
    const data: DnsData = { id: this.nextDataId++, rrtype, rrdata, ttl };
    record.data.push(data);
    return dnsDataJson(data, fqdnOf(record));
  }

  // PUT /dnsresourcerecords/{id}/: 404, then NodePermission.admin; rrtype, rrdata, ttl.
  updateData(user: SimUser, idText: string, params: Params): DnsDataJson {
    const { record, data } = this.getData(idText);
    if (!user.admin) throw forbidden();
    const rrtype = checkRrtype(params.get('rrtype') ?? data.rrtype);
    const rrdata = params.get('rrdata') ?? data.rrdata;
    checkRrdata(rrtype, rrdata);
    const ttl = readDataTtl(params.get('ttl'), data.ttl);
    Object.assign(data, { rrtype, rrdata, ttl });
    return dnsDataJson(data, fqdnOf(record));
  }

  // DELETE /dnsresourcerecords/{id}/: a resource left with neither records nor addresses goes too.
  removeData(user: SimUser, idText: string): void {
    const { record, data } = this.getData(idText);
    if (!user.admin) throw forbidden();
    record.data.splice(record.data.indexOf(data), 1);
    if (record.data.length === 0 && record.ips.length === 0) this.records.delete(record.id);
  }

  private getData(idText: string): { record: DnsRecord; data: DnsData } {
    if (/^\d+$/.test(idText)) {
      const id = Number(idText);
      for (const record of this.records.values()) {
        const data = record.data.find((d) => d.id === id);
        if (data) return { record, data };
      }
    }
    throw notFound('DNSData');
  }

  // A domain given by name or id; a missing one is 404 (get_domain_or_404).
  private domainOr404(text: string): string {
    const domain = this.places.domains.resolve(text);
    if (domain === undefined) throw notFound('Domain');
    return domain;
  }

  read(idText: string): DnsJson {
    return dnsJson(this.get(idText), this.subnetJsonFor);
  }

  // POST /dnsresources/ (admin_method)
  create(user: SimUser, params: Params): DnsJson {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const target = this.target(params, undefined);
    const ttl = this.ttl(params, null);
    const ips = this.ips(params, []);
    if (!this.places.domains.has(target.domain)) throw validationError({ domain: ['Select a valid choice. That choice is not one of the available choices.'] });
    this.checkUnique(target.name, target.domain, undefined);
    const record: DnsRecord = { id: this.nextId++, name: target.name, domain: target.domain, addressTtl: ttl, ips, created: new Date(this.clock.now()).toISOString(), data: [] };
    this.records.set(record.id, record);
    return dnsJson(record, this.subnetJsonFor);
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
    return dnsJson(record, this.subnetJsonFor);
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
    if (name === undefined && domainText === undefined && fqdn !== undefined) ({ name, domain: domainText } = separateFqdn(fqdn, this.places));
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
