// A download that fails its checksum is downloaded again, as IPA's _download_image does: it
// catches ImageChecksumError like ImageDownloadError and tries image_download_connection_retries
// more times (2 by default) before the command fails. One corrupted transfer (a flaky proxy or
// cache) is survived; a checksum that never matches still fails with ImageChecksumError, after
// every try.
import { createHash } from 'node:crypto';
import test from 'ava';
import { bootedAgent, listenOn } from '../support/booted-agent.ts';
import { SimDisk } from '../../src/sim/agent/index.ts';
import type { CommandResult, SimAgent } from '../../src/sim/agent/index.ts';

const IMAGE = Buffer.from('an image that arrives intact the second time\n'.repeat(64));
const CORRUPT = Buffer.from(IMAGE.map((b, i) => (i === 100 ? b ^ 0xff : b)));
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function prepareImage(agent: SimAgent, imageInfo: Record<string, unknown>): Promise<CommandResult> {
  const res = await fetch(`${agent.url}/v1/commands/?wait=true&agent_token=tok`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'standby.prepare_image', params: { image_info: imageInfo } }) });
  if (res.status !== 200) throw new Error(`POST /v1/commands answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CommandResult;
}

test('agent checksum retry hunt - one corrupted transfer is downloaded again and the image lands', async (t) => {
  let gets = 0;
  const server = await listenOn(t, (req, res) => {
    gets++;
    const body = gets === 1 ? CORRUPT : IMAGE;
    res.writeHead(200, { 'Content-Length': body.length }).end(body);
  });
  const disk = new SimDisk();
  const agent = await bootedAgent(t, disk, { agent: { downloadRetryIntervalMs: 10 } });
  const r = await prepareImage(agent, { id: 'os.img', urls: [`${server}/os.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(r.command_status, 'SUCCEEDED', JSON.stringify(r.command_error));
  t.is(gets, 2);
  t.is(disk.writeCount, 1);
  t.is(disk.image?.checksum.value, sha256(IMAGE));
});

test('agent checksum retry hunt - a checksum that never matches fails with ImageChecksumError after 1 + 2 downloads', async (t) => {
  let gets = 0;
  const server = await listenOn(t, (req, res) => {
    gets++;
    res.writeHead(200, { 'Content-Length': CORRUPT.length }).end(CORRUPT);
  });
  const disk = new SimDisk();
  const agent = await bootedAgent(t, disk, { agent: { downloadRetryIntervalMs: 10 } });
  const r = await prepareImage(agent, { id: 'os.img', urls: [`${server}/os.img`], os_hash_algo: 'sha256', os_hash_value: sha256(IMAGE) });
  t.is(r.command_status, 'FAILED');
  t.like(r.command_error, { type: 'ImageChecksumError', code: 500, message: 'Error verifying image checksum' });
  t.regex(r.command_error?.details ?? '', new RegExp(`image checksum: ${sha256(IMAGE)}; verification checksum: ${sha256(CORRUPT)}`));
  t.is(gets, 3);
  t.is(disk.writeCount, 0);
});
