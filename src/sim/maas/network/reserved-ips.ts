import { isIP } from 'node:net';
import { badRequest, forbidden, MaasApiError, validationError } from '../http/api-error.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { parseStringBool } from '../http/params.ts';
import { cidrContains, hostRange } from './ipv4.ts';
import { AllocType } from './subnet-ips.ts';

// ipaddresses/ (src/maasserver/api/ip_addresses.py, IPAddressesHandler): addresses a user
// reserves for use outside MAAS (USER_RESERVED StaticIPAddress rows). MAAS hands none of them to
// a machine; a reservation with a hostname also puts the address in that DNS name (released
// with it); release deletes the row. The IP-for-MAC flow (an unknown interface linked to the
// address) keeps the MAC on the reservation but renders no interface.

export interface Reservation {
  readonly id: number;
  readonly ip: string;
  readonly subnetId: number;
  readonly user: string;
  /** ms on the simulator's clock. */
  readonly created: number;
  readonly mac: string | null;
}

/** What the reservations need of the rest of the simulator. */
export interface ReservationWorld {
  readonly now: () => number;
  /** The subnet a specifier names (id, CIDR or name). */
  subnetBySpecifier(text: string): { id: number; cidr: string; gatewayIp: string | null } | undefined;
  /** The most specific subnet an address belongs to (Subnet.objects.get_best_subnet_for_ip). */
  subnetForIp(ip: string): { id: number; cidr: string; gatewayIp: string | null } | undefined;
  subnetJson(id: number): Record<string, unknown> | undefined;
  /** Every address MAAS holds now other than reservations: machines, devices, DNS resources. */
  addressesHeld(): readonly string[];
  /** The addresses inside the subnet's dynamic and reserved ranges: never picked automatically. */
  rangeExcluded(cidr: string): ReadonlySet<string>;
  /** Throws MAAS's 404 for a requested address inside a range (Subnet.validate_static_ip). */
  refuseInRange(ip: string): void;
  /** Hostname of the machine or device whose interface has this MAC, if any. */
  nodeWithMac(mac: string): string | undefined;
  /** Throws MAAS's 404 when "name.domain" names a domain MAAS does not have. */
  checkHostname(hostname: string): void;
  /** The address joins the DNS resource of that name (made when missing). */
  attachName(hostname: string, ip: string): void;
  detachAddress(ip: string): void;
  /** The USER_RESERVED rows DNS resources hold (admin's), for the default listing. */
  dnsReserved(): ReadonlyArray<{ ip: string; created: number }>;
  /** Every address in use with its type, for all=true. */
  allHolders(): ReadonlyArray<{ ip: string; allocType: number; user: string | null; created: number }>;
}

const ALLOC_TYPE_NAMES: Record<number, string> = { 0: 'Automatic', 1: 'Static', 4: 'User reserved', 5: 'DHCP', 6: 'Observed' };
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

// Django's DateTimeField as piston renders it: ISO 8601 with milliseconds, no zone.
function isoLocal(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '');
}

export class ReservedIps {
  private readonly rows = new Map<string, Reservation>();
  private nextId = 1;

  constructor(private readonly world: ReservationWorld) {}

  /** Reserved addresses, for subnet statistics and the fleet's address claims. */
  addresses(): string[] {
    return [...this.rows.keys()];
  }

  snapshot(): Reservation[] {
    return [...this.rows.values()].sort((a, b) => a.id - b.id);
  }

  // POST ipaddresses/ op=reserve: subnet or ip (ip_address the deprecated alias), hostname, mac.
  reserve(user: SimUser, params: Params): Record<string, unknown> {
    const subnetText = params.get('subnet');
    const ip = params.get('ip') ?? params.get('ip_address');
    const hostname = params.get('hostname');
    const mac = params.get('mac');
    // ClaimIPForMACForm: ip_address is a GenericIPAddressField (its MAC field is named
    // mac_address, so the `mac` given is not checked by the form, as in MAAS).
    if (ip !== undefined && ip !== '' && isIP(ip) === 0) throw validationError({ ip_address: ['Enter a valid IPv4 or IPv6 address.'] });
    let subnet: { id: number; cidr: string; gatewayIp: string | null } | undefined;
    const requested = ip === undefined || ip === '' ? undefined : ip;
    if (requested !== undefined) {
      subnet = this.world.subnetForIp(requested);
      if (!subnet) throw badRequest(`No known subnet for IP address: ${requested}.`);
    } else if (subnetText !== undefined) {
      subnet = this.world.subnetBySpecifier(subnetText);
      if (!subnet) throw badRequest(`Unable to identify subnet: ${subnetText}.`);
    } else {
      throw badRequest("Must supply either the 'subnet' or the 'ip' parameter.");
    }
    if (mac !== undefined) {
      if (!MAC.test(mac)) throw validationError({ mac_address: ["'" + mac + "' is not a valid MAC address."] });
      const node = this.world.nodeWithMac(mac);
      if (node !== undefined) throw badRequest(`MAC address ${mac.toLowerCase()} already belongs to ${node}. Use of the interface API is required, for an interface that belongs to a node.`);
    }
    if (hostname !== undefined && hostname !== '') this.world.checkHostname(hostname);
    const held = new Set([...this.world.addressesHeld(), ...this.rows.keys()]);
    let address: string;
    if (requested !== undefined) {
      // StaticIPAddressUnavailable is MAAS's 404, not a 409.
      if (held.has(requested)) throw new MaasApiError(404, `The IP address ${requested} is already in use.`);
      this.world.refuseInRange(requested);
      address = requested;
    } else {
      address = this.freeAddress(subnet.cidr, subnet.gatewayIp, new Set([...held, ...this.world.rangeExcluded(subnet.cidr)]));
    }
    if (hostname !== undefined && hostname !== '') this.world.attachName(hostname, address);
    const row: Reservation = { id: this.nextId++, ip: address, subnetId: subnet.id, user: user.name, created: this.world.now(), mac: mac?.toLowerCase() ?? null };
    this.rows.set(address, row);
    return this.json(row);
  }

