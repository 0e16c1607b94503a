import { cidrContains, hostRange } from '../network/ipv4.ts';
import type { SimNic } from './hardware.ts';
import type { MachineRecord } from './machine.ts';
import type { Places } from './machine-json.ts';
import { API_PREFIX } from './machine-json.ts';

// A machine's network interfaces as MAAS renders them (api/interfaces.py; gomaasapi interface.go,
// link.go): every commissioned NIC sits on its zone's VLAN; the boot NIC has an 'auto' link to the
// zone's subnet, which carries the address once deploying has claimed one.

/** The part of the network model machine JSON reads (network.ts answers it). */
export interface NetworkView {
  subnetForAddress(ip: string): Record<string, unknown> | undefined;
  vlanForZone(zone: string): Record<string, unknown> | undefined;
  subnetJsonById(id: number): Record<string, unknown> | undefined;
  subnetIdsBySpecifiers?(specs: readonly string[]): ReadonlySet<number> | undefined;
}

export interface JsonContext {
  readonly places: Places;
  readonly network: NetworkView;
}

/** The first address the fleet hands out in a zone: its subnet is the zone's (fleet.ts claimAddress). */
export function zoneProbeAddress(places: Places, zone: string): string {
  return `10.10.${places.zones.id(zone)}.10`;
}

function linkId(nic: SimNic, i: number): number {
  return nic.id * 10 + i;
}

// A NIC cabled to a subnet of its own (seed `subnet`) holds the machine's addresses in it; the
// boot NIC holds the rest.
function addressesOf(m: MachineRecord, nic: SimNic, boot: boolean): string[] {
  const own = (n: SimNic) => (n.subnet === undefined ? [] : m.ipAddresses.filter((ip) => cidrContains(n.subnet ?? '', ip)));
  if (!boot) return own(nic);
  const elsewhere = new Set(m.nics.slice(1).flatMap(own));
  return m.ipAddresses.filter((ip) => !elsewhere.has(ip));
}

function links(m: MachineRecord, nic: SimNic, boot: boolean, ctx: JsonContext) {
  // Links changed by link_subnet/unlink_subnet (machine-links.ts) are rendered as they are.
  if (m.links) {
    return m.links.filter((l) => l.nicId === nic.id).map((l) => {
      const subnet = l.subnetId === null ? undefined : ctx.network.subnetJsonById(l.subnetId);
      return { id: l.id, mode: l.mode, ...(l.ip === null ? {} : { ip_address: l.ip }), ...(subnet ? { subnet } : {}) };
    });
  }
  if (!boot) {
    if (nic.subnet === undefined) return [{ id: linkId(nic, 0), mode: 'link_up' }];
    const mine = addressesOf(m, nic, false);
    const subnet = ctx.network.subnetForAddress(mine[0] ?? hostRange(nic.subnet).firstText);
    if (mine.length === 0) return [{ id: linkId(nic, 0), mode: 'auto', ...(subnet ? { subnet } : {}) }];
    return mine.map((ip, i) => ({ id: linkId(nic, i), mode: 'auto', ip_address: ip, ...(subnet ? { subnet } : {}) }));
  }
  const held = addressesOf(m, nic, true);
  if (held.length > 0) {
    return held.map((ip, i) => {
      const subnet = ctx.network.subnetForAddress(ip);
      return { id: linkId(nic, i), mode: 'auto', ip_address: ip, ...(subnet ? { subnet } : {}) };
    });
  }
  const subnet = ctx.network.subnetForAddress(zoneProbeAddress(ctx.places, m.zone));
  return [{ id: linkId(nic, 0), mode: 'auto', ...(subnet ? { subnet } : {}) }];
}

export function interfaceJson(m: MachineRecord, nic: SimNic, ctx: JsonContext) {
  const boot = nic === m.nics[0];
  const vlan = ctx.network.vlanForZone(m.zone) ?? null;
  const mtu = typeof vlan?.mtu === 'number' ? vlan.mtu : 1500;
  return {
    id: nic.id,
    name: nic.name,
    type: 'physical',
    enabled: true,
    mac_address: nic.mac,
    vlan,
    // Before commissioning MAAS knows only the MAC it saw PXE-boot; no links yet.
    links: m.commissioned ? links(m, nic, boot, ctx) : [],
    effective_mtu: mtu,
    params: '',
    parents: [] as string[],
    children: [] as string[],
    tags: [...nic.tags],
    discovered: null,
    vendor: m.commissioned ? 'Simulated Networks' : null,
    product: m.commissioned ? 'SIM-NIC' : null,
    firmware_version: m.commissioned ? '1.0' : null,
    link_connected: true,
    interface_speed: nic.linkSpeed,
    link_speed: m.commissioned ? nic.linkSpeed : 0,
    numa_node: 0,
    sriov_max_vf: 0,
    system_id: m.systemId,
    resource_uri: `${API_PREFIX}/nodes/${m.systemId}/interfaces/${nic.id}/`,
  };
}
