import { MaasApiError, notFound, validationError } from '../http/api-error.ts';
import { cidrContains } from '../network/ipv4.ts';
import { firstFree } from '../network/first-free.ts';
import type { RangeGuard } from '../fleet/machine-links.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import type { Params } from '../http/params.ts';

// A device's interfaces and their links (api/interfaces.py; forms PhysicalInterfaceForm,
// InterfaceForm, InterfaceLinkForm), as juju drives them for a container: rename the NIC, move it
// to a VLAN, link_subnet in STATIC mode, read it back.

export type LinkMode = 'auto' | 'dhcp' | 'static' | 'link_up';

export interface NicLink {
  readonly id: number;
  readonly mode: LinkMode;
  readonly subnetId: number | null;
  readonly ip: string | null;
}

export interface DeviceNic {
  readonly id: number;
  name: string;
  mac: string;
  vlanId: number | null;
  links: NicLink[];
  tags: string[];
  /**
   * Interface.params: null for a NIC made with its device (MAAS renders ''), an object once the
   * interface API wrote it (create_physical, PUT: InterfaceForm.set_extra_parameters), holding mtu when set.
   */
  params: { mtu?: number } | null;
}

/** The network model as interfaces see it. */
export interface NicNetwork {
  vlanJsonById(id: number): Record<string, unknown> | undefined;
  subnetInfo(idText: string): { id: number; cidr: string; vlanId: number; gatewayIp: string | null } | undefined;
  subnetJsonById(id: number): Record<string, unknown> | undefined;
}

const MODES: readonly LinkMode[] = ['auto', 'dhcp', 'static', 'link_up'];
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;
const NIC_NAME = /^[\w.:-]{1,15}$/;
const INVALID_CHOICE = 'Select a valid choice. That choice is not one of the available choices.';

export function nicJson(systemId: string, nic: DeviceNic, net: NicNetwork) {
  const vlan = nic.vlanId === null ? null : (net.vlanJsonById(nic.vlanId) ?? null);
  // Interface.get_effective_mtu: the interface's own mtu parameter, else its VLAN's.
  const mtu = nic.params?.mtu ?? (typeof vlan?.mtu === 'number' ? vlan.mtu : 1500);
  return {
    id: nic.id,
    name: nic.name,
    type: 'physical',
    enabled: true,
    mac_address: nic.mac,
    vlan,
    links: nic.links.map((l) => ({
      id: l.id,
      mode: l.mode,
      ...(l.subnetId === null ? {} : { subnet: net.subnetJsonById(l.subnetId) }),
      ...(l.ip === null ? {} : { ip_address: l.ip }),
    })),
    effective_mtu: mtu,
    params: nic.params === null ? '' : { ...nic.params },
    parents: [] as string[],
    children: [] as string[],
    tags: [...nic.tags],
    discovered: null,
    system_id: systemId,
    resource_uri: `${API_PREFIX}/nodes/${systemId}/interfaces/${nic.id}/`,
  };
}

export function findNic(nics: readonly DeviceNic[], idText: string): DeviceNic {
  const nic = nics.find((n) => String(n.id) === idText || n.name === idText);
  if (!nic) throw notFound('Interface');
  return nic;
}

/** A MAC as MAAS stores it: lower case, colons. */
export function normalMac(mac: string): string {
  return mac.toLowerCase().replace(/-/g, ':');
}

/** The other interface names of the node (clean_interface_name_uniqueness), and how MAAS prints the node: "abc123 (host)". */
export interface NodeNicNames {
  readonly node: string;
  taken(name: string): boolean;
}

// The mtu form field (InterfaceForm: an integer of at least 552, Linux's floor); '' removes it.
function readMtu(text: string | undefined, errors: Record<string, string[]>): number | null | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === '') return null;
  if (!/^\s*[+-]?\d+\s*$/.test(text)) {
    errors.mtu = ['Enter a whole number.'];
    return undefined;
  }
  const mtu = Number(text);
  if (mtu < 552) errors.mtu = ['Ensure this value is greater than or equal to 552.'];
  return mtu;
}

