import { forbidden, notFound, validationError } from '../http/api-error.ts';
import type { DeviceNic, NicNetwork } from './device-nics.ts';
import type { RangeGuard } from '../fleet/machine-links.ts';
import { findNic, linkSubnet, nicJson, normalMac, unlinkSubnet, updateNic } from './device-nics.ts';
import type { Places } from '../fleet/machine-json.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import { systemIdFor } from '../fleet/machine.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { domainJson, zoneJson } from './place-json.ts';

// Devices (api/devices.py, DeviceWithMACsForm): non-deployable nodes a user registers by MAC,
// such as juju's containers (gomaasapi CreateDevice / Devices / Device.Delete). A device belongs
// to whoever created it; it has one physical interface per MAC, on the default VLAN.

export interface DeviceRecord {
  readonly systemId: string;
  hostname: string;
  description: string;
  domain: string;
  zone: string;
  owner: string | null;
  readonly parent: string | null;
  nics: DeviceNic[];
  tags: string[];
}

/** What devices need from the rest of the simulator. */
export interface DeviceContext {
  readonly places: Places;
  readonly net: NicNetwork;
  /** The VLAN a new interface lands on (fabric-0 untagged). */
  defaultVlanId(): number | null;
}

/** The machines as far as devices care: their ids, hostnames and MACs are taken; a parent is one of them. */
export interface MachineView {
  readonly systemId: string;
  readonly hostname: string;
  readonly zone: string;
  readonly macs: readonly string[];
}

const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;
const HOSTNAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
// Interface ids of devices start far above the machines' so the two never meet.
const FIRST_NIC_ID = 100_000;

export class DeviceBook {
  private readonly devices = new Map<string, DeviceRecord>();
  private nextNic = FIRST_NIC_ID;
  private nextLink = FIRST_NIC_ID * 10;
  private serial = 1;

  constructor(private readonly ctx: DeviceContext) {}

  all(): DeviceRecord[] {
    return [...this.devices.values()];
  }

  // GET /devices/ with NodesHandler's filters: hostname, mac_address, id (each repeatable), domain, zone.
  list(user: SimUser, params: Params): ReturnType<DeviceBook['json']>[] {
    const hostnames = params.getAll('hostname');
    const macs = params.getAll('mac_address').map((m) => m.toLowerCase());
    const ids = params.getAll('id');
    const domain = params.get('domain');
    const zone = params.get('zone');
    return this.all()
      .filter((d) => user.admin || d.owner === null || d.owner === user.name)
      .filter((d) => hostnames.length === 0 || hostnames.includes(d.hostname))
      .filter((d) => macs.length === 0 || d.nics.some((n) => macs.includes(normalMac(n.mac))))
      .filter((d) => ids.length === 0 || ids.includes(d.systemId))
      .filter((d) => domain === undefined || d.domain === domain)
      .filter((d) => zone === undefined || d.zone === zone)
      .map((d) => this.json(d));
  }

  read(user: SimUser, systemId: string): ReturnType<DeviceBook['json']> {
    return this.json(this.get(user, systemId, false));
  }