  // POST ipaddresses/ op=release: ip required; force (admin) releases any address but a discovered one.
  release(user: SimUser, params: Params): void {
    const ip = params.get('ip');
    if (ip === undefined) throw badRequest('No provided ip!');
    const force = this.flag(params, 'force');
    if (force && !user.admin) throw forbidden('Force-releasing an IP address requires admin privileges.');
    if (isIP(ip) === 0) throw validationError({ ip: ['Enter a valid IPv4 or IPv6 address.'] });
    const row = this.rows.get(ip);
    if (!row || (!force && row.user !== user.name)) {
      throw badRequest(force
        ? `IP address ${ip} does not exist.`
        : `IP address ${ip} does not exist, is not the correct type of address, or does not belong to the requesting user.\nIf you are sure you want to release this address, use force=true as a MAAS administrator.`);
    }
    this.rows.delete(ip);
    // post_delete_clean_up_dns: a DNS resource left without addresses goes too.
    this.world.detachAddress(ip);
  }

  // GET ipaddresses/: the requester's USER_RESERVED addresses; all and owner for admins.
  list(user: SimUser, params: Params): Array<Record<string, unknown>> {
    const all = this.flag(params, 'all');
    const ip = params.get('ip');
    const owner = params.get('owner');
    if (ip !== undefined && isIP(ip) === 0) throw badRequest("Parameter 'ip' must contain an IP address.");
    if (all && !user.admin) throw forbidden('Listing all IP addresses requires admin privileges.');
    if (owner !== undefined && !user.admin) throw forbidden("Listing another user's IP addresses requires admin privileges.");
    const who = owner ?? user.name;
    let out: Array<{ ip: string; allocType: number; user: string | null; created: number; id: number }>;
    if (all) {
      const fromRows = [...this.rows.values()].map((r) => ({ ip: r.ip, allocType: AllocType.userReserved, user: r.user, created: r.created, id: r.id }));
      const taken = new Set(fromRows.map((r) => r.ip));
      const others = this.world.allHolders().filter((h) => !taken.has(h.ip)).map((h, i) => ({ ...h, id: 1_000_000 + i }));
      out = [...fromRows, ...others].filter((r) => owner === undefined || r.user === owner);
    } else {
      const mine = [...this.rows.values()].filter((r) => r.user === who).map((r) => ({ ip: r.ip, allocType: AllocType.userReserved, user: r.user, created: r.created, id: r.id }));
      const taken = new Set(mine.map((r) => r.ip));
      // DNS resources' addresses are USER_RESERVED rows of the admin who made them.
      const dns = who === 'admin' ? this.world.dnsReserved().filter((d) => !taken.has(d.ip)).map((d, i) => ({ ip: d.ip, allocType: AllocType.userReserved, user: 'admin', created: d.created, id: 1_000_000 + i })) : [];
      out = [...mine, ...dns];
    }
    return out.filter((r) => ip === undefined || r.ip === ip).sort((a, b) => a.id - b.id).map((r) => this.render(r.ip, r.allocType, r.user, r.created));
  }

  private json(row: Reservation): Record<string, unknown> {
    return this.render(row.ip, AllocType.userReserved, row.user, row.created);
  }

  private render(ip: string, allocType: number, user: string | null, created: number): Record<string, unknown> {
    const subnet = this.world.subnetForIp(ip);
    return {
      alloc_type: allocType,
      alloc_type_name: ALLOC_TYPE_NAMES[allocType] ?? 'Unknown',
      created: isoLocal(created),
      ip,
      owner: user === null ? null : { username: user, is_superuser: user === 'admin', resource_uri: `/MAAS/api/2.0/users/${user}/` },
      interface_set: [],
      subnet: subnet ? (this.world.subnetJson(subnet.id) ?? null) : null,
      resource_uri: '/MAAS/api/2.0/ipaddresses/',
    };
  }

  private flag(params: Params, key: string): boolean {
    const text = params.get(key);
    if (text === undefined) return false;
    const value = parseStringBool(text);
    if (value === undefined) throw badRequest(`Invalid ${key}: The input is not valid`);
    return value;
  }

  // FreeIPAddress / get_next_ip_for_allocation: the lowest address of the smallest free run, so
  // larger runs stay whole (MAAS's heuristic); the gateway and every held address are not free.
  private freeAddress(cidr: string, gateway: string | null, held: ReadonlySet<string>): string {
    if (isIP(cidr.split('/')[0] ?? '') !== 4) throw new MaasApiError(503, `No more IPs available in subnet: ${cidr}.`);
    const { first, last, toNumber } = hostRange(cidr);
    const used = new Set<number>();
    for (const ip of [...held, ...(gateway ? [gateway] : [])]) if (cidrContains(cidr, ip)) used.add(toNumber(ip));
    let best: { start: number; size: number } | null = null;
    let next = first;
    // The free runs lie between the used addresses, walked in order (a /8 has millions of hosts).
    for (const u of [...used].filter((n) => n >= first && n <= last).sort((a, b) => a - b).concat([last + 1])) {
      const size = u - next;
      if (size > 0 && (!best || size < best.size)) best = { start: next, size };
      next = u + 1;
    }
    if (!best) throw new MaasApiError(503, `No more IPs available in subnet: ${cidr}.`);
    const start = best.start;
    return [24, 16, 8, 0].map((s) => Math.floor(start / 2 ** s) % 256).join('.');
  }
}
