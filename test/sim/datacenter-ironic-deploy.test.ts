// A real Ironic 21.4 deploys, powers and undeploys servers of the virtual datacenter with its real
// redfish, ipxe, redfish-virtual-media and direct interfaces: the BMC, the firmware and the agent are
// the simulators; the tests read the simulated disk and BMC, not Ironic, for what happened.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { HAVE_IRONIC, startDatacenterIronic } from './datacenter/fixture.ts';
import type { DatacenterIronic } from './datacenter/fixture.ts';
import { waitUntil } from '../support/wait.ts';

const run = HAVE_IRONIC ? test : test.skip;
let env: DatacenterIronic;

test.before(async () => {
  if (!HAVE_IRONIC) return;
  env = await startDatacenterIronic({ systems: 3 });
});
test.after.always(async () => {
  await env?.stop();
});

// Deploys system `index` and checks what the server's disk, firmware and BMC show; returns the node.
async function deploy(t: ExecutionContext, index: number, boot: 'ipxe' | 'redfish-virtual-media'): Promise<string> {
  const { dc, api } = env;
  const sys = dc.systems[index];
  if (sys === undefined) throw new Error(`no system ${index}`);
  const server = dc.server(sys.id);
  const { uuid } = await api.enrol(dc, sys, { name: `deploy-${index}`, boot });
  await api.provision(uuid, 'manage');
  await api.waitProvision(uuid, 'manageable');
  await api.provision(uuid, 'provide');
  await api.waitProvision(uuid, 'available');
  await api.patch(uuid, [{ op: 'add', path: '/instance_info', value: { image_source: dc.images.urlOf('os.img'), image_checksum: dc.images.checksum('os.img', 'md5') } }]);
  const metaData = { hostname: `deploy-${index}`, public_keys: { default: 'ssh-ed25519 AAAAC3Nz metalfleet' } };
  const userData = `#cloud-config\nhostname: deploy-${index}\n`;
  await api.provision(uuid, 'active', { configdrive: { meta_data: metaData, user_data: userData } });
  const node = await api.waitProvision(uuid, 'active');
  await server.settled();

  t.is(server.disk.writes.length, 1, 'the image is written exactly once');
  t.like(server.disk.writes[0], { url: dc.images.urlOf('os.img'), bytes: 1 << 20, checksum: { algorithm: 'md5', value: dc.images.checksum('os.img', 'md5') } });
  t.like(server.disk.configDrive?.metaData, metaData, 'the config drive carries the meta_data sent');
  t.is(server.disk.configDrive?.userData, userData);
  const kinds = server.boots.map((b) => b.kind);
  t.is(kinds.at(-1), 'os', `after the deploy the server boots the OS from disk (${server.journal.join('; ')})`);
  t.like(server.boots.find((b) => b.kind === 'ramdisk'), { via: boot === 'ipxe' ? 'pxe' : 'virtual media' });
  t.true(server.system.state.on, 'the BMC shows the server on');
  t.is(node.power_state, 'power on');
  t.is(server.agent, null, 'the deploy ramdisk is gone');
  return uuid;
}

run('datacenter ironic - an iPXE deploy writes the image once with its checksum and config drive, then undeploy with automated_clean erases metadata', async (t) => {
  const uuid = await deploy(t, 0, 'ipxe');
  const { dc, api } = env;
  const disk = dc.server(dc.systems[0]?.id ?? '').disk;
  await api.patch(uuid, [{ op: 'replace', path: '/automated_clean', value: true }]);
  await api.provision(uuid, 'deleted');
  await api.waitProvision(uuid, 'available');
  t.deepEqual(disk.erases.map((e) => [e.kind, e.step]), [['metadata', 'erase_devices_metadata']], 'cleaning ran the agent\'s metadata erase only');
  t.is(disk.image, null, 'the image is gone');
  t.is(disk.writes.length, 1);
});

run('datacenter ironic - a virtual-media deploy reaches active from deploy_iso, then undeploy without automated_clean leaves the disk alone', async (t) => {
  const uuid = await deploy(t, 1, 'redfish-virtual-media');
  const { dc, api } = env;
  const server = dc.server(dc.systems[1]?.id ?? '');
  await api.patch(uuid, [{ op: 'replace', path: '/automated_clean', value: false }]);
  await api.provision(uuid, 'deleted');
  const node = await api.waitProvision(uuid, 'available');
  t.deepEqual(server.disk.erases, [], 'nothing erased');
  t.like(server.disk.image, { url: dc.images.urlOf('os.img') }, 'the image is still on the disk');
  t.is(node.power_state, 'power off');
  t.false(server.system.state.on);
  t.deepEqual(server.system.state.virtualMedia.Cd, { image: null, inserted: false, writeProtected: true }, 'the deploy ISO is ejected');
});

run('datacenter ironic - power on, off and reboot through Ironic change the simulated power and boot count', async (t) => {
  const { dc, api } = env;
  const sys = dc.systems[2];
  if (sys === undefined) throw new Error('three systems expected');
  const system = dc.server(sys.id).system;
  const { uuid } = await api.enrol(dc, sys, { name: 'power', boot: 'ipxe' });
  await api.provision(uuid, 'manage');
  t.is((await api.waitProvision(uuid, 'manageable')).power_state, 'power off');
  const boots = system.state.boots;

  await api.power(uuid, 'power on');
  await api.waitPower(uuid, 'power on');
  t.true(system.state.on);
  t.is(system.state.boots, boots + 1, 'power on boots once');

  await api.power(uuid, 'rebooting');
  await waitUntil(() => system.state.boots === boots + 2, 10_000, 'the reboot boots again');
  await api.waitPower(uuid, 'power on');
  t.true(system.state.on);

  await api.power(uuid, 'power off');
  await api.waitPower(uuid, 'power off');
  t.false(system.state.on);
  t.is(system.state.boots, boots + 2, 'power off boots nothing');
});
