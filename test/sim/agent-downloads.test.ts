// What the simulated agent does with image_info and the config drive, compared with IPA's standby
// extension: checksums (a checksum file in GNU or CentOS/BSD form), image servers that want basic
// auth, fail, cut a download short or answer 5xx once, and config drives given as a URL. A stand-in
// answers the two ramdisk calls; a scripted HTTP server plays the image server.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { SimDisk, startAgent, startImageServer } from '../../src/sim/agent/index.ts';
import type { CommandResult, SimAgent } from '../../src/sim/agent/index.ts';

async function listen(t: ExecutionContext, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

async function booted(t: ExecutionContext, disk = new SimDisk()): Promise<SimAgent> {
  let beats = 0;
  const ironic = await listen(t, (req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const json = (status: number, v: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
      if (path === '/') return json(200, { default_version: { version: '1.82' } });
      if (path === '/v1/lookup') return json(200, { node: { uuid: 'node-1' }, config: { agent_token: 'tok', heartbeat_timeout: 300 } });
      if (path === '/v1/heartbeat/node-1') return (beats++, json(202, null));
      json(404, {});
    });
  });
  const agent = await startAgent({ ironicUrl: ironic, macs: ['52:54:00:00:00:01'], disk, heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0, downloadRetryIntervalMs: 10 });
  t.teardown(() => agent.stop());
  await waitFor(() => beats > 0, 5_000, 'first heartbeat');
  return agent;
}

type Answer = CommandResult & { faultstring?: string };
async function command(agent: SimAgent, name: string, params: Record<string, unknown>): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${agent.url}/v1/commands/?wait=true&agent_token=tok`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, params }) });
  return { status: res.status, body: (await res.json()) as Answer };
}

const writeImage = (agent: SimAgent, imageInfo: Record<string, unknown>, configdrive: unknown = null) =>
  command(agent, 'deploy.execute_deploy_step', { step: { interface: 'deploy', step: 'write_image', args: { image_info: imageInfo, configdrive } }, node: {}, ports: [] });

const IMAGE = Buffer.from('metalfleet test image\n'.repeat(100));
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

test('agent downloads - an image URL with user:password@ is fetched with basic auth, and the password is in no error', async (t) => {
  const images = await startImageServer({ images: { 'a.img': IMAGE }, basicAuth: { user: 'deployer', password: 's3cr3t' } });
  t.teardown(() => images.stop());
  const agent = await booted(t);
  const base = new URL(images.url);
  const withCreds = (password: string, path: string) => `http://deployer:${password}@${base.host}${path}`;

  const ok = await writeImage(agent, { id: 'a.img', urls: [withCreds('s3cr3t', '/a.img')], checksum: withCreds('s3cr3t', '/a.img.sha256sum') });
  t.is(ok.body.command_status, 'SUCCEEDED', JSON.stringify(ok.body.command_error));
  t.is(agent.commands.length, 1);

  const denied = await writeImage(agent, { id: 'b.img', urls: [withCreds('wrong-pass', '/a.img')], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(denied.body.command_status, 'FAILED');
  t.is(denied.body.command_error?.type, 'ImageDownloadError');
  t.regex(denied.body.command_error?.details ?? '', /Download of image b\.img failed: .*Received status code 401 from http:\/\/deployer:\*\*\*@127\.0\.0\.1:\d+\/a\.img, expected 200/);
  t.false(JSON.stringify(denied.body).includes('wrong-pass'), 'the password is masked');
  // Without credentials the server refuses, as it should.
  t.is((await fetch(images.urlOf('a.img'))).status, 401);
});

test('agent downloads - a checksum file in CentOS/BSD form ("SHA256 (name) = hash") with comments is understood', async (t) => {
  const hash = sha256(IMAGE);
  const checksums = [
    '# CentOS-Stream-GenericCloud-9-latest.x86_64.qcow2: 1234 bytes',
    `SHA256 (other.qcow2) = ${'0'.repeat(64)}`,
    `SHA256 (disk.qcow2) = ${hash}`,
    '',
  ].join('\n');
  const images = await startImageServer({ images: { 'disk.qcow2': IMAGE, CHECKSUM: checksums } });
  t.teardown(() => images.stop());
  const agent = await booted(t);
  const r = await writeImage(agent, { id: 'disk.qcow2', urls: [images.urlOf('disk.qcow2')], checksum: images.urlOf('CHECKSUM') });
  t.is(r.body.command_status, 'SUCCEEDED', JSON.stringify(r.body.command_error));
});

