// Root device hints on the virtual datacenter, through a real Ironic: the ramdisk writes to the
// server's smallest drive, described as its BMC describes it, so hints naming that drive deploy
// and hints naming no drive of the server fail the deploy with IPA's DeviceNotFound in last_error.
import test from 'ava';
import { HAVE_IRONIC, startDatacenterIronic } from './datacenter/fixture.ts';
import type { DatacenterIronic } from './datacenter/fixture.ts';

const run = HAVE_IRONIC ? test.serial : test.serial.skip;
let env: DatacenterIronic;

test.before(async () => {
  if (!HAVE_IRONIC) return;
  env = await startDatacenterIronic({ systems: [{ id: 'hinted' }, { id: 'misdirected' }] });
});
test.after.always(async () => {
  await env?.stop();
});

async function deployWithHints(id: string, rootDevice: Record<string, unknown>): Promise<string> {
  const { dc, api } = env;
  const sys = dc.systems.find((s) => s.id === id);
  if (sys === undefined) throw new Error(`no system ${id}`);
  const { uuid } = await api.enrol(dc, sys, { name: id, boot: 'ipxe' });
  await api.patch(uuid, [{ op: 'add', path: '/properties/root_device', value: rootDevice }]);
  await api.provision(uuid, 'manage');
  await api.waitProvision(uuid, 'manageable');
  await api.provision(uuid, 'provide');
  await api.waitProvision(uuid, 'available');
  await api.patch(uuid, [{ op: 'add', path: '/instance_info', value: { image_source: dc.images.urlOf('os.img'), image_checksum: dc.images.checksum('os.img', 'sha256') } }]);
  await api.provision(uuid, 'active');
  return uuid;
}

run('datacenter ironic root device - hints naming the server\'s smallest drive (serial, size, medium) deploy the image to it', async (t) => {
  const { dc, api } = env;
  const server = dc.server('hinted');
  const serial = server.system.hardware.serial;
  const uuid = await deployWithHints('hinted', { serial: `${serial}-Disk0`, size: '>= 400', rotational: false });
  await api.waitProvision(uuid, 'active', 90_000);
  t.is(server.disk.writes.length, 1);
  t.like(server.disk.blockDevice(), { name: '/dev/sda', serial: `${serial}-Disk0` });
});

run('datacenter ironic root device - hints naming no drive of the server fail the deploy with the agent\'s DeviceNotFound, nothing written', async (t) => {
  const { dc, api } = env;
  const server = dc.server('misdirected');
  const imageGets = () => dc.images.requests.filter((r) => r.path === '/os.img' && r.method === 'GET').length;
  const before = imageGets();
  const uuid = await deployWithHints('misdirected', { name: '/dev/nvme0n1' });
  const node = await api.waitNode(uuid, (n) => n.provision_state === 'deploy failed', 'deploy failed', 90_000);
  t.regex(node.last_error ?? '', /No suitable device was found for deployment using these hints \{'name': '\/dev\/nvme0n1'\}/);
  t.is(server.disk.writes.length, 0);
  t.is(imageGets(), before, 'the image was not even downloaded');
});
