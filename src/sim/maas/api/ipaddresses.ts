import type { Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import type { Fleet } from '../fleet/fleet.ts';
import type { Network } from '../network/network.ts';
import type { ReservationWorld } from '../network/reserved-ips.ts';
import { AllocType } from '../network/subnet-ips.ts';
import type { DnsResources } from '../places/dns.ts';
import type { EventLog } from '../fleet/events.ts';
import type { IpRanges } from '../network/ip-ranges.ts';

// ipaddresses/ (IPAddressesHandler): list, op=reserve, op=release. Release answers 204
// (piston's rc.DELETED), as MAAS does.

export const IP_ADDRESS_RESOURCES: readonly Resource[] = [
  {
    name: 'ipaddresses/',
    pattern: /^ipaddresses\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.ips.list(c.user, c.params)),
      'POST reserve': (b, c) => ok(b.ips.reserve(c.user, c.params)),
      'POST release': (b, c) => {
        b.ips.release(c.user, c.params);
        return noContent;
      },
    },
  },
];

/** What reservations read of the rest of one simulated MAAS. */
export function reservationWorld(parts: { fleet: Fleet; dns: DnsResources; network: Network; events: EventLog; ranges: IpRanges }): ReservationWorld {
  const { fleet, dns, network, events, ranges } = parts;
  return {
    rangeExcluded: (cidr) => ranges.excluded(cidr),
    refuseInRange: (ip) => ranges.refuse(ip),
    now: () => events.now(),
    subnetBySpecifier: (text) => network.subnetInfo(text),
    subnetForIp: (ip) => network.subnetOfAddress(ip),
    subnetJson: (id) => network.subnetJsonById(id),
    addressesHeld: () => [...fleet.all().flatMap((m) => m.ipAddresses), ...dns.snapshot().flatMap((r) => r.ips), ...network.devices.addresses()],
    nodeWithMac: (mac) => {
      const m = mac.toLowerCase().replace(/-/g, ':');
      return fleet.all().find((r) => r.nics.some((n) => n.mac === m))?.hostname ?? network.devices.hostnameWithMac(m);
    },
    checkHostname: (hostname) => {
      dns.reservedName(hostname);
    },
    attachName: (hostname, ip) => dns.addReserved(dns.reservedName(hostname), ip),
    detachAddress: (ip) => dns.dropAddress(ip),
    dnsReserved: () => dns.addressHolders().map((h) => ({ ip: h.ip, created: h.created })),
    allHolders: () => [
      ...fleet.all().flatMap((m) => m.ipAddresses.map((ip) => ({ ip, allocType: AllocType.auto, user: m.owner, created: network.firstSeen(ip, events.now()) }))),
      ...network.devices.addressHolders().map(({ device, ip }) => ({ ip, allocType: AllocType.sticky, user: device.owner, created: network.firstSeen(ip, events.now()) })),
      ...dns.addressHolders().map((h) => ({ ip: h.ip, allocType: AllocType.userReserved, user: 'admin', created: h.created })),
    ],
  };
}
