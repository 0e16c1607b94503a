// SimpleUpdate without Targets when one account opens several systems (a BMC serving several
// systems, or the datacenter's shared-password mode). DMTF's UpdateService schema: "If this
// parameter is not present or contains no targets, the service shall apply the software image to
// all applicable targets, as determined by the service". Ironic 21.4's redfish update_firmware
// sends no Targets (sushy's simple_update(url)), so a refusal there failed every firmware clean.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { startDatacenterIronic } from './datacenter/fixture.ts';
import { waitUntil } from '../support/wait.ts';

const UPDATE = '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate';
const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(url: string, info: SimSystemInfo, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

test('redfish shared update - an untargeted SimpleUpdate applies to every system the account opens, as one task all of them see', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'a', password: 'shared-password' }, { id: 'b', password: 'shared-password' }, { id: 'c' }], updateMs: 0 });
  t.teardown(() => sim.stop());
  const [a, b, c] = sim.systems as [SimSystemInfo, SimSystemInfo, SimSystemInfo];

  const started = await call(sim.url, a, 'POST', UPDATE, { ImageURI: 'http://fw.example/bios-2.10.2.bin', TransferProtocol: 'HTTP' });
  t.is(started.status, 202, JSON.stringify(started.body));
  const monitor = started.headers.get('location') ?? '';
  t.regex(monitor, /^\/redfish\/v1\/TaskService\/TaskMonitors\/\d+$/);
  await waitUntil(async () => (await call(sim.url, a, 'GET', monitor)).status === 200, 5_000, 'the task monitor to answer 200');
  t.like((await call(sim.url, a, 'GET', monitor)).body, { TaskState: 'Completed', TaskStatus: 'OK', PercentComplete: 100 });
  t.is(sim.system('a').state.firmware.BIOS, '2.10.2');
  t.is(sim.system('b').state.firmware.BIOS, '2.10.2', 'every applicable target of the account');
  t.is(sim.system('a').state.firmware.BMC, '5.00.00', 'only the component the image is for');
  t.is(sim.system('c').state.firmware.BIOS, '2.10.1', 'another account\'s system is on another BMC');
  // The task is about both systems: either's account finds it; another BMC's does not.
  t.is((await call(sim.url, b, 'GET', monitor)).status, 200);
  t.is((await call(sim.url, c, 'GET', monitor)).status, 404);
  t.is(((await call(sim.url, c, 'GET', '/redfish/v1/TaskService/Tasks')).body.Members as unknown[]).length, 0);

  // A collection as the target: each applicable member of it (the spec's reading of a collection).
  t.is((await call(sim.url, a, 'POST', UPDATE, { ImageURI: 'http://fw.example/nic-22.5.8.bin', Targets: ['/redfish/v1/Systems'] })).status, 202);
  await waitUntil(() => sim.system('a').state.firmware.NIC === '22.5.8' && sim.system('b').state.firmware.NIC === '22.5.8', 5_000, 'NIC firmware of a and b');
  // A Manager as the target: its BMC firmware, whatever the image is called.
  t.is((await call(sim.url, a, 'POST', UPDATE, { ImageURI: 'http://fw.example/firmware.bin', Targets: ['/redfish/v1/Managers/b'] })).status, 202);
  await waitUntil(() => sim.system('b').state.firmware.BMC === '5.00.01', 5_000, 'BMC firmware of b');
  t.is(sim.system('a').state.firmware.BMC, '5.00.00');
  t.is((await call(sim.url, a, 'POST', UPDATE, { ImageURI: 'http://fw.example/firmware.bin', Targets: ['/redfish/v1/Managers/c'] })).status, 400, 'another BMC\'s manager is no target');
  // An account of one system still updates that one system.
  t.is((await call(sim.url, c, 'POST', UPDATE, { ImageURI: 'http://fw.example/bios.bin' })).status, 202);
  await waitUntil(() => sim.system('c').state.firmware.BIOS === '2.10.2', 5_000, 'BIOS firmware of c');
  t.is(sim.system('a').state.firmware.BIOS, '2.10.2');
});

// The real Ironic 21.4 (Debian 12): its update_firmware clean step on a node whose BMC account also
// opens another system. Before the fix, SimpleUpdate answered 400 and the clean failed.
// A missing Ironic fails here (startIronic names it): never a skip.
test('redfish shared update - Ironic 21.4\'s update_firmware clean step succeeds on a BMC account shared by two systems', async (t) => {
  const env = await startDatacenterIronic({
    systems: [{ id: 'fw-a', password: 'shared-password' }, { id: 'fw-b', password: 'shared-password' }],
    sushyRegistries: true,
    // Ironic polls a firmware update's task every 60 s by default.
    ironicConfig: '[redfish]\nfirmware_update_status_interval = 1\nfirmware_update_fail_interval = 1\n',
  });
  t.teardown(() => env.stop());
  const sys = env.dc.systems.find((s) => s.id === 'fw-a');
  if (sys === undefined) throw new Error('no system fw-a');
  const { uuid } = await env.api.enrol(env.dc, sys, { name: 'fw-a', boot: 'ipxe' });
  await env.api.provision(uuid, 'manage');
  await env.api.waitProvision(uuid, 'manageable');
  const image = 'http://firmware.example/sim-bios-2.10.2.bin';
  await env.api.provision(uuid, 'clean', { clean_steps: [{ interface: 'management', step: 'update_firmware', args: { firmware_images: [{ url: image, checksum: 'not-checked-for-http' }] } }] });
  const node = await env.api.waitProvision(uuid, 'manageable', 180_000);
  t.is(node.last_error, null);
  t.is(node.driver_internal_info.firmware_updates, undefined, 'Ironic saw the task complete');
  t.is(env.dc.server('fw-a').system.state.firmware.BIOS, '2.10.2');
  t.is(env.dc.server('fw-b').system.state.firmware.BIOS, '2.10.2', 'the untargeted image went to every applicable system of the BMC');
  t.is(env.dc.server('fw-a').system.state.firmware.BMC, '5.00.00');
});
