import { badRequest, forbidden, METHOD_RESERVED_ADMIN, MaasApiError, notFound, validationError } from '../http/api-error.ts';
import type { Places } from '../fleet/machine-json.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { DeviceBook } from '../places/devices.ts';
import type { Fabric, NetworkState, Space, Subnet, Vlan } from './network-json.ts';
import { fabricJson, fabricVlans, spaceJson, subnetJson, UNDEFINED_SPACE, vlanJson } from './network-json.ts';
import { cidrContains, hostRange, parseCidr } from './ipv4.ts';
import type { AddressHolder } from './subnet-ips.ts';
import { subnetIpAddresses } from './subnet-ips.ts';
import { subnetStatistics } from './subnet-stats.ts';
import { StaticRoutes } from './static-routes.ts';
import type { UsageInput } from './ip-usage.ts';

// Fabrics, VLANs, spaces and subnets of the simulated MAAS (api/fabrics.py, vlans.py, spaces.py,
// subnets.py). It starts as MAAS 2.0 did after its first rack registered: fabric-0 with its
// untagged VLAN, the default space space-0, and one /24 per zone that the fleet's addresses
// come from (fleet.ts claimAddress: 10.<block>.<zone id>.x, block 10 first). Devices (nodes
// registered by MAC) live here too: they are network things, not machines.

const MODEL_NAME = /^\w[ \w-]*$/;

export class Network {
  private readonly fabrics = new Map<number, Fabric>();
  private readonly vlans = new Map<number, Vlan>();
  private readonly spaces = new Map<number, Space>();
  private readonly subnets = new Map<number, Subnet>();
  // What the renderers read: the same maps.
  private readonly n: NetworkState = { fabrics: this.fabrics, vlans: this.vlans, spaces: this.spaces, subnets: this.subnets };
  private nextFabric = 1;
  // MAAS numbers VLANs from 5001 (the default VLAN of fabric-0 is 5001).
  private nextVlan = 5002;
  private nextSpace = 1;
  private nextSubnet = 1;
  readonly devices: DeviceBook;
  readonly routes: StaticRoutes;
  // Link ids of machines' changed links: apart from commissioning's (nic id × 10) and devices' (from 1,000,000).
  private nextMachineLink = 5_000_000;
  private readonly seen = new Map<string, number>();

  constructor(private readonly places: Places) {
    this.devices = new DeviceBook({ places, net: this, defaultVlanId: () => 5001 });
    this.routes = new StaticRoutes(this);
    this.fabrics.set(0, { id: 0, name: 'fabric-0', classType: null, description: '' });
    this.spaces.set(0, { id: 0, name: 'space-0', description: '' });
    this.vlans.set(5001, { id: 5001, fabricId: 0, vid: 0, name: null, mtu: 1500, dhcpOn: true, spaceId: 0, description: '' });
  }

  /** The subnet an address of a machine's interface link belongs to, as MAAS renders it in `links[].subnet`. */
  subnetForAddress(ip: string): Record<string, unknown> | undefined {
    const subnet = this.findSubnetFor(ip);
    return subnet ? subnetJson(this.n, subnet) : undefined;
  }

  /** The subnet an address belongs to, as reservations need it; undefined outside every subnet. */
  subnetOfAddress(ip: string): { id: number; cidr: string; vlanId: number; gatewayIp: string | null } | undefined {
    const s = this.findSubnetFor(ip);
    return s ? { id: s.id, cidr: s.cidr, vlanId: s.vlanId, gatewayIp: s.gatewayIp } : undefined;
  }

  /** A subnet the fleet's NICs are cabled to: made on first use, on the default VLAN, as a zone's is. */
  ensureSubnet(cidrText: string): void {
    const cidr = parseCidr(cidrText);
    if (cidr === undefined || [...this.subnets.values()].some((s) => s.cidr === cidr)) return;
    this.ensureZoneSubnets();
    const subnet: Subnet = { id: this.nextSubnet++, name: cidr, cidr, vlanId: 5001, spaceId: 0, gatewayIp: hostRange(cidr).firstText, dnsServers: [], description: '' };
    this.subnets.set(subnet.id, subnet);
  }

