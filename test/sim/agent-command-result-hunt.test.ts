// The shape of command_result for commands whose work returns a message: IPA's AsyncCommandResult
// turns a string into {"result": "<command name>: <message>"} (extensions/base.py), so
// standby.prepare_image answers {"result": "prepare_image: image (<id>) written to device <dev>
// root_uuid=<uuid>"}, never a bare string; the write_image deploy step returns that same dict (it
// runs prepare_image and waits for its command_result) as its deploy_result.
import { createHash } from 'node:crypto';
import http from 'node:http';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { SimDisk, startAgent, startImageServer } from '../../src/sim/agent/index.ts';
import type { CommandResult, ImageServer, SimAgent } from '../../src/sim/agent/index.ts';

const IMAGE = Buffer.from('a whole-disk image\n'.repeat(64));

async function booted(t: ExecutionContext, disk: SimDisk): Promise<SimAgent> {
  let beats = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const json = (status: number, v: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
      if (path === '/') return json(200, { default_version: { version: '1.82' } });
      if (path === '/v1/lookup') return json(200, { node: { uuid: 'node-1', properties: {}, instance_info: {} }, config: { agent_token: 'tok', heartbeat_timeout: 300 } });
      if (path === '/v1/heartbeat/node-1') return (beats++, json(202, null));
      json(404, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  const agent = await startAgent({ ironicUrl: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, macs: ['52:54:00:00:00:01'], disk, heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0 });
  t.teardown(() => agent.stop());
  await waitFor(() => beats > 0, 5_000, 'first heartbeat');
  return agent;
}

async function command(agent: SimAgent, name: string, params: Record<string, unknown>): Promise<CommandResult> {
  const res = await fetch(`${agent.url}/v1/commands/?wait=true&agent_token=tok`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, params }) });
  if (res.status !== 200) throw new Error(`POST /v1/commands answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CommandResult;
}

const imageInfo = (images: ImageServer, extra: Record<string, unknown> = {}) =>
  ({ id: 'os.img', urls: [images.urlOf('os.img')], os_hash_algo: 'sha256', os_hash_value: createHash('sha256').update(IMAGE).digest('hex'), ...extra });

test('agent command result hunt - standby.prepare_image answers {result: "prepare_image: image (…) written …"}, as IPA wraps a string result', async (t) => {
  const images = await startImageServer({ images: { 'os.img': IMAGE } });
  t.teardown(() => images.stop());
  const disk = new SimDisk();
  const agent = await booted(t, disk);
  const r = await command(agent, 'standby.prepare_image', { image_info: imageInfo(images) });
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
  const agent = await booted(t, disk);
  const step = { interface: 'deploy', step: 'write_image', args: { image_info: imageInfo(images, { image_type: 'partition', deploy_boot_mode: 'uefi' }) } };
  const r = await command(agent, 'deploy.execute_deploy_step', { step, node: { uuid: 'node-1', properties: {}, instance_info: {} }, ports: [] });
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
