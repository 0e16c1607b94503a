// Machine JSON as real MAAS renders it: every field juju's gomaasapi checks (machine.go,
// interface.go, link.go, subnet.go, vlan.go, blockdevice.go, partition.go, filesystem.go, zone.go,
// pool.go, domain.go), checked here with the same required fields and types.
import test from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf, ok } from '../support/maas-http.ts';

type Json = Record<string, unknown>;
type Check = (v: unknown) => boolean;

const str: Check = (v) => typeof v === 'string';
const int: Check = (v) => typeof v === 'number' && Number.isInteger(v);
const uint: Check = (v) => int(v) && (v as number) >= 0;
const bool: Check = (v) => typeof v === 'boolean';
const map: Check = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const nil = (c: Check): Check => (v) => v === null || c(v);
const list = (c: Check): Check => (v) => Array.isArray(v) && v.every(c);
const stringMap: Check = (v) => map(v) && Object.values(v as Json).every(str);

/** Field → check, as a gomaasapi schema.Fields; `optional` lists the fields with defaults. */
function schema(fields: Record<string, Check>, optional: readonly string[] = []) {
  return (v: unknown, where: string): string[] => {
    if (!map(v)) return [`${where}: not an object`];
    const o = v as Json;
    return Object.entries(fields).flatMap(([k, check]) => {
      if (!(k in o)) return optional.includes(k) ? [] : [`${where}.${k}: missing`];
      return check(o[k]) ? [] : [`${where}.${k}: wrong type (${JSON.stringify(o[k])})`];
    });
  };
}

const vlanSchema = schema({ id: int, resource_uri: str, name: nil(str), fabric: str, vid: int, mtu: int, dhcp_on: bool, primary_rack: nil(str), secondary_rack: nil(str) });
const subnetSchema = schema({ resource_uri: str, id: int, name: str, space: str, gateway_ip: nil(str), cidr: str, vlan: map, dns_servers: nil(list(str)) });
const linkSchema = schema({ id: int, mode: str, subnet: map, ip_address: str }, ['subnet', 'ip_address']);
const interfaceSchema = schema({
  resource_uri: str, id: int, name: str, type: str, enabled: bool, tags: nil(list(str)), vlan: nil(map), links: list(map),
  mac_address: nil(str), effective_mtu: int, parents: list(str), children: list(str),
}, ['mac_address']);
const filesystemSchema = schema({ fstype: str, mount_point: nil(str), label: nil(str), uuid: str }, ['mount_point', 'label']);
const partitionSchema = schema({ resource_uri: str, id: int, path: str, uuid: nil(str), used_for: str, size: uint, tags: list(str), filesystem: nil(map) }, ['tags']);
const blockDeviceSchema = schema({
  resource_uri: str, id: int, uuid: nil(str), name: str, model: nil(str), id_path: nil(str), path: str, used_for: str, tags: list(str),
  block_size: uint, used_size: uint, size: uint, filesystem: nil(map), partitions: list(map),
});
const zoneSchema = schema({ name: str, description: str, resource_uri: str });
const domainSchema = schema({ authoritative: bool, resource_record_count: int, ttl: nil(int), resource_uri: str, id: int, name: str });
const machineSchema = schema({
  resource_uri: str, system_id: str, hostname: str, fqdn: str, tag_names: list(str), owner_data: stringMap, osystem: str, distro_series: str,
  architecture: nil(str), memory: int, cpu_count: int, hardware_info: stringMap, ip_addresses: list(str), power_state: str, status_name: str,
  status_message: nil(str), boot_interface: nil(map), interface_set: list(map), zone: map, pool: nil(map), physicalblockdevice_set: list(map),
  blockdevice_set: list(map),
}, ['architecture']);

