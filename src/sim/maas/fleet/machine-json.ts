import type { JsonContext } from './interface-json.ts';
import { interfaceJson, zoneProbeAddress } from './interface-json.ts';
import { powerRead } from './bmc.ts';
import { hardwareInfo } from './hardware.ts';
import type { MachineRecord } from './machine.ts';
import { storageMb } from './machine.ts';
import type { NameRegistry } from '../places/registry.ts';
import { domainJson, poolJson, zoneJson } from '../places/place-json.ts';
import { NodeStatus, statusName } from './status.ts';
import { blockDeviceJson } from './storage-json.ts';

export const API_PREFIX = '/MAAS/api/2.0';

export interface Places {
  readonly zones: NameRegistry;
  readonly pools: NameRegistry;
  readonly domains: NameRegistry;
  readonly defaultDomain: string;
}

// SCRIPT_STATUS of the latest commissioning/testing results: -1 none ("Unknown"), 1 running, 2 passed.
function scriptStatus(m: MachineRecord): { code: number; name: string } {
  if (m.status === NodeStatus.Commissioning) return { code: 1, name: 'Running' };
  if (m.status === NodeStatus.FailedCommissioning) return { code: 3, name: 'Failed' };
  return m.commissioned ? { code: 2, name: 'Passed' } : { code: -1, name: 'Unknown' };
}

function testStatuses(m: MachineRecord): Record<string, number | string> {
  const s = scriptStatus(m);
  const out: Record<string, number | string> = {};
  for (const k of ['commissioning', 'testing', 'cpu_test', 'memory_test', 'network_test', 'storage_test', 'other_test', 'interface_test']) {
    out[`${k}_status`] = s.code;
    out[`${k}_status_name`] = s.name;
  }
  return out;
}

function gatewayIp(m: MachineRecord, ctx: JsonContext): string | null {
  if (!m.commissioned) return null;
  const subnet = ctx.network.subnetForAddress(m.ipAddresses[0] ?? zoneProbeAddress(ctx.places, m.zone));
  return typeof subnet?.gateway_ip === 'string' ? subnet.gateway_ip : null;
}

/**
 * A machine as GET /machines/{id}/ renders it: DISPLAYED_MACHINE_FIELDS of api/machines.py.
 * Before commissioning MAAS knows no CPU, memory, disks or firmware facts, so they read 0/empty.
 */
export function machineJson(m: MachineRecord, ctx: JsonContext) {
  const { places } = ctx;
  const interfaces = m.nics.map((nic) => interfaceJson(m, nic, ctx));
  const disks = m.commissioned ? m.disks.map((d) => blockDeviceJson(m.systemId, d)) : [];
  const known = m.commissioned;
  return {
    system_id: m.systemId,
    hostname: m.hostname,
    description: m.description,
    hardware_uuid: m.hardwareUuid,
    domain: domainJson(m.domain, places),
    fqdn: `${m.hostname}.${m.domain}`,
    owner: m.owner,
    owner_data: { ...m.ownerData },
    locked: m.locked,
    cache_sets: [] as unknown[],
    bcaches: [] as unknown[],
    bios_boot_method: 'pxe',
    boot_interface: interfaces[0] ?? null,
    architecture: m.architecture,
    min_hwe_kernel: m.minHweKernel ?? '',
    hwe_kernel: m.hweKernel,
    cpu_count: known ? m.cpuCount : 0,
    cpu_speed: known ? m.cpuSpeed : 0,
    memory: known ? m.memory : 0,
    swap_size: m.swapSize,
    storage: storageMb(m),
    status: m.status,
    osystem: m.osystem,
    distro_series: m.distroSeries,
    ephemeral_deploy: m.ephemeralDeploy,
    error_description: m.errorDescription,
    netboot: m.status !== NodeStatus.Deployed,
    power_type: m.powerType,
    power_state: powerRead(m),
    tag_names: [...m.tags],
    address_ttl: null,
    ip_addresses: [...m.ipAddresses],
    interface_set: interfaces,
    zone: zoneJson(m.zone, places),
    pool: poolJson(m.pool, places),
    disable_ipv4: false,
    boot_disk: disks[0] ?? null,
    blockdevice_set: disks,
    physicalblockdevice_set: disks,
    virtualblockdevice_set: [] as unknown[],
    volume_groups: [] as unknown[],
    raids: [] as unknown[],
    status_action: '',
    status_message: m.statusMessage,
    status_name: statusName(m.status),
    node_type: 0,
    node_type_name: 'Machine',
    special_filesystems: [] as unknown[],
    parent: null,
    pod: null,
    virtualmachine_id: null,
    default_gateways: { ipv4: { gateway_ip: gatewayIp(m, ctx), link_id: null }, ipv6: { gateway_ip: null, link_id: null } },
    current_commissioning_result_id: known ? 1 : null,
    current_testing_result_id: known ? 2 : null,
    current_installation_result_id: m.status === NodeStatus.Deployed ? 3 : null,
    ...testStatuses(m),
    hardware_info: hardwareInfo(m.hardwareInfo, known),
    numanode_set: known ? [{ index: 0, memory: m.memory, cores: Array.from({ length: m.cpuCount }, (_, i) => i), hugepages_set: [] as unknown[] }] : [],
    // The same OwnerData rows as owner_data (WorkloadAnnotationsMixin; owner_data is its deprecated name).
    workload_annotations: { ...m.ownerData },
    last_sync: null,
    sync_interval: null,
    next_sync: null,
    enable_hw_sync: m.enableHwSync,
    enable_kernel_crash_dump: false,
    is_dpu: false,
    resource_uri: `${API_PREFIX}/machines/${m.systemId}/`,
  };
}
