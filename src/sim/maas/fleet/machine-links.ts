import { conflict, forbidden, MaasApiError, notFound, validationError } from '../http/api-error.ts';
import type { Params } from '../http/params.ts';
import type { SimUser } from '../http/oauth.ts';
import { cidrContains } from '../network/ipv4.ts';
import { firstFree } from '../network/first-free.ts';
import { readBool } from './fleet-access.ts';
import type { SimNic } from './hardware.ts';
import type { MachineRecord } from './machine.ts';
import { NodeStatus } from './status.ts';

// A machine's interface links and what op=link_subnet / op=unlink_subnet do to them
// (api/interfaces.py InterfaceHandler, forms/interface_link.py InterfaceLinkForm and
// InterfaceUnlinkForm, models/interface.py link_subnet). A STATIC link holds its address from the
// moment it is made, a machine's AUTO link gets one when it deploys; the machine's ip_addresses
// are the STATIC ones first, then the AUTO ones. Releasing frees AUTO addresses only
// (Node.release_interface_config): STATIC links stay with the machine.

export type MachineLinkMode = 'auto' | 'dhcp' | 'static' | 'link_up';

export interface MachineLink {
  readonly id: number;
  readonly nicId: number;
  readonly mode: MachineLinkMode;
  readonly subnetId: number | null;
  ip: string | null;
}

/** The network model as machine links need it (network.ts answers it). */
export interface LinkNetwork {
  subnetInfo(idText: string): { id: number; cidr: string; vlanId: number; gatewayIp: string | null } | undefined;
  subnetJsonById(id: number): Record<string, unknown> | undefined;
  /** The subnet a machine of this zone is on (its zone's /24). */
  zoneSubnetId(zone: string): number | null;
}

const MODES: readonly MachineLinkMode[] = ['auto', 'dhcp', 'static', 'link_up'];
// raise_error_for_invalid_state_on_allocated_operations: where a machine's interfaces may change.
const CHANGEABLE = new Set<number>([NodeStatus.New, NodeStatus.Ready, NodeStatus.FailedTesting, NodeStatus.Allocated, NodeStatus.Broken]);
const INVALID_CHOICE = 'Select a valid choice. That choice is not one of the available choices.';

/** The link id commissioning's links have (interface-json.ts renders the same). */
export function defaultLinkId(nic: SimNic, i: number): number {
  return nic.id * 10 + i;
}

/** The links as they are: the commissioned default until link_subnet/unlink_subnet change them. */
export function linksOf(m: MachineRecord, net: Pick<LinkNetwork, 'zoneSubnetId' | 'subnetInfo'>): MachineLink[] {
  if (m.links) return m.links;
  // Commissioning's links: the boot NIC on its zone's subnet; a NIC cabled to a subnet of its own
  // (seed `subnet`) on that one, holding the deploy's address there; any other NIC only up.
  return m.nics.map((nic, n) => {
    if (n === 0) return { id: defaultLinkId(nic, 0), nicId: nic.id, mode: 'auto' as const, subnetId: net.zoneSubnetId(m.zone), ip: m.ipAddresses[0] ?? null };
    const cidr = nic.subnet;
    if (cidr === undefined) return { id: defaultLinkId(nic, 0), nicId: nic.id, mode: 'link_up' as const, subnetId: null, ip: null };
    const ip = m.ipAddresses.find((a) => cidrContains(cidr, a)) ?? null;
    return { id: defaultLinkId(nic, 0), nicId: nic.id, mode: 'auto' as const, subnetId: net.subnetInfo(cidr)?.id ?? null, ip };
  });
}

/** ip_addresses as MAAS lists them: STATIC addresses first, then AUTO ones. */
function addressesOf(links: readonly MachineLink[]): string[] {
  const ips = (mode: MachineLinkMode) => links.filter((l) => l.mode === mode && l.ip !== null).map((l) => l.ip as string);
  return [...ips('static'), ...ips('auto')];
}

/** A link as a fleet file keeps it (seed.ts). */
export interface SavedLink {
  readonly nic: string;
  readonly mode: MachineLinkMode;
  readonly subnet?: string | undefined;
  readonly ip?: string | undefined;
}

