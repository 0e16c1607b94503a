// A download that fails its checksum is downloaded again, as IPA's _download_image does: it
// catches ImageChecksumError like ImageDownloadError and tries image_download_connection_retries
// more times (2 by default) before the command fails. One corrupted transfer (a flaky proxy or
// cache) is survived; a checksum that never matches still fails with ImageChecksumError, after
// every try.
import { createHash } from 'node:crypto';
import http from 'node:http';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { SimDisk, startAgent } from '../../src/sim/agent/index.ts';
import type { CommandResult, SimAgent } from '../../src/sim/agent/index.ts';

const IMAGE = Buffer.from('an image that arrives intact the second time\n'.repeat(64));
const CORRUPT = Buffer.from(IMAGE.map((b, i) => (i === 100 ? b ^ 0xff : b)));
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function listen(t: ExecutionContext, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

async function booted(t: ExecutionContext, disk: SimDisk): Promise<SimAgent> {
  let beats = 0;
  const ironic = await listen(t, (req, res) => {
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
  const agent = await startAgent({ ironicUrl: ironic, macs: ['52:54:00:00:00:01'], disk, heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0, downloadRetryIntervalMs: 10 });
  t.teardown(() => agent.stop());
  await waitFor(() => beats > 0, 5_000, 'first heartbeat');
  return agent;
}

async function prepareImage(agent: SimAgent, imageInfo: Record<string, unknown>): Promise<CommandResult> {
  const res = await fetch(`${agent.url}/v1/commands/?wait=true&agent_token=tok`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'standby.prepare_image', params: { image_info: imageInfo } }) });
  if (res.status !== 200) throw new Error(`POST /v1/commands answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CommandResult;
}

test('agent checksum retry hunt - one corrupted transfer is downloaded again and the image lands', async (t) => {
  let gets = 0;
  const server = await listen(t, (req, res) => {
    gets++;
    const body = gets === 1 ? CORRUPT : IMAGE;
    res.writeHead(200, { 'Content-Length': body.length }).end(body);
  });
  const disk = new SimDisk();
  const agent = await booted(t, disk);
  const r = await prepareImage(agent, { id: 'os.img', urls: [`${server}/os.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(r.command_status, 'SUCCEEDED', JSON.stringify(r.command_error));
  t.is(gets, 2);
  t.is(disk.writeCount, 1);
  t.is(disk.image?.checksum.value, sha256(IMAGE));
});

test('agent checksum retry hunt - a checksum that never matches fails with ImageChecksumError after 1 + 2 downloads', async (t) => {
  let gets = 0;
  const server = await listen(t, (req, res) => {
    gets++;
    res.writeHead(200, { 'Content-Length': CORRUPT.length }).end(CORRUPT);
  });
  const disk = new SimDisk();
  const agent = await booted(t, disk);
  const r = await prepareImage(agent, { id: 'os.img', urls: [`${server}/os.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(r.command_status, 'FAILED');
  t.like(r.command_error, { type: 'ImageChecksumError', code: 500, message: 'Error verifying image checksum' });
  t.regex(r.command_error?.details ?? '', new RegExp(`image checksum: ${sha256(IMAGE)}; verification checksum: ${sha256(CORRUPT)}`));
  t.is(gets, 3);
  t.is(disk.writeCount, 0);
});
