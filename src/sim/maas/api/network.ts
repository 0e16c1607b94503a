import { badRequest, notFound } from '../http/api-error.ts';
import type { Backend, CallContext, Reply, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import type { MachineView } from '../places/devices.ts';
import { machineJson } from '../fleet/machine-json.ts';
import { interfaceJson } from '../fleet/interface-json.ts';
import type { SimNic } from '../fleet/hardware.ts';
import type { MachineRecord } from '../fleet/machine.ts';
import { checkView } from '../fleet/fleet-access.ts';
import { reservedIpRanges, unreservedIpRanges } from '../network/ip-usage.ts';
import { linkMachineSubnet, unlinkMachineSubnet } from '../fleet/machine-links.ts';
import type { AddressHolder } from '../network/subnet-ips.ts';
import { AllocType } from '../network/subnet-ips.ts';

// fabrics/ (+ their vlans), vlans/{id}/, spaces/, subnets/, static-routes/, devices/, and the
// interfaces of nodes/{system_id}/ (devices' change; machines' are read here, as machine JSON has them).

function machineView(b: Backend): MachineView[] {
  return b.fleet.all().map((m) => ({ systemId: m.systemId, hostname: m.hostname, zone: m.zone, macs: m.nics.map((n) => n.mac) }));
}

// Reserved addresses count as in use (IPRangeStatistics: every StaticIPAddress row is).
function addressesInUse(b: Backend): string[] {
  return [...b.fleet.all().flatMap((m) => m.ipAddresses), ...b.dns.snapshot().flatMap((r) => r.ips), ...b.network.devices.addresses(), ...b.ips.addresses()];
}

// A subnet's allocated addresses and ranges, as op=reserved_ip_ranges and op=unreserved_ip_ranges read them.
function usage(b: Backend, idText: string) {
  const id = b.network.subnetInfo(idText)?.id;
  return b.network.usageInput(idText, addressesInUse(b), id === undefined ? [] : b.ranges.ofSubnet(id));
}

// Who holds each address: machines (auto), devices (sticky), DNS resources (user reserved).
function addressHolders(b: Backend): AddressHolder[] {
  const now = b.events.now();
  const machines = b.fleet.all().flatMap((m) =>
    m.ipAddresses.map((ip) => ({
      ip,
      // A STATIC link's address is STICKY in MAAS; the ones deploy claims are AUTO.
      allocType: (m.links ?? []).some((l) => l.mode === 'static' && l.ip === ip) ? AllocType.sticky : AllocType.auto,
      user: m.owner,
      created: b.network.firstSeen(ip, now),
      node: { systemId: m.systemId, nodeType: 0, fqdn: `${m.hostname}.${m.domain}`, hostname: m.hostname, isContainer: false, via: m.nics[0]?.name ?? 'eth0' },
    })),
  );
  const devices = b.network.devices.addressHolders().map(({ device, nic, ip }) => ({
    ip,
    allocType: AllocType.sticky,
    user: device.owner,
    created: b.network.firstSeen(ip, now),
    node: { systemId: device.systemId, nodeType: 1, fqdn: `${device.hostname}.${device.domain}`, hostname: device.hostname, isContainer: device.parent !== null, via: nic },
  }));
  // The simulator's DNS resources are made by the admin (the only user allowed to).
  const dns = b.dns.addressHolders().map((r) => ({ ip: r.ip, allocType: AllocType.userReserved, user: 'admin', created: r.created, dns: { id: r.id, name: r.name, domain: r.domain } }));
  // Reservations without a DNS name (one with a name is already there through its resource).
  const inDns = new Set(dns.map((d) => d.ip));
  const reserved = b.ips.snapshot().filter((r) => !inDns.has(r.ip)).map((r) => ({ ip: r.ip, allocType: AllocType.userReserved, user: r.user, created: r.created }));
  return [...machines, ...devices, ...dns, ...reserved];
}

// "{system_id}/interfaces/{id}" from the nested interface path.
function nodeAndNic(id: string): [string, string] {
  const at = id.indexOf('/interfaces/');
  return [id.slice(0, at), id.slice(at + '/interfaces/'.length)];
}

// A machine's interfaces as its JSON renders them; changing them is not simulated (commissioning sets them).
// Reading them is get_node_or_404 with NodePermission.view (interfaces.py): 403 for another user's.
function machineNics(b: Backend, c: CallContext, systemId: string): Array<{ id: number; name: string }> | undefined {
  const m = b.fleet.bySystemId(systemId);
  if (m) checkView(c.user, m);
  return m ? machineJson(m, b).interface_set : undefined;
}

const MACHINE_NICS_FIXED = 'The simulator changes the interfaces of devices only; a machine keeps the interfaces commissioning found.';

/** On a device: `onDevice`; on a machine: its rendered interfaces, or a refusal for writes. */
function onNode(write: boolean, onDevice: (b: Backend, c: CallContext, systemId: string, nicId: string) => Reply, nested: boolean) {
  return (b: Backend, c: CallContext): Reply => {
    const [systemId, nicId] = nested ? nodeAndNic(c.id) : [c.id, ''];
    if (b.network.devices.has(systemId)) return onDevice(b, c, systemId, nicId);
    const nics = machineNics(b, c, systemId);
    if (nics === undefined) throw notFound('Node');
    if (write) throw badRequest(MACHINE_NICS_FIXED);
    if (!nested) return ok(nics);
    const nic = nics.find((n) => String(n.id) === nicId || n.name === nicId);
    if (!nic) throw notFound('Interface');
    return ok(nic);
  };
}

// link_subnet and unlink_subnet change a machine's links too (machine-links.ts), not only a
// device's; the answer is the interface as MAAS renders it after.
function onMachineOrDevice(onMachine: (b: Backend, c: CallContext, m: MachineRecord, nic: string) => SimNic, onDevice: (b: Backend, c: CallContext, systemId: string, nicId: string) => Reply) {
  return (b: Backend, c: CallContext): Reply => {
    const [systemId, nicId] = nodeAndNic(c.id);
    if (b.network.devices.has(systemId)) return onDevice(b, c, systemId, nicId);
    const m = b.fleet.bySystemId(systemId);
    if (!m) throw notFound('Node');
    const nic = onMachine(b, c, m, nicId);
    return ok(interfaceJson(m, nic, b));
  };
}

// "{fabric}/vlans/{vid}" from the nested VLAN path.
function fabricAndVid(id: string): [string, string] {
  const at = id.indexOf('/vlans/');
  return [id.slice(0, at), id.slice(at + '/vlans/'.length)];
}

export const NETWORK_RESOURCES: readonly Resource[] = [
  {
    name: 'fabrics/',
    pattern: /^fabrics\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.network.listFabrics()),
      'POST ': (b, c) => ok(b.network.createFabric(c.user, c.params)),
    },
  },
  {
    name: 'fabrics/{fabric_id}/vlans/',
    pattern: /^fabrics\/([^/]+)\/vlans\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.listVlans(c.id)),
      'POST ': (b, c) => ok(b.network.createVlan(c.user, c.id, c.params)),
    },
  },
  {
    name: 'fabrics/{fabric_id}/vlans/{vid}/',
    pattern: /^fabrics\/([^/]+\/vlans\/[^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.readVlan(...fabricAndVid(c.id))),
      'PUT ': (b, c) => ok(b.network.updateVlan(c.user, ...fabricAndVid(c.id), c.params)),
      'DELETE ': (b, c) => {
        b.network.deleteVlan(c.user, ...fabricAndVid(c.id));
        return noContent;
      },
    },
  },
  {
    name: 'fabrics/{id}/',
    pattern: /^fabrics\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.readFabric(c.id)),
      'PUT ': (b, c) => ok(b.network.updateFabric(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.network.deleteFabric(c.user, c.id);
        return noContent;
      },
    },
  },
  {
    name: 'vlans/{vlan_id}/',
    pattern: /^vlans\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.readVlan(undefined, c.id)),
      'PUT ': (b, c) => ok(b.network.updateVlan(c.user, undefined, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.network.deleteVlan(c.user, undefined, c.id);
        return noContent;
      },
    },
  },
  {
    name: 'spaces/',
    pattern: /^spaces\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.network.listSpaces()),
      'POST ': (b, c) => ok(b.network.createSpace(c.user, c.params)),
    },
  },
  {
    name: 'spaces/{id}/',
    pattern: /^spaces\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.readSpace(c.id)),
      'PUT ': (b, c) => ok(b.network.updateSpace(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.network.deleteSpace(c.user, c.id);
        return noContent;
      },
    },
  },
  {
    name: 'subnets/',
    pattern: /^subnets\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.network.listSubnets()),
      'POST ': (b, c) => ok(b.network.createSubnet(c.user, c.params)),
    },
  },
  {
    name: 'subnets/{id}/',
    // MAAS takes the id, the name or the CIDR (urls_api.py: `[.: \w-]+(?:/\d\d\d?)?`).
    pattern: /^subnets\/([.: \w%-]+(?:\/\d\d?\d?)?)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.readSubnet(c.id)),
      // get_ipranges_in_use: dynamic and reserved ranges are unavailable as allocated addresses are.
      'GET statistics': (b, c) => ok(b.network.statistics(c.id, [...addressesInUse(b), ...b.ranges.excluded()])),
      'GET reserved_ip_ranges': (b, c) => ok(reservedIpRanges(usage(b, c.id))),
      'GET unreserved_ip_ranges': (b, c) => ok(unreservedIpRanges(usage(b, c.id))),
      'GET ip_addresses': (b, c) => ok(b.network.ipAddresses(c.id, addressHolders(b), c.params)),
      'PUT ': (b, c) => ok(b.network.updateSubnet(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        const gone = b.network.subnetInfo(c.id);
        b.network.deleteSubnet(c.user, c.id);
        // IPRange.subnet is on_delete=CASCADE.
        if (gone) b.ranges.dropSubnet(gone.id);
        return noContent;
      },
    },
  },
  {
    name: 'static-routes/',
    pattern: /^static-routes\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.network.routes.list()),
      'POST ': (b, c) => ok(b.network.routes.create(c.user, c.params)),
    },
  },
  {
    name: 'static-routes/{id}/',
    pattern: /^static-routes\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.routes.read(c.id)),
      'PUT ': (b, c) => ok(b.network.routes.update(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.network.routes.remove(c.user, c.id);
        return noContent;
      },
    },
  },
  {
    name: 'nodes/{system_id}/interfaces/',
    pattern: /^nodes\/([^/]+)\/interfaces\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': onNode(false, (b, c, id) => ok(b.network.devices.listNics(c.user, id)), false),
      'POST create_physical': onNode(true, (b, c, id) => ok(b.network.devices.createNic(c.user, id, c.params, machineView(b))), false),
    },
  },
  {
    name: 'nodes/{system_id}/interfaces/{id}/',
    pattern: /^nodes\/([^/]+\/interfaces\/[^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': onNode(false, (b, c, id, nic) => ok(b.network.devices.readNic(c.user, id, nic)), true),
      'PUT ': onNode(true, (b, c, id, nic) => ok(b.network.devices.updateNic(c.user, id, nic, c.params, machineView(b))), true),
      'DELETE ': onNode(
        true,
        (b, c, id, nic) => {
          b.network.devices.removeNic(c.user, id, nic);
          return noContent;
        },
        true,
      ),
      'POST link_subnet': onMachineOrDevice(
        (b, c, m, nic) => linkMachineSubnet(m, nic, c.params, { user: c.user, net: b.network, inUse: new Set(addressesInUse(b)), nextLinkId: () => b.network.nextLinkId(), ranges: b.ranges }),
        (b, c, id, nic) => ok(b.network.devices.linkSubnet(c.user, id, nic, c.params, addressesInUse(b), b.ranges)),
      ),
      'POST unlink_subnet': onMachineOrDevice(
        (b, c, m, nic) => unlinkMachineSubnet(m, nic, c.params, { user: c.user, net: b.network }),
        (b, c, id, nic) => ok(b.network.devices.unlinkSubnet(c.user, id, nic, c.params)),
      ),
    },
  },
  {
    name: 'devices/',
    pattern: /^devices\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.network.devices.list(c.user, c.params)),
      'POST ': (b, c) => ok(b.network.devices.create(c.user, c.params, machineView(b))),
    },
  },
  {
    name: 'devices/{system_id}/',
    pattern: /^devices\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.network.devices.read(c.user, c.id)),
      'DELETE ': (b, c) => {
        b.network.devices.remove(c.user, c.id);
        return noContent;
      },
    },
  },
];