test('agent downloads - a checksum URL that answers 404 fails with ImageDownloadError naming the checksum file', async (t) => {
  const images = await startImageServer({ images: { 'a.img': IMAGE } });
  t.teardown(() => images.stop());
  const agent = await booted(t);
  const r = await writeImage(agent, { id: 'a.img', urls: [images.urlOf('a.img')], checksum: `${images.url}/missing.sha256sum` });
  t.is(r.body.command_status, 'FAILED');
  t.is(r.body.command_error?.type, 'ImageDownloadError');
  t.regex(r.body.command_error?.details ?? '', /Download of image http:\/\/127\.0\.0\.1:\d+\/missing\.sha256sum failed: Received status code 404 from .*missing\.sha256sum, expected 200/);
});

test('agent downloads - a 503 is retried and the image still lands, a 404 is not retried', async (t) => {
  let gets = 0;
  const server = await listen(t, (req, res) => {
    if (req.url === '/flaky.img') {
      gets++;
      if (gets === 1) return res.writeHead(503, { 'Content-Type': 'text/plain' }).end('busy, try again');
      return res.writeHead(200, { 'Content-Length': IMAGE.length }).end(IMAGE);
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such image');
  });
  const agent = await booted(t);
  const flaky = await writeImage(agent, { id: 'flaky.img', urls: [`${server}/flaky.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(flaky.body.command_status, 'SUCCEEDED', JSON.stringify(flaky.body.command_error));
  t.is(gets, 2);

  const missing = await writeImage(agent, { id: 'gone.img', urls: [`${server}/gone.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(missing.body.command_status, 'FAILED');
  t.is(missing.body.command_error?.type, 'ImageDownloadError');
  t.regex(missing.body.command_error?.details ?? '', /Download of image gone\.img failed: .*Received status code 404 from http:\/\/127\.0\.0\.1:\d+\/gone\.img, expected 200\. Response body: no such image/);
});

test('agent downloads - a download cut short fails saying how much arrived, and nothing is written', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.writeHead(200, { 'Content-Length': IMAGE.length });
    res.write(IMAGE.subarray(0, 100));
    setTimeout(() => res.destroy(), 20);
  });
  const disk = new SimDisk();
  const agent = await booted(t, disk);
  const r = await writeImage(agent, { id: 'cut.img', urls: [`${server}/cut.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(r.body.command_status, 'FAILED');
  t.is(r.body.command_error?.type, 'ImageDownloadError');
  t.regex(r.body.command_error?.details ?? '', new RegExp(`the connection closed after 100 of ${IMAGE.length} bytes`));
  t.is(disk.writeCount, 0);
});

test('agent downloads - standby.prepare_image without urls or a checksum is refused at once with 400, as IPA validates image_info', async (t) => {
  const agent = await booted(t);
  const noUrls = await command(agent, 'standby.prepare_image', { image_info: { id: 'x.img', checksum: 'a'.repeat(64) } });
  t.is(noUrls.status, 400);
  t.is(noUrls.body.faultstring, "Invalid command parameters: Image is missing 'urls' field.");
  const noChecksum = await command(agent, 'standby.prepare_image', { image_info: { id: 'x.img', urls: ['http://127.0.0.1:1/x.img'] } });
  t.is(noChecksum.status, 400);
  t.regex(noChecksum.body.faultstring ?? '', /^Invalid command parameters: Image checksum is not available/);
  t.deepEqual(agent.commands, [], 'a refused command leaves no result');
  // Through the write_image deploy step the same check fails the step instead.
  const step = await writeImage(agent, { id: 'x.img', urls: [] , checksum: 'a'.repeat(64) });
  t.is(step.body.command_status, 'FAILED');
  t.is(step.body.command_error?.type, 'InvalidCommandParamsError');
  t.is(step.body.command_error?.details, "Image 'urls' must be a list with at least one element.");
});

const genisoimage = spawnSync('sh', ['-c', 'command -v genisoimage'], { stdio: 'ignore' }).status === 0 || process.env.CI === 'true';

async function configDriveIso(t: ExecutionContext): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-cd-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const latest = join(dir, 'root', 'openstack', 'latest');
  await mkdir(latest, { recursive: true });
  await writeFile(join(latest, 'meta_data.json'), JSON.stringify({ uuid: 'u-1', hostname: 'from-url' }));
  await writeFile(join(latest, 'user_data'), '#cloud-config\n');
  const out = spawnSync('genisoimage', ['-o', join(dir, 'cd.iso'), '-ldots', '-allow-lowercase', '-allow-multidot', '-l', '-quiet', '-J', '-r', '-V', 'config-2', join(dir, 'root')]);
  if (out.status !== 0) throw new Error(`genisoimage: ${out.stderr?.toString()}`);
  return readFile(join(dir, 'cd.iso'));
}

(genisoimage ? test : test.skip)('agent downloads - a config drive URL serving base64 of a gzipped ISO (what Ironic documents) is read; a plain ISO too', async (t) => {
  const iso = await configDriveIso(t);
  const images = await startImageServer({ images: { 'a.img': IMAGE, 'cd.b64': `${gzipSync(iso).toString('base64')}\n`, 'cd.iso': iso } });
  t.teardown(() => images.stop());
  const disk = new SimDisk();
  const agent = await booted(t, disk);
  const info = { id: 'a.img', urls: [images.urlOf('a.img')], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) };
  const b64 = await writeImage(agent, info, images.urlOf('cd.b64'));
  t.is(b64.body.command_status, 'SUCCEEDED', JSON.stringify(b64.body.command_error));
  t.is(disk.configDrive?.source, 'url');
  t.is(disk.configDrive?.metaData?.['hostname'], 'from-url');
  const raw = await writeImage(agent, info, images.urlOf('cd.iso'));
  t.is(raw.body.command_status, 'SUCCEEDED', JSON.stringify(raw.body.command_error));
  t.is(disk.configDrive?.userData, '#cloud-config\n');
});

test('agent downloads - a config drive that is not base64 of a gzipped ISO, or a URL that answers 404, fails saying so', async (t) => {
  const images = await startImageServer({ images: { 'a.img': IMAGE } });
  t.teardown(() => images.stop());
  const agent = await booted(t);
  const info = { id: 'a.img', urls: [images.urlOf('a.img')], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE), node_uuid: 'node-1' };
  const notGzip = await writeImage(agent, info, Buffer.from('just some text, not an image').toString('base64'));
  t.is(notGzip.body.command_status, 'FAILED');
  // IPA wraps ironic-lib's InstanceDeployFailure into a CommandExecutionError.
  t.is(notGzip.body.command_error?.type, 'CommandExecutionError');
  t.regex(notGzip.body.command_error?.details ?? '', /^Encountered error while decompressing and writing config drive for node node-1\. Error: Not a gzipped file/);
  const notBase64 = await writeImage(agent, info, '%%% not base64 %%%');
  t.is(notBase64.body.command_error?.type, 'CommandExecutionError');
  t.regex(notBase64.body.command_error?.details ?? '', /^Config drive for node node-1 is not base64 encoded or the content is malformed/);
  const gzipNotIso = await writeImage(agent, info, gzipSync(Buffer.from('not an ISO')).toString('base64'));
  t.regex(gzipNotIso.body.command_error?.details ?? '', /config drive for node node-1 is not an ISO 9660 image/i);
  const missing = await writeImage(agent, info, `${images.url}/no-such-drive`);
  t.is(missing.body.command_error?.type, 'CommandExecutionError');
  t.regex(missing.body.command_error?.details ?? '', /^Can't download the configdrive content for node node-1 from 'http:\/\/127\.0\.0\.1:\d+\/no-such-drive'\. Got status code 404/);
});

test('agent downloads - a redirect is followed, and a checksum file is searched for the name in image_info.urls, as IPA does', async (t) => {
  const images = await startImageServer({ images: { 'real-name.img': IMAGE } });
  t.teardown(() => images.stop());
  const server = await listen(t, (req, res) => {
    if (req.url === '/latest.img') return res.writeHead(302, { Location: images.urlOf('real-name.img') }).end();
    if (req.url === '/SHA256SUMS') return res.writeHead(200).end(`${sha256(IMAGE)}  latest.img\n${'0'.repeat(64)}  real-name.img\n`);
    res.writeHead(404).end();
  });
  const disk = new SimDisk();
  const agent = await booted(t, disk);
  const r = await writeImage(agent, { id: 'latest.img', urls: [`${server}/latest.img`], checksum: `${server}/SHA256SUMS` });
  t.is(r.body.command_status, 'SUCCEEDED', JSON.stringify(r.body.command_error));
  t.is(disk.image?.url, `${server}/latest.img`);
});
