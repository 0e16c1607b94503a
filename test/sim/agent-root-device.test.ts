// Root device hints as IPA applies them (get_os_install_device, ironic-lib's matcher): the node's
// instance_info.root_device, else properties.root_device, must match the disk the image would go
// to, or write_image fails with DeviceNotFound before downloading anything.
import { createHash } from 'node:crypto';
import test from 'ava';
import { agentCommand, bootedAgent } from '../support/booted-agent.ts';
import { SimDisk, startImageServer } from '../../src/sim/agent/index.ts';
import type { ImageServer, SimAgent } from '../../src/sim/agent/index.ts';
import { matchesHints } from '../../src/sim/agent/root-device.ts';

const IMAGE = Buffer.from('root device hints image\n'.repeat(50));
const GiB = 2 ** 30;

const imageInfo = (images: ImageServer) => ({ id: 'os.img', urls: [images.urlOf('os.img')], os_hash_algo: 'sha256', os_hash_value: createHash('sha256').update(IMAGE).digest('hex') });

const writeImage = (agent: SimAgent, images: ImageServer, node: Record<string, unknown>) =>
  agentCommand(agent, 'deploy.execute_deploy_step', { step: { interface: 'deploy', step: 'write_image', args: { image_info: imageInfo(images) } }, node, ports: [] });

test('agent root device - hints that match no disk fail write_image with DeviceNotFound and download nothing; matching hints deploy', async (t) => {
  const images = await startImageServer({ images: { 'os.img': IMAGE } });
  t.teardown(() => images.stop());
  const disk = new SimDisk({ sizeBytes: 480 * 1e9, model: 'SIM-SSD', serial: 'SER-0', rotational: false });
  // The hints come with the node the conductor sends along with the step (IPA caches it).
  const agent = await bootedAgent(t, disk, { lookupNode: { properties: {}, instance_info: {} } });
  const wrong = await writeImage(agent, images, { uuid: 'node-1', properties: { root_device: { name: '/dev/nvme0n1' } }, instance_info: {} });
  t.is(wrong.command_status, 'FAILED');
  t.like(wrong.command_error, { type: 'DeviceNotFound', code: 404, message: 'Error finding the disk or partition device to deploy the image onto', details: "No suitable device was found for deployment using these hints {'name': '/dev/nvme0n1'}" });
  t.is(images.requests.length, 0, 'nothing was downloaded');
  t.is(disk.writeCount, 0);

  // instance_info's hints win over the properties' (as IPA reads them).
  const right = await writeImage(agent, images, { uuid: 'node-1', properties: { root_device: { name: '/dev/nvme0n1' } }, instance_info: { root_device: { name: '/dev/sda', size: '>= 400', serial: 'SER-0', rotational: false } } });
  t.is(right.command_status, 'SUCCEEDED', JSON.stringify(right.command_error));
  t.is(disk.writeCount, 1);
});

test('agent root device - standby.prepare_image, which carries no node, goes by the looked-up node\'s hints', async (t) => {
  const images = await startImageServer({ images: { 'os.img': IMAGE } });
  t.teardown(() => images.stop());
  const disk = new SimDisk();
  const agent = await bootedAgent(t, disk, { lookupNode: { properties: { root_device: { size: 500 } }, instance_info: {} } });
  const r = await agentCommand(agent, 'standby.prepare_image', { image_info: imageInfo(images) });
  t.is(r.command_status, 'FAILED');
  t.regex(r.command_error && 'details' in r.command_error ? r.command_error.details : '', /these hints \{'size': 500\}/);
});

test('agent root device - the matcher follows specs_matcher: default s== and ==, <in>, <or>, size in GiB, booleans', (t) => {
  const dev = { name: '/dev/sda', size: 480 * 1e9, model: 'SIM-SSD 480', vendor: 'metalfleet', serial: 'ABC123', rotational: false, hctl: '0:0:0:0' };
  const yes = (hints: Record<string, unknown>) => t.true(matchesHints(dev, hints), JSON.stringify(hints));
  const no = (hints: Record<string, unknown>) => t.false(matchesHints(dev, hints), JSON.stringify(hints));
  yes({ name: '/dev/sda' });
  yes({ name: 's== /dev/sda' });
  no({ name: '/dev/sdb' });
  yes({ model: '<in> SSD' });
  no({ model: 'SIM-SSD' });
  yes({ serial: '<or> XYZ <or> ABC123' });
  yes({ size: '>= 400' });
  // ironic-lib compares the size in GiB as a float: 480 GB is 447.03 GiB, equal to no integer.
  no({ size: 447 });
  t.true(matchesHints({ ...dev, size: 100 * GiB }, { size: 100 }));
  no({ size: '== 480' });
  yes({ size: '<= 500' });
  yes({ rotational: false });
  yes({ rotational: 'false' });
  no({ rotational: true });
  no({ wwn: '0x5000' }); // a device without the attribute never matches
  yes({ hctl: '0:0:0:0', vendor: 'metalfleet' });
  t.throws(() => matchesHints(dev, { colour: 'blue' }), { message: /The hints "colour" are invalid/ });
});