  /** The VLAN a machine in `zone` sits on (its zone subnet's), as vlans/ renders it. */
  vlanForZone(zone: string): Record<string, unknown> | undefined {
    const id = this.places.zones.id(zone);
    if (id < 0) return undefined;
    const subnet = this.findSubnetFor(`10.10.${id}.1`);
    const vlan = subnet ? this.vlans.get(subnet.vlanId) : undefined;
    return vlan ? vlanJson(this.n, vlan) : undefined;
  }

  // GET /subnets/{id}/?op=ip_addresses; `holders`: every address in use and who holds it.
  ipAddresses(idText: string, holders: readonly AddressHolder[], params: Params): ReturnType<typeof subnetIpAddresses> {
    return subnetIpAddresses(this.subnet(idText).cidr, holders, params);
  }

  /** When the network model first saw an address in use (machine addresses carry no time of their own). */
  firstSeen(ip: string, now: number): number {
    const known = this.seen.get(ip);
    if (known !== undefined) return known;
    this.seen.set(ip, now);
    return now;
  }

  // --- what device interfaces read (NicNetwork) ---
  vlanJsonById(id: number): Record<string, unknown> | undefined {
    const vlan = this.vlans.get(id);
    return vlan ? vlanJson(this.n, vlan) : undefined;
  }

  subnetInfo(idText: string): { id: number; cidr: string; vlanId: number; gatewayIp: string | null } | undefined {
    try {
      const s = this.subnet(idText);
      return { id: s.id, cidr: s.cidr, vlanId: s.vlanId, gatewayIp: s.gatewayIp };
    } catch {
      return undefined;
    }
  }

  /**
   * Subnet.objects.filter_by_specifiers, as allocate's subnets/not_subnets read it: the ids of the
   * subnets the specifiers name (type:value with type id, cidr, name, space, vlan, vid, fabric or
   * ip; a bare value is a CIDR, else an id or a name); undefined when one is malformed.
   */
  subnetIdsBySpecifiers(specs: readonly string[]): Set<number> | undefined {
    this.ensureZoneSubnets();
    const all = [...this.subnets.values()];
    const ids = new Set<number>();
    for (const spec of specs) {
      const at = spec.indexOf(':');
      const type = at < 0 ? '' : spec.slice(0, at);
      const value = at < 0 ? spec : spec.slice(at + 1);
      const test = this.subnetTest(type, value);
      if (test === undefined) return undefined;
      for (const subnet of all) if (test(subnet)) ids.add(subnet.id);
    }
    return ids;
  }

  private subnetTest(type: string, value: string): ((s: Subnet) => boolean) | undefined {
    const vlanOf = (s: Subnet) => this.vlans.get(s.vlanId);
    const byIdOrName = (s: Subnet) => String(s.id) === value || s.name === value;
    switch (type) {
      case '': {
        const cidr = value.includes('/') ? parseCidr(value) : undefined;
        return cidr !== undefined ? (s) => s.cidr === cidr : byIdOrName;
      }
      case 'id':
        return (s) => String(s.id) === value;
      case 'cidr': {
        const cidr = parseCidr(value);
        return (s) => s.cidr === cidr;
      }
      case 'name':
        return (s) => s.name === value;
      case 'space':
        return (s) => subnetJson(this.n, s).space === value || String(vlanOf(s)?.spaceId ?? s.spaceId) === value;
      case 'vlan':
        return (s) => String(s.vlanId) === value;
      case 'vid':
        return (s) => String(vlanOf(s)?.vid) === value;
      case 'fabric':
        return (s) => {
          const fabric = this.fabrics.get(vlanOf(s)?.fabricId ?? -1);
          return fabric !== undefined && (String(fabric.id) === value || fabric.name === value);
        };
      case 'ip':
        return (s) => cidrContains(s.cidr, value);
      default:
        return undefined;
    }
  }

  nextLinkId(): number {
    return this.nextMachineLink++;
  }

  /** The id of the subnet a machine of `zone` is on (its zone's first /24), for machine links. */
  zoneSubnetId(zone: string): number | null {
    const id = this.places.zones.id(zone);
    return id < 0 ? null : (this.findSubnetFor(`10.10.${id}.1`)?.id ?? null);
  }

  subnetJsonById(id: number): Record<string, unknown> | undefined {
    const subnet = this.subnets.get(id);
    return subnet ? subnetJson(this.n, subnet) : undefined;
  }

