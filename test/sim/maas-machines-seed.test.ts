// A fleet file carries hardware and state; sim.seeds() writes the fleet as it is now in the same
// format, and a simulator started from it has the same machines (ids, status, owner, hardware).
import test from 'ava';
import { stringify } from 'yaml';
import { parseSeedMachines, startMaasSim } from '../../src/sim/maas/index.ts';
import { call, idOf, manualClock, ok } from '../support/maas-http.ts';

const FLEET = `
- hostname: db-1
  zone: az1
  cpuCount: 16
  memoryMb: 65536
  tags: [ssd]
  architecture: arm64/generic
  disks:
    - { sizeGb: 480, tags: [ssd] }
    - { name: sdb, sizeGb: 4000, model: BIGDISK, tags: [rotary] }
  nics:
    - { name: eno1, mac: "52:54:00:00:00:01" }
    - { name: eno2, mac: "52:54:00:00:00:02", linkSpeedMbps: 10000 }
  hardware: { system_vendor: Acme, cpu_model: Acme R1 }
- hostname: web-1
  cpuCount: 4
  memoryMb: 8192
  status: Deployed
  owner: user
  osystem: ubuntu
  distroSeries: jammy
- hostname: spare
  cpuCount: 2
  memoryMb: 2048
  status: New
`;

test('maas machines seed - a fleet file with hardware and state loads; seeds() round-trips through YAML', async (t) => {
  const clock = manualClock();
  const sim = await startMaasSim({ clock, deployMs: 1000, releaseMs: 100, machines: parseSeedMachines(FLEET, 'fleet.yaml') });
  t.teardown(() => sim.stop());
  t.like(sim.machine('web-1'), { status_name: 'Deployed', owner: 'user', distro_series: 'jammy', power_state: 'on' });
  t.like(sim.machine('spare'), { status_name: 'New' });
  const db = idOf(sim, 'db-1');
  ok(await call(sim, 'POST', `machines/${db}/`, [['op', 'deploy'], ['distro_series', 'noble']]));
  ok(await call(sim, 'POST', `machines/${db}/`, [['op', 'set_owner_data'], ['owner', 'team-a']]));
  // Saved mid-deploy: the machine is saved where it was heading.
  const saved = stringify(sim.seeds());
  const again = await startMaasSim({ clock, deployMs: 1000, releaseMs: 100, machines: parseSeedMachines(saved, 'saved.yaml') });
  t.teardown(() => again.stop());
  t.deepEqual(again.machines().map((m) => m.system_id), sim.machines().map((m) => m.system_id));
  t.like(again.machine(db), { status_name: 'Deployed', owner: 'admin', distro_series: 'noble', owner_data: { owner: 'team-a' } });
  t.like(again.machine('web-1'), { status_name: 'Deployed', owner: 'user' });
  t.like(again.machine('spare'), { status_name: 'New' });
  const a = ok<Record<string, unknown>>(await call(sim, 'GET', `machines/${db}/`));
  const b = ok<Record<string, unknown>>(await call(again, 'GET', `machines/${db}/`));
  for (const field of ['architecture', 'hardware_info', 'interface_set', 'physicalblockdevice_set', 'storage', 'cpu_count', 'memory', 'tag_names']) {
    t.deepEqual(b[field], a[field], field);
  }
  // A saved fleet saves the same again: nothing drifts across restarts.
  t.deepEqual(again.seeds(), parseSeedMachines(saved, 'saved.yaml'));
});

test('maas machines seed - a fresh Ready machine saves without a status line, as it was written', async (t) => {
  const sim = await startMaasSim({ machines: [{ hostname: 'plain', cpuCount: 2, memoryMb: 4096 }] });
  t.teardown(() => sim.stop());
  const [seed] = sim.seeds();
  t.is(seed?.status, undefined);
  t.is(seed?.hostname, 'plain');
});

test('maas machines seed - bad hardware is refused naming the file and the field', (t) => {
  t.throws(() => parseSeedMachines('- { hostname: a, cpuCount: 1, memoryMb: 1, disks: [{ sizeGb: 0 }] }', 'f.yaml'), { message: /f\.yaml: \[0\]\.disks\[0\]\.sizeGb: must be more than 0/ });
  t.throws(() => parseSeedMachines('- { hostname: a, cpuCount: 1, memoryMb: 1, nics: [{ mac: nope }] }', 'f.yaml'), { message: /f\.yaml: \[0\]\.nics\[0\]\.mac: must be a MAC address/ });
  t.throws(
    () => parseSeedMachines('- { hostname: a, cpuCount: 1, memoryMb: 1, nics: [{ mac: "52:54:00:00:00:01" }] }\n- { hostname: b, cpuCount: 1, memoryMb: 1, nics: [{ mac: "52:54:00:00:00:01" }] }', 'f.yaml'),
    { message: /\[1\]\.nics\[0\]\.mac: 52:54:00:00:00:01 is already the MAC of machine \[0\]\.nics\[0\]/ },
  );
  t.throws(() => parseSeedMachines('- { hostname: a, cpuCount: 1, memoryMb: 1, systemId: ABC }', 'f.yaml'), { message: /systemId: must be 6 lowercase letters or digits/ });
  t.throws(() => parseSeedMachines('- { hostname: a, cpuCount: 1, memoryMb: 1, status: Deploying }', 'f.yaml'), { message: /status: must be one of Ready, New/ });
});

test('maas machines seed - a restart keeps each deployed machine on its addresses, whatever order they deployed in', async (t) => {
  const clock = manualClock();
  const machines = [{ hostname: 'cp-1', cpuCount: 4, memoryMb: 8192 }, { hostname: 'cp-2', cpuCount: 4, memoryMb: 8192 }];
  const sim = await startMaasSim({ clock, deployMs: 100, releaseMs: 100, machines });
  t.teardown(() => sim.stop());
  // Deployed in the other order than the fleet lists them: cp-2 gets the zone's first address.
  for (const hostname of ['cp-2', 'cp-1']) {
    ok(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ['name', hostname]]));
    ok(await call(sim, 'POST', `machines/${idOf(sim, hostname)}/`, [['op', 'deploy']]));
    clock.advance(200);
  }
  const before = Object.fromEntries(['cp-1', 'cp-2'].map((h) => [h, sim.machine(h)?.ip_addresses]));
  // A MAAS region restarting keeps its StaticIPAddress rows: a deployed machine keeps its address
  // (and the DNS names and workloads pointing at it stay right).
  const again = await startMaasSim({ clock, machines: parseSeedMachines(stringify(sim.seeds()), 'saved.yaml') });
  t.teardown(() => again.stop());
  t.deepEqual(Object.fromEntries(['cp-1', 'cp-2'].map((h) => [h, again.machine(h)?.ip_addresses])), before);
});