/**
 * A saved machine's links back as they were: a STATIC link keeps its address whatever the status, an
 * AUTO one only on a Deployed machine (release freed the others). `subnetId` finds (or makes) the
 * subnet of a CIDR.
 */
export function restoreLinks(m: MachineRecord, saved: readonly SavedLink[], subnetId: (cidr: string) => number | null, nextLinkId: () => number): void {
  const deployed = m.status === NodeStatus.Deployed;
  m.links = saved.flatMap((s) => {
    const nic = m.nics.find((n) => n.name === s.nic);
    if (!nic) return [];
    const ip = s.ip !== undefined && (s.mode === 'static' || (s.mode === 'auto' && deployed)) ? s.ip : null;
    return [{ id: nextLinkId(), nicId: nic.id, mode: s.mode, subnetId: s.subnet === undefined ? null : subnetId(s.subnet), ip }];
  });
  m.ipAddresses = addressesOf(m.links);
}

/** Deploy claims an address for every AUTO link without one; a machine with its own links keeps them. */
export function claimAutoAddresses(m: MachineRecord, claim: () => string, claimAll: () => string[] = () => [claim()]): void {
  if (!m.links) {
    if (m.ipAddresses.length === 0) m.ipAddresses = claimAll();
    return;
  }
  for (const link of m.links) if (link.mode === 'auto' && link.ip === null) link.ip = claim();
  m.ipAddresses = addressesOf(m.links);
}

/** Release: AUTO addresses go back to the subnet, STATIC ones stay. */
export function releaseAutoAddresses(m: MachineRecord): void {
  if (!m.links) {
    m.ipAddresses = [];
    return;
  }
  for (const link of m.links) if (link.mode === 'auto') link.ip = null;
  m.ipAddresses = addressesOf(m.links);
}

export interface LinkContext {
  readonly user: SimUser;
  readonly net: LinkNetwork;
  /** Every address held now (machines, devices, DNS resources). */
  readonly inUse: ReadonlySet<string>;
  readonly nextLinkId: () => number;
  /** The subnets' dynamic and reserved ranges (network/ip-ranges.ts). */
  readonly ranges?: RangeGuard;
}

/** What a static allocation asks of the IP ranges. */
export interface RangeGuard {
  excluded(cidr: string): ReadonlySet<string>;
  refuse(ip: string): void;
}

function findNic(m: MachineRecord, idText: string): SimNic {
  const nic = m.nics.find((n) => String(n.id) === idText || n.name === idText);
  if (!nic) throw notFound('Interface');
  return nic;
}

// get_interface_or_404 with NodePermission.admin, then the machine's status.
function checkChangeable(m: MachineRecord, user: SimUser, operation: string): void {
  if (!user.admin) throw forbidden();
  if (!CHANGEABLE.has(m.status)) throw conflict(`Cannot ${operation} interface because the machine is not New, Ready, Allocated, or Broken.`);
}

// Subnet.__str__, as the form's messages print a subnet.
function subnetText(net: LinkNetwork, id: number): string {
  const json = net.subnetJsonById(id) ?? {};
  const vlan = json.vlan as { vid?: number } | undefined;
  return `${String(json.name ?? '')}:${String(json.cidr ?? '')}(vid=${vlan?.vid ?? 0})`;
}

