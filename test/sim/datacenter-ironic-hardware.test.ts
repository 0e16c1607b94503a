// The installed, real Ironic (21.4 on Debian 12, 29.0 on Debian 13) inspects, configures RAID on and fails to log in to servers of the virtual
// datacenter through its redfish interfaces; and a boot nobody prepared boots nothing.
import test from 'ava';
import { HAVE_IRONIC, startDatacenterIronic } from './datacenter/fixture.ts';
import type { DatacenterIronic } from './datacenter/fixture.ts';
import type { IronicApiError } from './datacenter/ironic-api.ts';
import { waitUntil } from '../support/wait.ts';
import { sushyOverlay } from '../../src/sim/ironic/index.ts';
import { inspectedMemoryMb, ironicExpectationsAt } from '../support/ironic-expect.ts';

const run = HAVE_IRONIC ? test : test.skip;
let env: DatacenterIronic;

// The inspected server is not the default shape, so the numbers Ironic reports can only be its own.
const INSPECTED = { id: 'inspected', cpuCount: 1, coresPerCpu: 12, memoryGiB: 48 } as const;

test.before(async () => {
  if (!HAVE_IRONIC) return;
  env = await startDatacenterIronic({ systems: [INSPECTED, { id: 'raid' }, { id: 'locked' }, { id: 'unprepared' }] });
});
test.after.always(async () => {
  await env?.stop();
});

function systemInfo(id: string) {
  const sys = env.dc.systems.find((s) => s.id === id);
  if (sys === undefined) throw new Error(`no system ${id}`);
  return sys;
}

run('datacenter ironic - redfish inspection fills cpus, memory, disk and arch, creates a port per simulated MAC and keeps its inventory where Ironic stores it', async (t) => {
  const { dc, api } = env;
  const want = await ironicExpectationsAt(env.ironic.url);
  const sys = systemInfo('inspected');
  const { uuid } = await api.enrol(dc, sys, { name: 'inspected', boot: 'ipxe', ports: false });
  await api.provision(uuid, 'manage');
  await api.waitProvision(uuid, 'manageable');
  await api.provision(uuid, 'inspect');
  const node = await api.waitProvision(uuid, 'manageable');
  const drives = dc.server(sys.id).system.state.drives.map((d) => d.capacityBytes);
  // Ironic's redfish inspect: logical CPUs (threads), GiB → MiB, the smallest disk in GiB less one.
  t.like(node.properties, {
    cpus: INSPECTED.cpuCount * INSPECTED.coresPerCpu * 2,
    memory_mb: inspectedMemoryMb(want, INSPECTED.memoryGiB),
    local_gb: String(Math.floor(Math.min(...drives) / 2 ** 30 - 1)),
    cpu_arch: 'x86_64',
  });
  t.deepEqual(await api.ports(uuid), [...sys.macs].sort());
  const inventory = await api.call<{ inventory: { memory?: { physical_mb?: unknown }; cpu?: { count?: unknown }; interfaces?: { mac_address: string }[] } }>('GET', `/nodes/${uuid}/inventory`)
    .then((body) => ({ status: 200, message: '', body }), (err: IronicApiError) => ({ status: err.status, message: err.message, body: null }));
  if (want.redfishInspectionStoresInventory) {
    // What redfish inspect built (drivers/modules/redfish/inspect.py): memory, CPUs, every MAC.
    t.is(inventory.status, 200, inventory.message);
    t.like(inventory.body?.inventory, { memory: { physical_mb: INSPECTED.memoryGiB * 1024 }, cpu: { count: INSPECTED.cpuCount * INSPECTED.coresPerCpu * 2 } });
    t.deepEqual((inventory.body?.inventory.interfaces ?? []).map((i) => i.mac_address.toLowerCase()).sort(), [...sys.macs].map((m) => m.toLowerCase()).sort());
  } else {
    // Ironic 21.4 keeps an inventory (API 1.81) only from ironic-inspector: redfish inspection stores none.
    t.is(inventory.status, 404);
    t.regex(inventory.message, /Node inventory record for node \d+ could not be found/);
  }
  // The redfish bios interface cached the simulated BIOS when the node became manageable.
  const bios = await api.call<{ bios: { name: string; value: unknown; attribute_type: string | null }[] }>('GET', `/nodes/${uuid}/bios?detail=True`);
  const system = dc.server(sys.id).system;
  t.true(bios.bios.length > 0, 'BIOS settings cached');
  // Ironic 21.4 answers every value as a string, a boolean as "1" or "0"; a password reads null.
  const asIronicKeeps = (v: unknown): string => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  const passwords = Object.fromEntries(Object.keys(system.state.bios.passwords).map((name) => [name, null]));
  t.deepEqual(Object.fromEntries(bios.bios.map((b) => [b.name, b.value])), { ...Object.fromEntries(Object.entries(system.state.bios.current).map(([k, v]) => [k, asIronicKeeps(v)])), ...passwords });
  // This Ironic runs on the sushy as installed: Debian's lacks standard_registries/, so no registry field is filled.
  if ((await sushyOverlay()) !== null) t.true(bios.bios.every((b) => b.attribute_type === null), 'Debian\'s sushy reads no registry');
});

