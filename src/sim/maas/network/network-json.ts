import { API_PREFIX } from '../fleet/machine-json.ts';

// The network model's rows and how MAAS renders them (DISPLAYED_FABRIC_FIELDS, DISPLAYED_VLAN_FIELDS,
// DISPLAYED_SPACE_FIELDS, DISPLAYED_SUBNET_FIELDS, each with its resource_uri).

export interface Fabric {
  readonly id: number;
  name: string;
  classType: string | null;
  description: string;
}

export interface Vlan {
  readonly id: number;
  readonly fabricId: number;
  readonly vid: number;
  name: string | null;
  mtu: number;
  dhcpOn: boolean;
  spaceId: number | null;
  description: string;
}

export interface Space {
  readonly id: number;
  name: string;
  description: string;
}

export interface Subnet {
  readonly id: number;
  name: string;
  readonly cidr: string;
  vlanId: number;
  spaceId: number | null;
  gatewayIp: string | null;
  dnsServers: string[];
  description: string;
}

export interface NetworkState {
  readonly fabrics: ReadonlyMap<number, Fabric>;
  readonly vlans: ReadonlyMap<number, Vlan>;
  readonly spaces: ReadonlyMap<number, Space>;
  readonly subnets: ReadonlyMap<number, Subnet>;
}

// The rack controller that serves DHCP on the default VLAN (a system_id like MAAS's).
const RACK_ID = 'r4ck0a';
export const UNDEFINED_SPACE = 'undefined';

export function fabricVlans(n: NetworkState, fabricId: number): Vlan[] {
  return [...n.vlans.values()].filter((v) => v.fabricId === fabricId).sort((a, b) => a.vid - b.vid);
}

function spaceName(n: NetworkState, id: number | null): string {
  return id === null ? UNDEFINED_SPACE : (n.spaces.get(id)?.name ?? UNDEFINED_SPACE);
}

export function vlanJson(n: NetworkState, v: Vlan): Record<string, unknown> {
  const fabric = n.fabrics.get(v.fabricId);
  return {
    id: v.id,
    name: v.vid === 0 ? 'untagged' : (v.name ?? String(v.vid)),
    vid: v.vid,
    fabric: fabric?.name ?? '',
    fabric_id: v.fabricId,
    mtu: v.mtu,
    primary_rack: v.dhcpOn ? RACK_ID : null,
    secondary_rack: null,
    dhcp_on: v.dhcpOn,
    external_dhcp: null,
    relay_vlan: null,
    space: spaceName(n, v.spaceId),
    resource_uri: `${API_PREFIX}/vlans/${v.id}/`,
  };
}

export function fabricJson(n: NetworkState, f: Fabric) {
  return { id: f.id, name: f.name, class_type: f.classType, vlans: fabricVlans(n, f.id).map((v) => vlanJson(n, v)), resource_uri: `${API_PREFIX}/fabrics/${f.id}/` };
}

export function subnetJson(n: NetworkState, s: Subnet): Record<string, unknown> {
  const vlan = n.vlans.get(s.vlanId);
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    vlan: vlan ? vlanJson(n, vlan) : null,
    cidr: s.cidr,
    rdns_mode: 2,
    gateway_ip: s.gatewayIp,
    dns_servers: [...s.dnsServers],
    allow_dns: true,
    allow_proxy: true,
    active_discovery: false,
    managed: true,
    disabled_boot_architectures: [],
    space: spaceName(n, s.spaceId),
    resource_uri: `${API_PREFIX}/subnets/${s.id}/`,
  };
}

/** The caller makes sure the zone subnets exist first. */
export function spaceJson(n: NetworkState, sp: Space) {
  const subnets = [...n.subnets.values()].filter((s) => s.spaceId === sp.id).sort((a, b) => a.id - b.id);
  const vlans = [...n.vlans.values()].filter((v) => v.spaceId === sp.id).sort((a, b) => a.id - b.id);
  return {
    id: sp.id,
    name: sp.name,
    description: sp.description,
    vlans: vlans.map((v) => vlanJson(n, v)),
    subnets: subnets.map((s) => subnetJson(n, s)),
    resource_uri: `${API_PREFIX}/spaces/${sp.id}/`,
  };
}
