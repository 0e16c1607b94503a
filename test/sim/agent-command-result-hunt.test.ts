// The shape of command_result for commands whose work returns a message: IPA's AsyncCommandResult
// turns a string into {"result": "<command name>: <message>"} (extensions/base.py), so
// standby.prepare_image answers {"result": "prepare_image: image (<id>) written to device <dev>
// root_uuid=<uuid>"}, never a bare string; the write_image deploy step returns that same dict (it
// runs prepare_image and waits for its command_result) as its deploy_result.
import { createHash } from 'node:crypto';
import test from 'ava';
import { agentCommand, bootedAgent } from '../support/booted-agent.ts';
import { SimDisk, startImageServer } from '../../src/sim/agent/index.ts';
import type { CommandResult, ImageServer } from '../../src/sim/agent/index.ts';

const IMAGE = Buffer.from('a whole-disk image\n'.repeat(64));

const imageInfo = (images: ImageServer, extra: Record<string, unknown> = {}) =>
  ({ id: 'os.img', urls: [images.urlOf('os.img')], os_hash_algo: 'sha256', os_hash_value: createHash('sha256').update(IMAGE).digest('hex'), ...extra });

test('agent command result hunt - standby.prepare_image answers {result: "prepare_image: image (…) written …"}, as IPA wraps a string result', async (t) => {
  const images = await startImageServer({ images: { 'os.img': IMAGE } });
  t.teardown(() => images.stop());
  const disk = new SimDisk();
  const agent = await bootedAgent(t, disk);
  const r = await agentCommand(agent, 'standby.prepare_image', { image_info: imageInfo(images) });
  t.is(r.command_status, 'SUCCEEDED', JSON.stringify(r.command_error));
  t.is(r.command_name, 'prepare_image');
  const expected = { result: `prepare_image: image (os.img) written to device /dev/sda root_uuid=${String(disk.diskIdentifier)}` };
  t.deepEqual(r.command_result, expected);
  // The list Ironic polls says the same.
  const listed = (await (await fetch(`${agent.url}/v1/commands/?agent_token=tok`)).json()) as { commands: CommandResult[] };
  t.deepEqual(listed.commands.at(-1)?.command_result, expected);
});

test('agent command result hunt - write_image\'s deploy_result is prepare_image\'s command_result; a UEFI partition image names its ESP', async (t) => {
  const images = await startImageServer({ images: { 'os.img': IMAGE } });
  t.teardown(() => images.stop());
  const disk = new SimDisk();
  const agent = await bootedAgent(t, disk);
  const step = { interface: 'deploy', step: 'write_image', args: { image_info: imageInfo(images, { image_type: 'partition', deploy_boot_mode: 'uefi' }) } };
  const r = await agentCommand(agent, 'deploy.execute_deploy_step', { step, node: { uuid: 'node-1', properties: {}, instance_info: {} }, ports: [] });
  t.is(r.command_status, 'SUCCEEDED', JSON.stringify(r.command_error));
  const root = disk.partitions.find((p) => p.label === 'root')?.uuid;
  const esp = disk.partitions.find((p) => p.label === 'efi')?.uuid;
  t.truthy(root);
  t.truthy(esp);
  t.deepEqual(r.command_result, {
    deploy_result: { result: `prepare_image: image (os.img) written to device /dev/sda root_uuid=${String(root)} efi_system_partition_uuid=${String(esp)}` },
    deploy_step: step,
  });
});
