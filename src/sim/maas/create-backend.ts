import type { Backend } from './backend.ts';
import type { SimClock } from './clock.ts';
import { EventLog } from './fleet/events.ts';
import type { MaasFaults } from './fleet/faults.ts';
import { DEFAULT_ZONE_ADDRESSES, Fleet } from './fleet/fleet.ts';
import type { SeedMachine } from './fleet/seed.ts';
import type { LifecycleTimings } from './fleet/timings.ts';
import { Network } from './network/network.ts';
import { ReservedIps } from './network/reserved-ips.ts';
import { IpRanges } from './network/ip-ranges.ts';
import { reservationWorld } from './api/ipaddresses.ts';
import type { MaasSimOptions } from './options.ts';
import { DnsResources } from './places/dns.ts';
import { buildPlaces } from './places/seed-places.ts';
import { TagBook } from './places/tags.ts';
import type { Accounts } from './site/accounts.ts';
import { ADMIN_NAME } from './site/api-keys.ts';
import { MaasConfig } from './site/maas-config.ts';
import { FileStore } from './files/file-store.ts';

export interface BackendDeps {
  readonly seeds: readonly SeedMachine[];
  readonly accounts: Accounts;
  readonly timings: LifecycleTimings;
  readonly clock: SimClock;
  /** The faults in force now: setFaults replaces them while the simulator runs. */
  readonly faults: () => MaasFaults;
}

/** Everything one simulated MAAS holds, seeded from the options. */
export function createBackend(o: MaasSimOptions, { seeds, accounts, timings, clock, faults }: BackendDeps): Backend {
  const places = buildPlaces(o.domains ?? ['maas'], seeds);
  const tags = new TagBook();
  const events = new EventLog(clock);
  const config = new MaasConfig({ enable_disk_erasing_on_release: o.eraseOnRelease ?? false });
  // Made after the fleet, which asks them (through this) which addresses a deploy must not claim.
  const later: { ips?: ReservedIps; dns?: DnsResources; network?: Network; ranges?: IpRanges } = {};
  const fleet = new Fleet(seeds, places, tags, {
    ...timings,
    // Read at each release, so maas/ op=set_config enable_disk_erasing_on_release takes effect.
    get eraseOnRelease() {
      return config.get('enable_disk_erasing_on_release') === true;
    },
    zoneAddresses: o.zoneAddresses ?? DEFAULT_ZONE_ADDRESSES,
    clock,
    faults,
    seedOwner: ADMIN_NAME,
    events,
    speed: o.speed ?? 1,
    ...(o.bootResources ? { bootResources: o.bootResources } : {}),
    // Every StaticIPAddress row is taken for a deploy's AUTO claim: reservations, the addresses of
    // DNS resources (USER_RESERVED rows, DNSResourceForm.save) and devices' links (STICKY rows).
    addressesHeld: () => [
      ...(later.ips?.addresses() ?? []),
      ...(later.dns?.snapshot().flatMap((r) => r.ips) ?? []),
      ...(later.network?.devices.addresses() ?? []),
      // Not rows, but no AUTO address is ever given inside a dynamic or reserved range.
      ...(later.ranges?.excluded() ?? []),
    ],
  });
  const network = new Network(places);
  const dns = new DnsResources(places, clock, (ip) => network.subnetForAddress(ip));
  // Subnets the seeds cable NICs to exist from the start, as an admin would have made them.
  for (const seed of seeds) for (const nic of seed.nics ?? []) if (nic.subnet !== undefined) network.ensureSubnet(nic.subnet);
  // Saved links (`--save`), on their subnets: one an admin made comes back as NICs' subnets do.
  fleet.restoreLinks((cidr) => {
    network.ensureSubnet(cidr);
    return network.subnetInfo(cidr)?.id ?? null;
  }, () => network.nextLinkId());
  const ranges = new IpRanges({
    subnetBySpecifier: (text) => network.subnetInfo(text),
    subnetForIp: (ip) => network.subnetOfAddress(ip),
    subnetJson: (id) => network.subnetJsonById(id),
    userJson: (name) => accounts.userJson(name),
    addressesInUse: () => [...fleet.all().flatMap((m) => m.ipAddresses), ...(later.ips?.addresses() ?? []), ...dns.snapshot().flatMap((r) => r.ips), ...network.devices.addresses()],
  });
  const ips = new ReservedIps(reservationWorld({ fleet, dns, network, events, ranges }));
  Object.assign(later, { ips, dns, network, ranges });
  return { fleet, dns, tags, places, network, ips, ranges, events, accounts, config, files: new FileStore() };
}