  // --- fabrics/ ---
  listFabrics(): unknown[] {
    return [...this.fabrics.values()].sort((a, b) => a.id - b.id).map((f) => fabricJson(this.n, f));
  }

  readFabric(idText: string): unknown {
    return fabricJson(this.n, this.fabric(idText));
  }

  // POST /fabrics/ (admin_method): a new fabric comes with its untagged VLAN.
  createFabric(user: SimUser, params: Params): unknown {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const id = this.nextFabric++;
    const name = params.get('name') || `fabric-${id}`;
    if ([...this.fabrics.values()].some((f) => f.name === name)) throw validationError({ name: ['Fabric with this Name already exists.'] });
    const fabric: Fabric = { id, name, classType: params.get('class_type') || null, description: params.get('description') ?? '' };
    this.fabrics.set(id, fabric);
    const vlanId = this.nextVlan++;
    this.vlans.set(vlanId, { id: vlanId, fabricId: id, vid: 0, name: null, mtu: 1500, dhcpOn: false, spaceId: null, description: '' });
    return fabricJson(this.n, fabric);
  }

  // PUT /fabrics/{id}/ (admin): name, class_type, description.
  updateFabric(user: SimUser, idText: string, params: Params): unknown {
    const fabric = this.fabric(idText);
    if (!user.admin) throw forbidden();
    const name = params.get('name');
    if (name !== undefined && name !== '' && name !== fabric.name && [...this.fabrics.values()].some((f) => f.name === name)) throw validationError({ name: ['Fabric with this Name already exists.'] });
    if (name !== undefined && name !== '') fabric.name = name;
    const classType = params.get('class_type');
    if (classType !== undefined) fabric.classType = classType === '' ? null : classType;
    const description = params.get('description');
    if (description !== undefined) fabric.description = description;
    return fabricJson(this.n, fabric);
  }

  // DELETE /fabrics/{id}/: fabric-0 is MAAS's default and cannot go.
  deleteFabric(user: SimUser, idText: string): void {
    const fabric = this.fabric(idText);
    if (!user.admin) throw forbidden();
    if (fabric.id === 0) throw badRequest(`This fabric is the default fabric, it cannot be deleted.`);
    const vlanIds = [...this.vlans.values()].filter((v) => v.fabricId === fabric.id).map((v) => v.id);
    const onIt = [...this.subnets.values()].filter((s) => vlanIds.includes(s.vlanId)).map((s) => s.cidr).sort();
    if (onIt.length > 0) throw badRequest(`Can't delete fabric; the following subnets are still present: ${onIt.join(', ')}`);
    for (const id of vlanIds) this.vlans.delete(id);
    this.fabrics.delete(fabric.id);
  }

  // --- vlans ---
  listVlans(fabricText: string): unknown[] {
    const fabric = this.fabric(fabricText);
    return this.fabricVlans(fabric.id).map((v) => vlanJson(this.n, v));
  }

  /** fabrics/{fabric}/vlans/{vid}/ or vlans/{id}/ (fabric undefined). */
  readVlan(fabricText: string | undefined, vidText: string): unknown {
    return vlanJson(this.n, this.vlan(fabricText, vidText));
  }

  // POST /fabrics/{id}/vlans/ (admin): vid required, unique on the fabric.
  createVlan(user: SimUser, fabricText: string, params: Params): unknown {
    const fabric = this.fabric(fabricText);
    if (!user.admin) throw forbidden();
    const vidText = params.get('vid') ?? '';
    if (vidText === '') throw validationError({ vid: ['This field is required.'] });
    if (!/^\d+$/.test(vidText)) throw validationError({ vid: ['Enter a whole number.'] });
    const vid = Number(vidText);
    if (vid < 1 || vid > 4094) throw validationError({ vid: ['VID must be between 0 and 4094.'] });
    if (this.fabricVlans(fabric.id).some((v) => v.vid === vid)) throw validationError({ __all__: ['VLAN with this Vid and Fabric already exists.'] });
    const mtu = Number(params.get('mtu') ?? '1500');
    const id = this.nextVlan++;
    const vlan: Vlan = { id, fabricId: fabric.id, vid, name: params.get('name') || null, mtu: Number.isInteger(mtu) ? mtu : 1500, dhcpOn: false, spaceId: this.spaceIdFor(params.get('space')), description: params.get('description') ?? '' };
    this.vlans.set(id, vlan);
    return vlanJson(this.n, vlan);
  }