/** Every schema gomaasapi applies to a machine and what it holds. */
function gomaasapiErrors(m: Json): string[] {
  const errors = machineSchema(m, 'machine');
  const ifaces = [...((m.interface_set as unknown[]) ?? []), ...(m.boot_interface ? [m.boot_interface] : [])] as Json[];
  ifaces.forEach((iface, i) => {
    errors.push(...interfaceSchema(iface, `interface[${i}]`));
    if (iface.vlan) errors.push(...vlanSchema(iface.vlan, `interface[${i}].vlan`));
    ((iface.links as Json[]) ?? []).forEach((link, j) => {
      errors.push(...linkSchema(link, `interface[${i}].links[${j}]`));
      if (link.subnet) errors.push(...subnetSchema(link.subnet, `interface[${i}].links[${j}].subnet`), ...vlanSchema((link.subnet as Json).vlan, `interface[${i}].links[${j}].subnet.vlan`));
    });
  });
  const devices = [...((m.physicalblockdevice_set as Json[]) ?? []), ...((m.blockdevice_set as Json[]) ?? [])];
  devices.forEach((d, i) => {
    errors.push(...blockDeviceSchema(d, `blockdevice[${i}]`));
    ((d.partitions as Json[]) ?? []).forEach((p, j) => {
      errors.push(...partitionSchema(p, `blockdevice[${i}].partitions[${j}]`));
      if (p.filesystem) errors.push(...filesystemSchema(p.filesystem, `blockdevice[${i}].partitions[${j}].filesystem`));
    });
  });
  errors.push(...zoneSchema(m.zone, 'zone'), ...(m.pool ? zoneSchema(m.pool, 'pool') : []), ...domainSchema(m.domain, 'domain'));
  return errors;
}

async function started(t: { teardown(fn: () => Promise<void>): void }, o: Parameters<typeof startMaasSim>[0] = {}): Promise<MaasSim> {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0, ...o });
  t.teardown(() => sim.stop());
  return sim;
}

test('maas machines json - every machine of GET machines/ passes gomaasapi machine_2_0 and its nested schemas', async (t) => {
  const sim = await started(t);
  const machines = ok<Json[]>(await call(sim, 'GET', 'machines/'));
  t.true(machines.length >= 10);
  for (const m of machines) t.deepEqual(gomaasapiErrors(m), [], String(m.hostname));
});

test('maas machines json - a deployed machine: boot interface linked to its zone subnet with the address, still valid', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-05');
  ok(await call(sim, 'POST', `machines/${id}/`, [['op', 'deploy']]));
  const deadline = Date.now() + 5_000;
  while (sim.machine(id)?.status_name !== 'Deployed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const m = ok<Json>(await call(sim, 'GET', `machines/${id}/`));
  t.deepEqual(gomaasapiErrors(m), []);
  const boot = m.boot_interface as Json;
  const [link] = boot.links as Json[];
  t.is(link?.mode, 'auto');
  t.deepEqual(m.ip_addresses, [link?.ip_address]);
  t.false(m.netboot);
  t.is(m.status_message, 'Deployed');
});

test('maas machines json - hardware, storage and the system_id look as MAAS makes them', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-03');
  t.regex(id, /^[a-z0-9]{6}$/);
  const m = ok<Json>(await call(sim, 'GET', `machines/${id}/`));
  t.like(m, { architecture: 'amd64/generic', cpu_count: 16, cpu_speed: 2400, memory: 32768, storage: 480000, power_type: 'ipmi', node_type_name: 'Machine', locked: false, netboot: true });
  const hw = m.hardware_info as Record<string, string>;
  t.is(hw.system_vendor, 'Simulated Systems');
  t.is(Object.keys(hw).length, 18);
  const [disk] = m.physicalblockdevice_set as Json[];
  t.like(disk, { name: 'sda', size: 480_000_000_000, type: 'physical', path: '/dev/disk/by-dname/sda', tags: ['ssd'], used_for: 'MBR partitioned with 1 partition' });
  t.deepEqual(m.boot_disk, disk);
  const [part] = (disk?.partitions as Json[]) ?? [];
  t.like(part, { type: 'partition', used_for: 'ext4 formatted filesystem mounted at /' });
  t.like(part?.filesystem, { fstype: 'ext4', mount_point: '/', label: 'root' });
  t.is(m.commissioning_status_name, 'Passed');
  t.regex(String((m.interface_set as Json[])[0]?.resource_uri), new RegExp(`^/MAAS/api/2\\.0/nodes/${id}/interfaces/\\d+/$`));
});

