// Root device hints as IPA's device_hints.py (formerly ironic-lib) applies them: every string hint
// and the device's own value are lowercased (and URL-quoted) before they are compared, so a model,
// vendor or serial written in another case still names the disk; an operator need not be followed
// by a space ("<in>ssd"); and an empty instance_info.root_device falls back to the node's
// properties.root_device (IPA reads them with Python's `or`).
import { createHash } from 'node:crypto';
import test from 'ava';
import { bootedAgent } from '../support/booted-agent.ts';
import { SimDisk, startImageServer } from '../../src/sim/agent/index.ts';
import type { CommandResult, ImageServer, SimAgent } from '../../src/sim/agent/index.ts';
import { matchesHints, rootDeviceHints } from '../../src/sim/agent/root-device.ts';

const IMAGE = Buffer.from('root device hints, case-insensitively\n'.repeat(40));

async function writeImage(agent: SimAgent, images: ImageServer, node: Record<string, unknown>): Promise<CommandResult> {
  const image_info = { id: 'os.img', urls: [images.urlOf('os.img')], os_hash_algo: 'sha256', os_hash_value: createHash('sha256').update(IMAGE).digest('hex') };
  const res = await fetch(`${agent.url}/v1/commands/?wait=true&agent_token=tok`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'deploy.execute_deploy_step', params: { step: { interface: 'deploy', step: 'write_image', args: { image_info } }, node, ports: [] } }),
  });
  if (res.status !== 200) throw new Error(`POST /v1/commands answered ${res.status}`);
  return (await res.json()) as CommandResult;
}

test('agent root device hunt - hints in another case than the disk reports still pick it, as IPA lowercases both', async (t) => {
  const images = await startImageServer({ images: { 'os.img': IMAGE } });
  t.teardown(() => images.stop());
  // As the datacenter describes a server's install disk (installDisk): model SIM-SSD, vendor metalfleet.
  const disk = new SimDisk({ sizeBytes: 480 * 1e9, model: 'SIM-SSD', vendor: 'metalfleet', serial: 'SN0001-Disk0', rotational: false });
  const agent = await bootedAgent(t, disk);
  // What BMO-style hints become (provision.ts): model and vendor as "<in> …", the serial as it is.
  const r = await writeImage(agent, images, { uuid: 'node-1', properties: {}, instance_info: { root_device: { model: '<in> ssd', vendor: '<in> MetalFleet', serial: 'sn0001-disk0' } } });
  t.is(r.command_status, 'SUCCEEDED', JSON.stringify(r.command_error));
  t.is(disk.writeCount, 1);
});

test('agent root device hunt - the matcher: case-insensitive strings, an operator without a space, <or> in any case', (t) => {
  const dev = { name: '/dev/sda', size: 480 * 1e9, model: 'SIM-SSD 480', vendor: 'metalfleet', serial: 'ABC123', wwn: '0x5000C500A1B2C3D4', rotational: false, by_path: '/dev/disk/by-path/pci-0000:00:1F.2-ata-1' };
  t.true(matchesHints(dev, { serial: 'abc123' }));
  t.true(matchesHints(dev, { wwn: '0x5000c500a1b2c3d4' }));
  t.true(matchesHints(dev, { model: 'sim-ssd 480' }));
  t.true(matchesHints(dev, { by_path: 's== /dev/disk/by-path/pci-0000:00:1f.2-ata-1' }));
  t.true(matchesHints(dev, { serial: '<or> xyz <or> abc123' }));
  t.true(matchesHints(dev, { model: '<in>ssd' }));
  t.true(matchesHints(dev, { size: '>=400' }));
  // Still a real comparison: another value does not match whatever its case.
  t.false(matchesHints(dev, { serial: 'abc124' }));
  t.false(matchesHints(dev, { model: '<in> hdd' }));
  t.false(matchesHints(dev, { size: '<=400' }));
});

test('agent root device hunt - an empty instance_info.root_device falls back to properties.root_device', (t) => {
  t.deepEqual(rootDeviceHints({ instance_info: { root_device: {} }, properties: { root_device: { serial: 'X' } } }), { serial: 'X' });
  t.deepEqual(rootDeviceHints({ instance_info: { root_device: { name: '/dev/sdb' } }, properties: { root_device: { serial: 'X' } } }), { name: '/dev/sdb' });
  t.is(rootDeviceHints({ instance_info: { root_device: {} }, properties: {} }), null);
});