  // PUT a VLAN (admin): name, mtu, space, description.
  updateVlan(user: SimUser, fabricText: string | undefined, vidText: string, params: Params): unknown {
    const vlan = this.vlan(fabricText, vidText);
    if (!user.admin) throw forbidden();
    const mtuText = params.get('mtu');
    if (mtuText !== undefined && !/^\d+$/.test(mtuText.trim())) throw validationError({ mtu: ['Enter a whole number.'] });
    const mtu = mtuText === undefined ? vlan.mtu : Number(mtuText.trim());
    if (mtu < 552 || mtu > 65535) throw validationError({ mtu: [mtu < 552 ? 'Ensure this value is greater than or equal to 552.' : 'Ensure this value is less than or equal to 65535.'] });
    const spaceText = params.get('space');
    const spaceId = spaceText === undefined ? vlan.spaceId : this.spaceIdFor(spaceText);
    const name = params.get('name');
    if (name !== undefined) vlan.name = name === '' ? null : name;
    const description = params.get('description');
    if (description !== undefined) vlan.description = description;
    vlan.mtu = mtu;
    if (spaceId !== vlan.spaceId) {
      // A VLAN's subnets are in its space.
      vlan.spaceId = spaceId;
      for (const s of this.subnets.values()) if (s.vlanId === vlan.id) s.spaceId = spaceId;
    }
    return vlanJson(this.n, vlan);
  }

  // DELETE a VLAN (admin): not a fabric's untagged one; its subnets move to that one
  // (VLAN.manage_connected_subnets).
  deleteVlan(user: SimUser, fabricText: string | undefined, vidText: string): void {
    const vlan = this.vlan(fabricText, vidText);
    if (!user.admin) throw forbidden();
    if (vlan.vid === 0) throw badRequest('This VLAN is the default VLAN in the fabric, it cannot be deleted.');
    const untagged = this.fabricVlans(vlan.fabricId).find((v) => v.vid === 0);
    for (const s of this.subnets.values()) if (s.vlanId === vlan.id && untagged) s.vlanId = untagged.id;
    this.vlans.delete(vlan.id);
  }

  // --- spaces/ ---
  listSpaces(): unknown[] {
    return [...this.spaces.values()].sort((a, b) => a.id - b.id).map((s) => this.spaceOut(s));
  }

  readSpace(idText: string): unknown {
    return this.spaceOut(this.space(idText));
  }

  // POST /spaces/ (admin_method).
  createSpace(user: SimUser, params: Params): unknown {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const id = this.nextSpace++;
    const name = params.get('name') || `space-${id}`;
    if (!MODEL_NAME.test(name)) throw validationError({ name: ['Enter a valid value.'] });
    if ([...this.spaces.values()].some((s) => s.name === name)) throw validationError({ name: ['Space with this Name already exists.'] });
    const space: Space = { id, name, description: params.get('description') ?? '' };
    this.spaces.set(id, space);
    return this.spaceOut(space);
  }

  // PUT /spaces/{id}/ (admin): name, description.
  updateSpace(user: SimUser, idText: string, params: Params): unknown {
    if (idText === '-1' || idText === UNDEFINED_SPACE) throw badRequest(`Space cannot be modified: ${UNDEFINED_SPACE}`);
    const space = this.space(idText);
    if (!user.admin) throw forbidden();
    const name = params.get('name');
    if (name !== undefined && name !== '' && name !== space.name) {
      if (!MODEL_NAME.test(name)) throw validationError({ name: ['Enter a valid value.'] });
      if ([...this.spaces.values()].some((s) => s.name === name)) throw validationError({ name: ['Space with this Name already exists.'] });
      space.name = name;
    }
    const description = params.get('description');
    if (description !== undefined) space.description = description;
    return this.spaceOut(space);
  }