/** POST nodes/{id}/interfaces/{nic}/ op=link_subnet on a machine. */
export function linkMachineSubnet(m: MachineRecord, nicText: string, params: Params, ctx: LinkContext): SimNic {
  const nic = findNic(m, nicText);
  checkChangeable(m, ctx.user, 'link subnet');
  const force = readBool(params, 'force') ?? false;
  const links = linksOf(m, ctx.net);
  const mine = links.filter((l) => l.nicId === nic.id);
  const errors: Record<string, string[]> = {};
  const modeText = (params.get('mode') ?? '').toLowerCase();
  const mode = MODES.find((x) => x === modeText);
  if (modeText === '') errors.mode = ['This field is required.'];
  else if (!mode) errors.mode = [`'${params.get('mode') ?? ''}' is not a valid mode.  It should be one of: ${MODES.map((x) => `'${x}'`).join(', ')}.`];
  // The subnet choices are those of the interface's VLAN (the zone's), unless forced.
  const subnetText_ = params.get('subnet') ?? '';
  const found = subnetText_ === '' ? undefined : ctx.net.subnetInfo(subnetText_);
  const zoneSubnet = ctx.net.zoneSubnetId(m.zone);
  const zoneVlan = zoneSubnet === null ? undefined : ctx.net.subnetJsonById(zoneSubnet)?.vlan as { id?: number } | undefined;
  const subnet = found && (force || zoneVlan?.id === undefined || found.vlanId === zoneVlan.id) ? found : undefined;
  if (subnetText_ !== '' && !subnet) errors.subnet = [INVALID_CHOICE];
  let ip: string | null = null;
  if (mode === 'auto' || mode === 'static') {
    if (subnetText_ === '') errors.subnet = ['This field is required.'];
  }
  if (mode === 'static' && subnet) {
    const wanted = params.get('ip_address') ?? '';
    if (wanted !== '' && !cidrContains(subnet.cidr, wanted)) errors.ip_address = [`IP address is not in the given subnet '${subnetText(ctx.net, subnet.id)}'.`];
    else ip = wanted === '' ? null : wanted;
  }
  if (mode === 'dhcp' && mine.some((l) => l.mode === 'dhcp')) errors.mode = ['Interface is already set to DHCP.'];
  if (mode === 'link_up' && !force && mine.some((l) => l.mode !== 'link_up')) {
    errors.mode = ['Cannot configure interface to link up (with no IP address) while other links are already configured. Specify force=True to override this behavior and delete all links.'];
  }
  const gateway = readBool(params, 'default_gateway') ?? false;
  if (gateway && mode !== undefined) {
    if (mode !== 'auto' && mode !== 'static') errors.default_gateway = [`Cannot use in mode '${mode}'.`];
    else if (subnet && subnet.gatewayIp === null) errors.default_gateway = [`Cannot set as default gateway because subnet ${subnetText(ctx.net, subnet.id)} doesn't provide a gateway IP address.`];
  }
  if (Object.keys(errors).length > 0 || !mode) throw validationError(errors);
  if (mode === 'static' && subnet) {
    // _link_subnet_static: a requested address another holds is StaticIPAddressUnavailable (404).
    if (ip !== null && ctx.inUse.has(ip)) throw new MaasApiError(404, 'IP address is already in use.');
    if (ip !== null) ctx.ranges?.refuse(ip);
    if (ip === null) ip = firstFree(subnet.cidr, new Set([...ctx.inUse, ...(subnet.gatewayIp === null ? [] : [subnet.gatewayIp]), ...(ctx.ranges?.excluded(subnet.cidr) ?? [])]));
  }
  const kept = mode === 'link_up' || force ? links.filter((l) => l.nicId !== nic.id) : links.filter((l) => !(l.nicId === nic.id && l.mode === 'link_up'));
  m.links = [...kept, { id: ctx.nextLinkId(), nicId: nic.id, mode, subnetId: subnet?.id ?? null, ip: mode === 'static' ? ip : null }];
  m.ipAddresses = addressesOf(m.links);
  return nic;
}

/** POST nodes/{id}/interfaces/{nic}/ op=unlink_subnet id=<link id> on a machine. */
export function unlinkMachineSubnet(m: MachineRecord, nicText: string, params: Params, ctx: Pick<LinkContext, 'user' | 'net'>): SimNic {
  const nic = findNic(m, nicText);
  checkChangeable(m, ctx.user, 'unlink subnet');
  const links = linksOf(m, ctx.net);
  const choices = links.filter((l) => l.nicId === nic.id && l.mode !== 'link_up');
  const id = params.get('id') ?? '';
  if (id === '') throw validationError({ id: ['This field is required.'] });
  if (!choices.some((l) => String(l.id) === id)) throw validationError({ id: [`'${id}' is not a valid id.  It should be one of: ${choices.map((l) => `'${l.id}'`).join(', ')}.`] });
  const rest = links.filter((l) => String(l.id) !== id);
  const gone = links.find((l) => String(l.id) === id);
  // Interface.unlink_ip_address: an interface left with no link stays up on the subnet, with no address.
  m.links = rest.some((l) => l.nicId === nic.id) ? rest : [...rest, { id: defaultLinkId(nic, 9), nicId: nic.id, mode: 'link_up', subnetId: gone?.subnetId ?? null, ip: null }];
  m.ipAddresses = addressesOf(m.links);
  return nic;
}