  // POST /devices/: hostname (else generated), description, domain, mac_addresses (required), parent.
  create(user: SimUser, params: Params, machines: readonly MachineView[]): ReturnType<DeviceBook['json']> {
    const errors: Record<string, string[]> = {};
    const macs = params.getAll('mac_addresses').filter((m) => m !== '');
    const bad = macs.filter((m) => !MAC.test(m));
    const seen = this.usedMacs(machines);
    const used = macs.filter((m) => seen.has(normalMac(m)));
    if (macs.length === 0) errors.mac_addresses = ['This field is required.'];
    else if (bad.length > 0) errors.mac_addresses = macs.length > 1 ? ['One or more MAC addresses is invalid.'] : [`'${bad[0] ?? ''}' is not a valid MAC address.`];
    else if (used.length > 0) errors.mac_addresses = used.map((m) => `MAC address ${m} already in use on ${seen.get(normalMac(m)) ?? ''}.`);
    const hostname = params.get('hostname') || this.generatedHostname(machines);
    if (!HOSTNAME.test(hostname)) errors.hostname = [`Invalid hostname: ${hostname}`];
    else if (this.hostnameTaken(hostname, machines)) errors.hostname = [`Node with hostname "${hostname}" already exists.`];
    const domainText = params.get('domain');
    const domain = domainText === undefined || domainText === '' ? this.ctx.places.defaultDomain : this.ctx.places.domains.resolve(domainText);
    if (domain === undefined) errors.domain = ['Select a valid choice. That choice is not one of the available choices.'];
    const parent = params.get('parent') || null;
    const parentZone = parent === null ? undefined : machines.find((m) => m.systemId === parent)?.zone;
    if (parent !== null && parentZone === undefined) errors.parent = ['Select a valid choice. That choice is not one of the available choices.'];
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const taken = new Set([...machines.map((m) => m.systemId), ...this.devices.keys()]);
    const device: DeviceRecord = {
      systemId: systemIdFor(`device/${hostname}`, taken),
      hostname,
      description: params.get('description') ?? '',
      domain: domain ?? this.ctx.places.defaultDomain,
      // A container device lives where its parent machine does.
      zone: parentZone ?? this.ctx.places.zones.defaultName() ?? 'default',
      owner: user.name,
      parent,
      nics: macs.map((m, i) => ({ id: this.nextNic++, name: `eth${i}`, mac: normalMac(m), vlanId: this.ctx.defaultVlanId(), links: [], tags: [], params: null })),
      tags: [],
    };
    this.devices.set(device.systemId, device);
    return this.json(device);
  }

  // DELETE /devices/{system_id}/: NodePermission.edit (owner or admin).
  remove(user: SimUser, systemId: string): void {
    const device = this.get(user, systemId, true);
    this.devices.delete(device.systemId);
  }

  /** Node.parent is on_delete=CASCADE: a deleted machine takes its container devices along. */
  removeChildrenOf(parent: string): void {
    for (const d of this.all()) if (d.parent === parent) this.devices.delete(d.systemId);
  }

  has(systemId: string): boolean {
    return this.devices.has(systemId);
  }

  /** Each static address of a device with where it sits, for subnets' op=ip_addresses. */
  /** The hostname of the device with an interface of this MAC (lower case, colons). */
  hostnameWithMac(mac: string): string | undefined {
    return [...this.devices.values()].find((d) => d.nics.some((n) => normalMac(n.mac) === mac))?.hostname;
  }

  addressHolders(): Array<{ device: DeviceRecord; nic: string; ip: string }> {
    return this.all().flatMap((device) => device.nics.flatMap((n) => n.links.flatMap((l) => (l.ip === null ? [] : [{ device, nic: n.name, ip: l.ip }]))));
  }

  /** Addresses the devices' static links hold. */
  addresses(): string[] {
    return this.all().flatMap((d) => d.nics.flatMap((n) => n.links.flatMap((l) => (l.ip === null ? [] : [l.ip]))));
  }

  // --- nodes/{system_id}/interfaces/ of a device ---
  listNics(user: SimUser, systemId: string) {
    const d = this.get(user, systemId, false);
    return d.nics.map((n) => nicJson(d.systemId, n, this.ctx.net));
  }

  readNic(user: SimUser, systemId: string, nicId: string) {
    const d = this.get(user, systemId, false);
    return nicJson(d.systemId, findNic(d.nics, nicId), this.ctx.net);
  }

  // POST op=create_physical: name, mac_address (required), vlan, tags, mtu.
  createNic(user: SimUser, systemId: string, params: Params, machines: readonly MachineView[]) {
    const d = this.get(user, systemId, true);
    const mac = params.get('mac_address') ?? '';
    if (mac === '') throw validationError({ mac_address: ['This field is required.'] });
    const nic: DeviceNic = { id: this.nextNic++, name: `eth${d.nics.length}`, mac: '', vlanId: this.ctx.defaultVlanId(), links: [], tags: [], params: {} };
    updateNic(nic, params, this.ctx.net, (m) => this.usedMacs(machines).has(m), { node: `${d.systemId} (${d.hostname})`, taken: (name) => d.nics.some((n) => n.name === name) });
    d.nics = [...d.nics, nic];
    return nicJson(d.systemId, nic, this.ctx.net);
  }