  // DELETE /spaces/{id}/: its VLANs and subnets are left in no space ("undefined").
  deleteSpace(user: SimUser, idText: string): void {
    if (idText === '-1' || idText === UNDEFINED_SPACE) throw badRequest(`Space cannot be deleted: ${UNDEFINED_SPACE}`);
    const space = this.space(idText);
    if (!user.admin) throw forbidden();
    if (space.id === 0) throw badRequest('This space is the default space, it cannot be deleted.');
    for (const v of this.vlans.values()) if (v.spaceId === space.id) v.spaceId = null;
    for (const s of this.subnets.values()) if (s.spaceId === space.id) s.spaceId = null;
    this.spaces.delete(space.id);
  }

  // --- subnets/ ---
  listSubnets(): unknown[] {
    this.ensureZoneSubnets();
    return [...this.subnets.values()].sort((a, b) => a.id - b.id).map((s) => subnetJson(this.n, s));
  }

  readSubnet(idText: string): Record<string, unknown> {
    return subnetJson(this.n, this.subnet(idText));
  }

  // GET /subnets/{id}/?op=statistics; `inUse`: the addresses machines and DNS resources hold.
  /** What subnets/{id}/ op=reserved_ip_ranges and op=unreserved_ip_ranges read (ip-usage.ts). */
  usageInput(idText: string, assigned: readonly string[], ranges: UsageInput['ranges']): UsageInput {
    const s = this.subnet(idText);
    return { cidr: s.cidr, gatewayIp: s.gatewayIp, dnsServers: s.dnsServers, assigned, ranges };
  }

  statistics(idText: string, inUse: readonly string[]): ReturnType<typeof subnetStatistics> {
    const subnet = this.subnet(idText);
    return subnetStatistics(subnet.cidr, subnet.gatewayIp, inUse);
  }

  // POST /subnets/ (admin_method): cidr required; vlan by id, or fabric + vid; default fabric-0 untagged.
  createSubnet(user: SimUser, params: Params): Record<string, unknown> {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const cidrText = params.get('cidr') ?? '';
    if (cidrText === '') throw validationError({ cidr: ['This field is required.'] });
    const cidr = parseCidr(cidrText);
    if (cidr === undefined) throw validationError({ cidr: ['Required format: <network>/<prefixlen>.'] });
    if ([...this.subnets.values()].some((s) => s.cidr === cidr)) throw validationError({ cidr: ['Subnet with this Cidr already exists.'] });
    const vlan = this.vlanForCreate(params);
    const gateway = params.get('gateway_ip') || null;
    if (gateway !== null && !cidrContains(cidr, gateway)) throw validationError({ gateway_ip: ['Gateway IP must be within CIDR range.'] });
    const subnet: Subnet = {
      id: this.nextSubnet++,
      name: params.get('name') || cidr,
      cidr,
      vlanId: vlan.id,
      spaceId: vlan.spaceId,
      gatewayIp: gateway,
      dnsServers: (params.get('dns_servers') ?? '').split(/[\s,]+/).filter((d) => d !== ''),
      description: params.get('description') ?? '',
    };
    this.subnets.set(subnet.id, subnet);
    return subnetJson(this.n, subnet);
  }

  // PUT /subnets/{id}/ (admin): name, description, gateway_ip, dns_servers.
  updateSubnet(user: SimUser, idText: string, params: Params): Record<string, unknown> {
    const subnet = this.subnet(idText);
    if (!user.admin) throw forbidden();
    const gateway = params.get('gateway_ip');
    if (gateway !== undefined && gateway !== '' && !cidrContains(subnet.cidr, gateway)) throw validationError({ gateway_ip: ['Gateway IP must be within CIDR range.'] });
    const name = params.get('name');
    if (name !== undefined && name !== '') subnet.name = name;
    const description = params.get('description');
    if (description !== undefined) subnet.description = description;
    if (gateway !== undefined) subnet.gatewayIp = gateway === '' ? null : gateway;
    const dns = params.get('dns_servers');
    if (dns !== undefined) subnet.dnsServers = dns.split(/[\s,]+/).filter((d) => d !== '');
    return subnetJson(this.n, subnet);
  }

  // DELETE /subnets/{id}/ (admin).
  deleteSubnet(user: SimUser, idText: string): void {
    const subnet = this.subnet(idText);
    if (!user.admin) throw forbidden();
    this.subnets.delete(subnet.id);
    this.routes.dropSubnet(subnet.id);
  }