// PUT nodes/{id}/interfaces/{id}/ (and create_physical): name, mac_address, vlan (by id; ""
// leaves it disconnected), tags (comma-separated, Django's SimpleArrayField), mtu.
export function updateNic(nic: DeviceNic, params: Params, net: NicNetwork, macInUse: (mac: string) => boolean, names?: NodeNicNames): void {
  const errors: Record<string, string[]> = {};
  const name = params.get('name');
  if (name !== undefined && !NIC_NAME.test(name)) errors.name = ['Enter a valid value.'];
  else if (name !== undefined && names?.taken(name)) errors.name = [`Node ${names.node} already has an interface named '${name}'.`];
  const mtu = readMtu(params.get('mtu'), errors);
  const tagsText = params.get('tags');
  const mac = params.get('mac_address');
  if (mac !== undefined && !MAC.test(mac)) errors.mac_address = [`'${mac}' is not a valid MAC address.`];
  else if (mac !== undefined && normalMac(mac) !== nic.mac && macInUse(normalMac(mac))) errors.mac_address = ['Interface with this MAC address already exists.'];
  const vlanText = params.get('vlan');
  const vlanId = vlanText === undefined || vlanText === '' ? null : Number(vlanText);
  if (vlanId !== null && (!Number.isInteger(vlanId) || net.vlanJsonById(vlanId) === undefined)) errors.vlan = [INVALID_CHOICE];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  if (name !== undefined) nic.name = name;
  if (mac !== undefined) nic.mac = normalMac(mac);
  if (tagsText !== undefined) nic.tags = tagsText.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const written = { ...nic.params };
  if (mtu === null) delete written.mtu;
  else if (mtu !== undefined) written.mtu = mtu;
  nic.params = written;
  if (vlanText !== undefined && vlanId !== nic.vlanId) {
    // Links belong to subnets on the old VLAN: MAAS drops them when the VLAN changes.
    nic.vlanId = vlanId;
    nic.links = [];
  }
}

// POST ... op=link_subnet: mode (auto, dhcp, static, link_up), subnet, ip_address (static).
export function linkSubnet(nic: DeviceNic, params: Params, net: NicNetwork, inUse: ReadonlySet<string>, nextLinkId: () => number, ranges?: RangeGuard): void {
  const modeText = (params.get('mode') ?? '').toLowerCase();
  if (modeText === '') throw validationError({ mode: ['This field is required.'] });
  const mode = MODES.find((m) => m === modeText);
  if (mode === undefined) throw validationError({ mode: [`"${params.get('mode') ?? ''}" is not a valid mode. It should be one of: "auto", "dhcp", "static", "link_up".`] });
  const subnetText = params.get('subnet');
  const subnet = subnetText === undefined || subnetText === '' ? undefined : net.subnetInfo(subnetText);
  if (subnetText !== undefined && subnetText !== '' && subnet === undefined) throw validationError({ subnet: [INVALID_CHOICE] });
  if (subnet === undefined && mode !== 'dhcp' && mode !== 'link_up') throw validationError({ subnet: ['This field is required.'] });
  if (mode === 'dhcp' && nic.links.some((l) => l.mode === 'dhcp')) throw validationError({ mode: ['Interface is already set to DHCP.'] });
  let ip: string | null = null;
  if (mode === 'static' && subnet !== undefined) {
    const wanted = params.get('ip_address');
    if (wanted !== undefined && wanted !== '') {
      if (!cidrContains(subnet.cidr, wanted)) throw validationError({ ip_address: [`IP address is not in the given subnet '${subnet.cidr}'.`] });
      if (inUse.has(wanted) || wanted === subnet.gatewayIp) throw new MaasApiError(404, 'IP address is already in use.');
      ranges?.refuse(wanted);
      ip = wanted;
    } else {
      ip = firstFree(subnet.cidr, new Set([...inUse, ...(subnet.gatewayIp === null ? [] : [subnet.gatewayIp]), ...(ranges?.excluded(subnet.cidr) ?? [])]));
    }
  }
  // A link to a subnet on another VLAN moves the interface there, as MAAS does for a device.
  if (subnet !== undefined && nic.vlanId !== subnet.vlanId) nic.vlanId = subnet.vlanId;
  const links = mode === 'link_up' ? [] : nic.links.filter((l) => l.mode !== 'link_up');
  nic.links = [...links, { id: nextLinkId(), mode, subnetId: subnet?.id ?? null, ip }];
}

// POST ... op=unlink_subnet: id = the link's id.
export function unlinkSubnet(nic: DeviceNic, params: Params): void {
  const id = params.get('id');
  if (id === undefined || id === '') throw validationError({ id: ['This field is required.'] });
  if (!nic.links.some((l) => String(l.id) === id)) throw validationError({ id: [INVALID_CHOICE] });
  nic.links = nic.links.filter((l) => String(l.id) !== id);
}

