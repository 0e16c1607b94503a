import type { MachineRecord } from './machine.ts';
import type { NameRegistry } from './registry.ts';
import { domainJson, poolJson, zoneJson } from './place-json.ts';
import { statusName } from './status.ts';

export const API_PREFIX = '/MAAS/api/2.0';

export interface Places {
  readonly zones: NameRegistry;
  readonly pools: NameRegistry;
  readonly domains: NameRegistry;
  readonly defaultDomain: string;
}

/** A machine as GET /machines/{id}/ renders it: the fields of capmaas.md §3.3 and their neighbours. */
export function machineJson(m: MachineRecord, places: Places) {
  const bootInterface = {
    id: m.interfaceId,
    name: 'eth0',
    type: 'physical',
    enabled: true,
    mac_address: m.macAddress,
    children: [] as string[],
    parents: [] as string[],
    tags: [] as string[],
    links: m.ipAddresses.map((ip, i) => ({ id: m.interfaceId * 10 + i, mode: 'auto', ip_address: ip })),
    system_id: m.systemId,
    resource_uri: `${API_PREFIX}/nodes/${m.systemId}/interfaces/${m.interfaceId}/`,
  };
  return {
    system_id: m.systemId,
    hostname: m.hostname,
    description: m.description,
    domain: domainJson(m.domain, places),
    fqdn: `${m.hostname}.${m.domain}`,
    owner: m.owner,
    owner_data: { ...m.ownerData },
    locked: false,
    architecture: 'amd64/generic',
    min_hwe_kernel: '',
    hwe_kernel: m.hweKernel,
    cpu_count: m.cpuCount,
    cpu_speed: 0,
    memory: m.memory,
    swap_size: m.swapSize,
    storage: m.storageMb,
    status: m.status,
    status_name: statusName(m.status),
    status_message: '',
    status_action: '',
    osystem: m.osystem,
    distro_series: m.distroSeries,
    netboot: m.status !== 6,
    power_type: m.powerType,
    power_state: m.powerState,
    tag_names: [...m.tags],
    address_ttl: null,
    ip_addresses: [...m.ipAddresses],
    interface_set: [bootInterface],
    boot_interface: bootInterface,
    zone: zoneJson(m.zone, places),
    pool: poolJson(m.pool, places),
    parent: null,
    pod: null,
    virtualmachine_id: null,
    node_type: 0,
    node_type_name: 'Machine',
    ephemeral_deploy: m.ephemeralDeploy,
    disable_ipv4: false,
    resource_uri: `${API_PREFIX}/machines/${m.systemId}/`,
  };
}