  // --- lookups ---
  private findSubnetFor(ip: string): Subnet | undefined {
    this.ensureZoneSubnets();
    for (const s of this.subnets.values()) if (cidrContains(s.cidr, ip)) return s;
    // A zone that filled 10.10.<zone>.0/24 goes on in 10.11.<zone>.0/24 and further.
    const m = /^10\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(ip);
    if (!m) return undefined;
    const zoneId = Number(m[2]);
    if (!this.places.zones.names().some((z) => this.places.zones.id(z) === zoneId)) return undefined;
    return this.addZoneSubnet(`10.${m[1] ?? '10'}.${zoneId}.0/24`);
  }

  private ensureZoneSubnets(): void {
    for (const zone of this.places.zones.names()) {
      const id = this.places.zones.id(zone);
      if (id < 0 || id > 255) continue;
      const cidr = `10.10.${id}.0/24`;
      if (![...this.subnets.values()].some((s) => s.cidr === cidr)) this.addZoneSubnet(cidr);
    }
  }

  private addZoneSubnet(cidr: string): Subnet {
    const gateway = cidr.replace(/0\/24$/, '1');
    const subnet: Subnet = { id: this.nextSubnet++, name: cidr, cidr, vlanId: 5001, spaceId: 0, gatewayIp: gateway, dnsServers: [], description: '' };
    this.subnets.set(subnet.id, subnet);
    return subnet;
  }

  private fabric(text: string): Fabric {
    const t = text.trim();
    const fabric = /^\d+$/.test(t) ? this.fabrics.get(Number(t)) : [...this.fabrics.values()].find((f) => f.name === t);
    if (!fabric) throw notFound('Fabric');
    return fabric;
  }

  private fabricVlans(fabricId: number): Vlan[] {
    return fabricVlans(this.n, fabricId);
  }

  private spaceOut(space: Space) {
    this.ensureZoneSubnets();
    return spaceJson(this.n, space);
  }

  private vlan(fabricText: string | undefined, vidText: string): Vlan {
    if (fabricText === undefined) {
      const vlan = /^\d+$/.test(vidText) ? this.vlans.get(Number(vidText)) : undefined;
      if (!vlan) throw new MaasApiError(404, 'VLAN with specified ID does not exist.');
      return vlan;
    }
    const fabric = this.fabric(fabricText);
    const vlan = this.fabricVlans(fabric.id).find((v) => String(v.vid) === vidText.trim() || v.name === vidText.trim());
    if (!vlan) throw notFound('VLAN');
    return vlan;
  }

  private vlanForCreate(params: Params): Vlan {
    const vlanText = params.get('vlan');
    const fabricText = params.get('fabric');
    const vidText = params.get('vid');
    if (vlanText !== undefined && vlanText !== '') {
      const vlan = /^\d+$/.test(vlanText) ? this.vlans.get(Number(vlanText)) : undefined;
      if (!vlan) throw validationError({ vlan: ['Select a valid choice. That choice is not one of the available choices.'] });
      return vlan;
    }
    const fabric = fabricText !== undefined && fabricText !== '' ? this.fabric(fabricText) : this.fabrics.get(0);
    const vid = vidText !== undefined && vidText !== '' ? Number(vidText) : 0;
    const vlan = fabric ? this.fabricVlans(fabric.id).find((v) => v.vid === vid) : undefined;
    if (!vlan) throw validationError({ vid: [`No VLAN with vid ${vidText ?? '0'} in fabric ${fabric?.name ?? ''}.`] });
    return vlan;
  }

  private space(text: string): Space {
    const t = text.trim();
    const space = /^\d+$/.test(t) ? this.spaces.get(Number(t)) : [...this.spaces.values()].find((s) => s.name === t);
    if (!space) throw notFound('Space');
    return space;
  }

  private spaceIdFor(text: string | undefined): number | null {
    if (text === undefined || text === '' || text === UNDEFINED_SPACE) return null;
    return this.space(text).id;
  }

  private subnet(text: string): Subnet {
    const t = text.trim();
    if (/^\d+$/.test(t)) {
      const s = this.subnets.get(Number(t));
      if (s) return s;
    }
    this.ensureZoneSubnets();
    // MAAS also takes the CIDR or the name as the subnet specifier.
    const found = [...this.subnets.values()].find((s) => s.cidr === t || s.name === t);
    if (!found) throw notFound('Subnet');
    return found;
  }
}