  // PUT: name, mac_address, vlan, tags, mtu.
  updateNic(user: SimUser, systemId: string, nicId: string, params: Params, machines: readonly MachineView[]) {
    const d = this.get(user, systemId, true);
    const nic = findNic(d.nics, nicId);
    updateNic(nic, params, this.ctx.net, (m) => this.usedMacs(machines).has(m), { node: `${d.systemId} (${d.hostname})`, taken: (name) => d.nics.some((n) => n !== nic && n.name === name) });
    return nicJson(d.systemId, nic, this.ctx.net);
  }

  removeNic(user: SimUser, systemId: string, nicId: string): void {
    const d = this.get(user, systemId, true);
    const nic = findNic(d.nics, nicId);
    d.nics = d.nics.filter((n) => n !== nic);
  }

  // POST op=link_subnet; `inUse`: addresses held elsewhere (machines, DNS resources).
  linkSubnet(user: SimUser, systemId: string, nicId: string, params: Params, inUse: readonly string[], ranges?: RangeGuard) {
    const d = this.get(user, systemId, true);
    const nic = findNic(d.nics, nicId);
    linkSubnet(nic, params, this.ctx.net, new Set([...inUse, ...this.addresses()]), () => this.nextLink++, ranges);
    return nicJson(d.systemId, nic, this.ctx.net);
  }

  unlinkSubnet(user: SimUser, systemId: string, nicId: string, params: Params) {
    const d = this.get(user, systemId, true);
    const nic = findNic(d.nics, nicId);
    unlinkSubnet(nic, params);
    return nicJson(d.systemId, nic, this.ctx.net);
  }

  private get(user: SimUser, systemId: string, edit: boolean): DeviceRecord {
    const device = this.devices.get(systemId);
    if (!device) throw notFound('Device');
    const mine = user.admin || device.owner === user.name || (!edit && device.owner === null);
    if (!mine) throw forbidden();
    return device;
  }

  private usedMacs(machines: readonly MachineView[]): Map<string, string> {
    const used = new Map<string, string>();
    for (const m of machines) for (const mac of m.macs) used.set(mac.toLowerCase(), m.hostname);
    for (const d of this.devices.values()) for (const n of d.nics) used.set(n.mac, d.hostname);
    return used;
  }

  private hostnameTaken(hostname: string, machines: readonly MachineView[]): boolean {
    return machines.some((m) => m.hostname === hostname) || this.all().some((d) => d.hostname === hostname);
  }

  // MAAS names an unnamed node with two random words; a numbered name is as good for a simulator.
  private generatedHostname(machines: readonly MachineView[]): string {
    let name = '';
    do name = `device-${this.serial++}`;
    while (this.hostnameTaken(name, machines));
    return name;
  }

  private json(d: DeviceRecord) {
    const places = this.ctx.places;
    const interfaces = d.nics.map((n) => nicJson(d.systemId, n, this.ctx.net));
    return {
      system_id: d.systemId,
      hostname: d.hostname,
      description: d.description,
      domain: domainJson(d.domain, places),
      fqdn: `${d.hostname}.${d.domain}`,
      owner: d.owner,
      owner_data: {},
      parent: d.parent,
      tag_names: [...d.tags],
      address_ttl: null,
      ip_addresses: d.nics.flatMap((n) => n.links.flatMap((l) => (l.ip === null ? [] : [l.ip]))),
      interface_set: interfaces,
      zone: zoneJson(d.zone, places),
      // Not a device field in MAAS's list, but gomaasapi's device schema asks for the key.
      pool: null,
      node_type: 1,
      node_type_name: 'Device',
      workload_annotations: {},
      resource_uri: `${API_PREFIX}/devices/${d.systemId}/`,
    };
  }
}