run('datacenter ironic - RAID through a manual clean: the controller gets the target volume, a later clean deletes it', async (t) => {
  const { dc, api } = env;
  const sys = systemInfo('raid');
  const system = dc.server(sys.id).system;
  const { uuid } = await api.enrol(dc, sys, { name: 'raid', boot: 'ipxe' });
  await api.provision(uuid, 'manage');
  await api.waitProvision(uuid, 'manageable');
  await api.call('PUT', `/nodes/${uuid}/states/raid`, { logical_disks: [{ size_gb: 100, raid_level: '1', controller: '1' }] });
  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'raid', step: 'delete_configuration' }, { interface: 'raid', step: 'create_configuration' }] });
  let node = await api.waitProvision(uuid, 'manageable');
  t.is(node.last_error, null);
  t.is(system.state.volumes.length, 1, 'one volume on the simulated controller');
  t.like(system.state.volumes[0], { raidType: 'RAID1', capacityBytes: 100 * 2 ** 30 });
  // The controller is the Storage resource's Id, as Ironic's redfish raid names it.
  t.like(node.raid_config, { logical_disks: [{ raid_level: '1', size_gb: 100, controller: '1' }] });

  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'raid', step: 'delete_configuration' }] });
  node = await api.waitProvision(uuid, 'manageable');
  t.deepEqual(system.state.volumes, [], 'the volume is deleted');
  t.deepEqual(node.raid_config.logical_disks, []);
});

run('datacenter ironic - a wrong BMC password: manage fails with the authentication error and the node stays enroll', async (t) => {
  const { dc, api } = env;
  const sys = systemInfo('locked');
  const wrong = 'not-the-password-9f3c';
  const { uuid } = await api.enrol(dc, sys, { name: 'locked', boot: 'ipxe', password: wrong });
  await api.provision(uuid, 'manage');
  const node = await api.waitNode(uuid, (n) => n.target_provision_state === null && n.last_error !== null, 'manage to fail', 30_000);
  t.is(node.provision_state, 'enroll');
  // sushy's words for the BMC's 401: "returned code 401 ... no valid session".
  t.regex(node.last_error ?? '', /Failed to get power state/);
  t.regex(node.last_error ?? '', /returned code 401\b.*session/i);
  t.false((node.last_error ?? '').includes(wrong), 'the password sent is not in last_error');
  t.false((node.last_error ?? '').includes(sys.password), 'the BMC password is not in last_error');
  t.false(dc.server(sys.id).system.state.on);
});

run('datacenter ironic - a PXE boot Ironic did not prepare boots nothing and starts no agent', async (t) => {
  const { dc, api } = env;
  const sys = systemInfo('unprepared');
  const server = dc.server(sys.id);
  const { uuid } = await api.enrol(dc, sys, { name: 'unprepared', boot: 'ipxe' });
  await api.provision(uuid, 'manage');
  await api.waitProvision(uuid, 'manageable');
  await api.call('PUT', `/nodes/${uuid}/management/boot_device`, { boot_device: 'pxe', persistent: false });
  t.like(server.system.state.boot, { target: 'Pxe', enabled: 'Once' });
  await api.power(uuid, 'power on');
  await api.waitPower(uuid, 'power on');
  await waitUntil(() => server.boots.length === 1, 10_000, 'the server to boot');
  await server.settled();
  t.like(server.boots[0], { kind: 'nothing' });
  t.regex(server.boots[0]?.detail ?? '', /no iPXE config/);
  t.is(server.agent, null, 'no agent started');
  const node = await api.node(uuid);
  t.is(node.driver_internal_info.agent_url, undefined, 'no agent looked itself up');
  t.is(node.provision_state, 'manageable');
});
