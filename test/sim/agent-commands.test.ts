// The simulated agent's own API, without Ironic: a stand-in answers only the two ramdisk calls
// (lookup, heartbeat) so each test can look at exactly what the agent sent and did.
import { spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { parseConfigDriveIso, SimDisk, startAgent, startImageServer } from '../../src/sim/agent/index.ts';
import type { CommandResult, SimAgent } from '../../src/sim/agent/index.ts';

interface Seen { lookups: URLSearchParams[]; versions: string[]; heartbeats: Record<string, string>[] }

async function fakeIronic(t: ExecutionContext): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { lookups: [], versions: [], heartbeats: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.versions.push(String(req.headers['x-openstack-ironic-api-version'] ?? ''));
      const json = (status: number, v: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
      if (url.pathname === '/') return json(200, { default_version: { version: '1.82' } });
      if (url.pathname === '/v1/lookup') {
        seen.lookups.push(url.searchParams);
        return json(200, { node: { uuid: 'node-1' }, config: { agent_token: 'tok', heartbeat_timeout: 300 } });
      }
      if (url.pathname === '/v1/heartbeat/node-1') {
        seen.heartbeats.push(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, string>);
        return json(202, null);
      }
      json(404, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, seen };
}

async function booted(t: ExecutionContext, disk = new SimDisk(), workMs = 0): Promise<{ agent: SimAgent; seen: Seen; disk: SimDisk }> {
  const ironic = await fakeIronic(t);
  const agent = await startAgent({ ironicUrl: ironic.url, macs: ['52:54:00:00:00:01', '52:54:00:00:00:02'], disk, heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0, workMs });
  t.teardown(() => agent.stop());
  await waitFor(() => ironic.seen.heartbeats.length > 0, 5_000, 'first heartbeat');
  return { agent, seen: ironic.seen, disk };
}

async function command(agent: SimAgent, name: string, params: Record<string, unknown>, opts: { wait?: boolean; token?: string | null } = {}): Promise<{ status: number; body: CommandResult & { faultstring?: string } }> {
  const q = new URLSearchParams({ wait: String(opts.wait ?? false) });
  if (opts.token !== null) q.set('agent_token', opts.token ?? 'tok');
  const res = await fetch(`${agent.url}/v1/commands/?${q.toString()}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, params }) });
  return { status: res.status, body: (await res.json()) as CommandResult & { faultstring?: string } };
}

test('agent - looks up by MAC with an API version header, then heartbeats its callback URL and token', async (t) => {
  const { agent, seen } = await booted(t);
  t.is(seen.lookups[0]?.get('addresses'), '52:54:00:00:00:01,52:54:00:00:00:02');
  t.true(seen.versions.slice(1).every((v) => v === '1.68'), 'every ramdisk call names an API version (else Ironic treats it as 1.1)');
  t.deepEqual(seen.heartbeats[0], { callback_url: agent.url, agent_token: 'tok', agent_version: '9.4.1' });
  t.is(agent.state, 'heartbeating');
  t.is(agent.nodeUuid, 'node-1');
  const status = await fetch(`${agent.url}/v1/status`);
  t.is(status.status, 200);
});

test('agent - commands need the lookup token, and one arriving while an async one runs is refused as busy', async (t) => {
  const { agent, disk } = await booted(t, new SimDisk(), 300);
  t.is((await command(agent, 'clean.get_clean_steps', {}, { token: null })).status, 401);
  t.is((await command(agent, 'clean.get_clean_steps', {}, { token: 'wrong' })).status, 401);
  const steps = await command(agent, 'clean.get_clean_steps', { node: {}, ports: [] }, { wait: true });
  const byName = Object.fromEntries(((steps.body.command_result as { clean_steps: Record<string, { step: string; priority: number }[]> }).clean_steps['GenericHardwareManager'] ?? []).map((s) => [s.step, s.priority]));
  t.is(byName['erase_devices'], 10);
  t.is(byName['erase_devices_metadata'], 99);
  const running = await command(agent, 'clean.execute_clean_step', { step: { interface: 'deploy', step: 'erase_devices' }, node: {}, ports: [] });
  t.is(running.body.command_status, 'RUNNING');
  const busy = await command(agent, 'standby.get_partition_uuids', {});
  t.is(busy.status, 409);
  t.is(busy.body.faultstring, 'Agent is busy: executing command execute_clean_step');
  await waitFor(() => agent.commands.at(-1)?.command_status === 'SUCCEEDED', 5_000, 'erase finished');
  t.deepEqual(disk.erases.map((e) => e.kind), ['full']);
  t.is((await command(agent, 'nope.do', {})).status, 404);
  t.is((await command(agent, 'standby.nope', {})).status, 400);
});

test('agent - write_image verifies against a checksum URL or an md5, and fails a mismatch with ImageChecksumError', async (t) => {
  const images = await startImageServer({ images: { 'a.img': 'image A\n', 'b.img': 'image B\n' } });
  t.teardown(() => images.stop());
  const { agent, disk } = await booted(t);
  const write = (id: string, info: Record<string, unknown>) => command(agent, 'deploy.execute_deploy_step',
    { step: { interface: 'deploy', step: 'write_image', args: { image_info: { id, urls: [images.urlOf(id)], ...info }, configdrive: null } }, node: {}, ports: [] }, { wait: true });

  const byUrl = await write('a.img', { checksum: images.checksumUrlOf('a.img') });
  t.is(byUrl.body.command_status, 'SUCCEEDED');
  t.deepEqual(disk.image?.checksum, { algorithm: 'sha256', value: images.checksum('a.img') });
  const md5 = await write('b.img', { checksum: images.checksum('b.img', 'md5') });
  t.is(md5.body.command_status, 'SUCCEEDED');
  t.is(disk.image?.checksum.algorithm, 'md5');
  t.is(disk.writeCount, 2);

  const bad = await write('a.img-bad', { os_hash_algo: 'sha512', os_hash_value: '0'.repeat(128), urls: [images.urlOf('a.img')] });
  t.is(bad.body.command_status, 'FAILED');
  t.is(bad.body.command_error?.type, 'ImageChecksumError');
  t.regex(bad.body.command_error?.details ?? '', /image checksum: 0{128}; verification checksum: [0-9a-f]{128}/);
  t.is(disk.writeCount, 2);
  t.is(disk.image?.id, 'b.img');
});

test('image server - HEAD answers the length, checksum files name the image, a folder is served without escaping it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-images-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'pxe'));
  await writeFile(join(dir, 'pxe', 'boot.ipxe'), '#!ipxe\n');
  const images = await startImageServer({ images: { 'os.qcow2': Buffer.alloc(1000, 7) }, dir });
  t.teardown(() => images.stop());
  const head = await fetch(images.urlOf('os.qcow2'), { method: 'HEAD' });
  t.is(head.headers.get('content-length'), '1000');
  t.truthy(head.headers.get('last-modified'));
  t.is(await (await fetch(images.checksumUrlOf('os.qcow2'))).text(), `${images.checksum('os.qcow2')}  os.qcow2\n`);
  t.is(await (await fetch(`${images.url}/SHA256SUMS`)).text(), `${images.checksum('os.qcow2')}  os.qcow2\n`);
  t.is(await (await fetch(`${images.url}/pxe/boot.ipxe`)).text(), '#!ipxe\n');
  // A raw request: fetch would normalise the dots away before they reach the server.
  const escaped = await new Promise<number>((resolve) => http.get({ host: '127.0.0.1', port: new URL(images.url).port, path: '/pxe/../../../etc/passwd', agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }));
  t.is(escaped, 404);
  t.deepEqual(images.requests.filter((r) => r.path === '/os.qcow2').map((r) => r.method), ['HEAD']);
});

const genisoimage = spawnSync('sh', ['-c', 'command -v genisoimage'], { stdio: 'ignore' }).status === 0 || process.env.CI === 'true';
for (const flags of [['-J', '-r'], ['-r']]) {
  (genisoimage ? test : test.skip)(`config drive - an ISO built by genisoimage ${flags.join(' ')} is read back`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-iso-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const latest = join(dir, 'root', 'openstack', 'latest');
    await mkdir(latest, { recursive: true });
    await writeFile(join(latest, 'meta_data.json'), JSON.stringify({ uuid: 'u-1', hostname: 'h' }));
    await writeFile(join(latest, 'user_data'), '#cloud-config\n');
    await writeFile(join(latest, 'network_data.json'), JSON.stringify({ links: [{ id: 'eth0' }] }));
    const out = spawnSync('genisoimage', ['-o', join(dir, 'cd.iso'), '-ldots', '-allow-lowercase', '-allow-multidot', '-l', '-quiet', ...flags, '-V', 'config-2', join(dir, 'root')]);
    t.is(out.status, 0, out.stderr?.toString());
    const drive = parseConfigDriveIso(await readFile(join(dir, 'cd.iso')));
    t.deepEqual(drive.metaData, { uuid: 'u-1', hostname: 'h' });
    t.is(drive.userData, '#cloud-config\n');
    t.deepEqual(drive.networkData, { links: [{ id: 'eth0' }] });
  });
}