test('maas machines json - a New machine is not commissioned yet: no cpu, memory, disks or firmware facts', async (t) => {
  const sim = await started(t, { machines: [{ hostname: 'fresh', cpuCount: 8, memoryMb: 16384, status: 'New' }] });
  const m = ok<Json>(await call(sim, 'GET', `machines/${idOf(sim, 'fresh')}/`));
  t.deepEqual(gomaasapiErrors(m), []);
  t.like(m, { status_name: 'New', cpu_count: 0, memory: 0, storage: 0, boot_disk: null, physicalblockdevice_set: [], commissioning_status: -1, commissioning_status_name: 'Unknown' });
  t.true(Object.values(m.hardware_info as Record<string, string>).every((v) => v === 'Unknown'));
  t.deepEqual((m.boot_interface as Json).links, []);
});

test('maas machines json - a fleet file describes disks and NICs; they show as block devices and interfaces', async (t) => {
  const sim = await started(t, {
    machines: [{
      hostname: 'big', cpuCount: 32, memoryMb: 131072, architecture: 'arm64/generic', cpuSpeedMhz: 3000,
      disks: [{ sizeGb: 240, tags: ['ssd'] }, { name: 'sdb', sizeGb: 4000, tags: ['rotary', 'data'] }],
      nics: [{ name: 'eno1', mac: '52:54:00:aa:bb:01' }, { name: 'eno2', mac: '52:54:00:aa:bb:02', linkSpeedMbps: 25000 }],
      hardware: { system_vendor: 'Acme' },
    }],
  });
  const m = ok<Json>(await call(sim, 'GET', `machines/${idOf(sim, 'big')}/`));
  t.deepEqual(gomaasapiErrors(m), []);
  t.like(m, { architecture: 'arm64/generic', cpu_speed: 3000, storage: 4_240_000 });
  t.is((m.hardware_info as Record<string, string>).system_vendor, 'Acme');
  const disks = m.physicalblockdevice_set as Json[];
  t.deepEqual(disks.map((d) => [d.name, d.size, d.tags, d.used_for]), [
    ['sda', 240e9, ['ssd'], 'MBR partitioned with 1 partition'],
    ['sdb', 4000e9, ['rotary', 'data'], 'Unused'],
  ]);
  const nics = m.interface_set as Json[];
  t.deepEqual(nics.map((n) => [n.name, n.mac_address, n.interface_speed]), [['eno1', '52:54:00:aa:bb:01', 1000], ['eno2', '52:54:00:aa:bb:02', 25000]]);
});

test('maas machines json - nodes/{id}/blockdevices/ and its partitions read back what the machine JSON shows', async (t) => {
  const sim = await started(t);
  const id = idOf(sim, 'node-04');
  const m = ok<Json>(await call(sim, 'GET', `machines/${id}/`));
  const disks = ok<Json[]>(await call(sim, 'GET', `nodes/${id}/blockdevices/`));
  t.deepEqual(disks, m.blockdevice_set);
  const [root] = disks;
  t.deepEqual(ok<Json>(await call(sim, 'GET', `nodes/${id}/blockdevices/${String(root?.id)}/`)), root);
  const parts = ok<Json[]>(await call(sim, 'GET', `nodes/${id}/blockdevices/${String(root?.id)}/partitions/`));
  t.deepEqual(parts, root?.partitions);
  const uri = String(parts[0]?.resource_uri).replace('/MAAS/api/2.0/', '');
  t.deepEqual(ok<Json>(await call(sim, 'GET', uri)), parts[0]);
  const missing = await call(sim, 'GET', `nodes/${id}/blockdevices/999999/`);
  t.is(missing.status, 404);
  t.is(missing.text, 'No BlockDevice matches the given query.');
});
