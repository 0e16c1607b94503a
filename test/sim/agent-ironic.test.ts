// The simulated agent driven by a real Ironic 21.4 with its real direct deploy interface: nodes are
// fake-hardware for power, boot and management, so "booting the ramdisk" is this test starting an
// agent once the node waits for one (wait call-back, clean wait). Under CI a missing Ironic fails.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { ironicInstalled, startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { waitUntil } from '../support/wait.ts';
import { SimDisk, startAgent, startImageServer } from '../../src/sim/agent/index.ts';
import type { ImageServer, SimAgent } from '../../src/sim/agent/index.ts';

const run = ironicInstalled() || process.env.CI === 'true' ? test.serial : test.serial.skip;

// startIronic's [agent] defaults serve the agent flow (1 s command polls, deploy logs in its
// folder); fake power never reports "off" after standby.power_off, so Ironic should not wait for it.
const AGENT_CONFIG = `
[agent]
post_deploy_get_power_state_retries = 0
`;

let ironic: IronicServer;
let images: ImageServer;
const IMAGE = Buffer.from('metalfleet whole-disk image\n'.repeat(4096));

test.before(async () => {
  if (!ironicInstalled() && process.env.CI !== 'true') return;
  ironic = await startIronic({ extraConfig: AGENT_CONFIG });
  images = await startImageServer({ images: { 'os.img': IMAGE } });
});
test.after.always(async () => {
  await images?.stop();
  await ironic?.stop();
});

interface Node { uuid: string; provision_state: string; last_error: string | null; power_state: string | null; driver_internal_info: Record<string, unknown> }

async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${ironic.url}/v1${path}`, {
    method,
    headers: { 'X-OpenStack-Ironic-API-Version': '1.82', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return (text === '' ? null : JSON.parse(text)) as T;
}

const getNode = (uuid: string) => api<Node>('GET', `/nodes/${uuid}`);

const agents: SimAgent[] = [];
/** Nodes whose ramdisk powered the machine off (the hook a BMC simulator uses). */
const poweredOff: string[] = [];

async function waitState(uuid: string, want: string, timeoutMs = 60_000): Promise<Node> {
  let node = await getNode(uuid);
  try {
    await waitUntil(async () => (node = await getNode(uuid)).provision_state === want, timeoutMs, `node ${uuid} in "${want}"`, 200);
  } catch (err) {
    // Built after the wait, so the failure shows what Ironic and the agents did meanwhile.
    const seen = agents.map((a) => `agent ${a.url} ${a.state} heartbeats=${a.heartbeats} lastError=${a.lastError}\n  ${a.journal.join('\n  ')}`).join('\n');
    throw new Error(`${(err as Error).message}: last seen ${node.provision_state}, last_error ${node.last_error}\n${seen}\nIronic:\n${ironic.logTail(40)}`);
  }
  return node;
}

let macSeq = 0;
/** A fake-hardware node with the direct deploy interface and one port, in the state asked for. */
async function directNode(t: ExecutionContext, to: 'manageable' | 'available'): Promise<{ uuid: string; mac: string }> {
  const mac = `52:54:00:aa:00:${(++macSeq).toString(16).padStart(2, '0')}`;
  // fake management can only set the boot device to pxe, so the deploy's final "boot from disk"
  // would fail; Ironic 21.4 skips that call for Lenovo machines in UEFI mode (bug 2053064).
  const node = await api<Node>('POST', '/nodes', { name: `agent-${macSeq}`, driver: 'fake-hardware', deploy_interface: 'direct', properties: { vendor: 'Lenovo' } });
  await api('POST', '/ports', { node_uuid: node.uuid, address: mac });
  await api('PUT', `/nodes/${node.uuid}/states/provision`, { target: 'manage' });
  await waitState(node.uuid, 'manageable');
  if (to === 'available') {
    await api('PUT', `/nodes/${node.uuid}/states/provision`, { target: 'provide' });
    await waitState(node.uuid, 'available');
  }
  return { uuid: node.uuid, mac };
}

/** "The server booted the deploy ramdisk": start an agent once Ironic waits for one. */
async function bootRamdisk(t: ExecutionContext, uuid: string, mac: string, disk: SimDisk, waitingIn: string): Promise<SimAgent> {
  await waitState(uuid, waitingIn);
  const agent = await startAgent({ ironicUrl: ironic.url, macs: [mac], disk, heartbeatIntervalMs: 500, minHeartbeatGapMs: 100, lookupIntervalMs: 200, onPowerOff: () => poweredOff.push(uuid) });
  agents.push(agent);
  t.teardown(() => agent.stop());
  return agent;
}

async function deploy(uuid: string, checksum: string): Promise<void> {
  await api('PATCH', `/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info/image_source', value: images.urlOf('os.img') },
    { op: 'add', path: '/instance_info/image_os_hash_algo', value: 'sha256' },
    { op: 'add', path: '/instance_info/image_os_hash_value', value: checksum },
  ]);
  await api('PUT', `/nodes/${uuid}/states/provision`, {
    target: 'active',
    configdrive: { meta_data: { hostname: 'sim-1', 'metal3-name': 'sim-1' }, user_data: '#cloud-config\nhostname: sim-1\n', network_data: { links: [], networks: [], services: [] } },
  });
}

run('agent - a direct deploy writes the image once, verified, with the config drive, then cleaning on undeploy erases it', async (t) => {
  const { uuid, mac } = await directNode(t, 'available');
  const disk = new SimDisk();
  const gets = () => images.requests.filter((r) => r.method === 'GET' && r.path === '/os.img').length;
  const getsBefore = gets();
  await deploy(uuid, images.checksum('os.img', 'sha256'));
  const agent = await bootRamdisk(t, uuid, mac, disk, 'wait call-back');
  const active = await waitState(uuid, 'active');
  t.is(active.last_error, null);
  t.is(disk.writeCount, 1);
  // Ironic only HEADs the URL (conductor_always_validates_images is off); the agent downloads it once.
  t.is(gets() - getsBefore, 1);
  t.deepEqual(disk.image && { url: disk.image.url, bytes: disk.image.bytes, checksum: disk.image.checksum, type: disk.image.imageType },
    { url: images.urlOf('os.img'), bytes: IMAGE.length, checksum: { algorithm: 'sha256', value: images.checksum('os.img') }, type: 'whole-disk' });
  // Ironic built an ISO from the JSON config drive; the agent read it back.
  t.is(disk.configDrive?.source, 'iso');
  t.is(disk.configDrive?.userData, '#cloud-config\nhostname: sim-1\n');
  t.is(disk.configDrive?.metaData?.['hostname'], 'sim-1');
  t.is(disk.configDrive?.metaData?.['uuid'], uuid);
  t.deepEqual(disk.configDrive?.networkData, { links: [], networks: [], services: [] });
  // UEFI is 21.4's default boot mode, so a whole-disk image still gets install_bootloader.
  t.is(disk.bootloader?.targetBootMode, 'uefi');
  t.is(disk.bootloader?.rootUuid, disk.diskIdentifier);
  t.is(agent.state, 'powered off');
  await waitUntil(() => poweredOff.includes(uuid), 2_000, 'onPowerOff called');
  t.deepEqual(agent.commands.map((c) => `${c.command_name}:${c.command_status}`),
    ['get_deploy_steps:SUCCEEDED', 'execute_deploy_step:SUCCEEDED', 'get_partition_uuids:SUCCEEDED', 'install_bootloader:SUCCEEDED', 'power_off:SUCCEEDED']);

  // Undeploy with automated cleaning (on for this node only): the ramdisk boots again, and
  // Ironic runs the erase steps startIronic enables as Metal3 does: the metadata erase only
  // (erase_devices_metadata_priority 10, erase_devices_priority 0).
  await api('PATCH', `/nodes/${uuid}`, [{ op: 'replace', path: '/automated_clean', value: true }]);
  await api('PUT', `/nodes/${uuid}/states/provision`, { target: 'deleted' });
  const cleaner = await bootRamdisk(t, uuid, mac, disk, 'clean wait');
  const available = await waitState(uuid, 'available');
  t.is(available.last_error, null);
  t.deepEqual(disk.erases.map((e) => e.kind), ['metadata']);
  t.is(disk.image, null);
  t.is(disk.writeCount, 1);
  t.true(cleaner.commands.some((c) => c.command_name === 'get_clean_steps'));
});

run('agent - a wrong checksum fails the deploy with the agent\'s error in last_error', async (t) => {
  const { uuid, mac } = await directNode(t, 'available');
  const disk = new SimDisk();
  await deploy(uuid, 'f'.repeat(64));
  await bootRamdisk(t, uuid, mac, disk, 'wait call-back');
  const failed = await waitState(uuid, 'deploy failed');
  t.regex(failed.last_error ?? '', /write_image failed.*Image failed to verify against checksum.*image checksum: f{64}; verification checksum: [0-9a-f]{64}/);
  t.is(disk.writeCount, 0);
  t.is(disk.image, null);
  // Ironic collected the ramdisk's logs (log.collect_system_logs) into deploy_logs_local_path.
  await waitUntil(async () => (await readdir(join(ironic.dir, 'deploy-logs')).catch(() => [])).some((f) => f.startsWith(uuid)), 10_000, 'ramdisk logs stored');
});

run('agent - a manual clean with erase_devices_metadata reaches the agent and returns to manageable', async (t) => {
  const { uuid, mac } = await directNode(t, 'manageable');
  const disk = new SimDisk();
  await api('PUT', `/nodes/${uuid}/states/provision`, { target: 'clean', clean_steps: [{ interface: 'deploy', step: 'erase_devices_metadata' }] });
  const agent = await bootRamdisk(t, uuid, mac, disk, 'clean wait');
  const node = await waitState(uuid, 'manageable');
  t.is(node.last_error, null);
  t.deepEqual(disk.erases.map((e) => `${e.kind}:${e.step}`), ['metadata:erase_devices_metadata']);
  t.deepEqual(agent.commands.map((c) => c.command_name), ['get_clean_steps', 'execute_clean_step']);
});

/** A config drive ISO as Ironic builds one (genisoimage, which Ironic needs for this anyway). */
async function configDriveIso(t: ExecutionContext, metaData: Record<string, unknown>): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-ironic-cd-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const latest = join(dir, 'root', 'openstack', 'latest');
  await mkdir(latest, { recursive: true });
  await writeFile(join(latest, 'meta_data.json'), JSON.stringify(metaData));
  const out = spawnSync('genisoimage', ['-o', join(dir, 'cd.iso'), '-ldots', '-allow-lowercase', '-allow-multidot', '-l', '-quiet', '-J', '-r', '-V', 'config-2', join(dir, 'root')]);
  if (out.status !== 0) throw new Error(`genisoimage: ${out.stderr?.toString()}`);
  return readFile(join(dir, 'cd.iso'));
}

run('agent - a deploy from an image server that wants basic auth (user:password in image_source), checked against a CentOS-style CHECKSUM file, with the config drive as a URL', async (t) => {
  const { uuid, mac } = await directNode(t, 'available');
  const hash = createHash('sha256').update(IMAGE).digest('hex');
  const checksums = `# CentOS-Stream-GenericCloud-9\nSHA256 (disk.qcow2) = ${hash}\n`;
  const drive = gzipSync(await configDriveIso(t, { uuid, hostname: 'behind-auth' })).toString('base64');
  const secured = await startImageServer({ images: { 'disk.qcow2': IMAGE, CHECKSUM: checksums, 'configdrive.b64': drive }, basicAuth: { user: 'deployer', password: 'pa55' } });
  t.teardown(() => secured.stop());
  const withCreds = (name: string) => secured.urlOf(name).replace('http://', 'http://deployer:pa55@');
  await api('PATCH', `/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info/image_source', value: withCreds('disk.qcow2') },
    { op: 'add', path: '/instance_info/image_checksum', value: withCreds('CHECKSUM') },
  ]);
  await api('PUT', `/nodes/${uuid}/states/provision`, { target: 'active', configdrive: withCreds('configdrive.b64') });
  const disk = new SimDisk();
  await bootRamdisk(t, uuid, mac, disk, 'wait call-back');
  const active = await waitState(uuid, 'active');
  t.is(active.last_error, null);
  t.is(disk.writeCount, 1);
  t.deepEqual(disk.image?.checksum, { algorithm: 'sha256', value: hash });
  t.false(disk.image?.url.includes('pa55'), 'the recorded URL has its password masked');
  t.is(disk.configDrive?.source, 'url');
  t.is(disk.configDrive?.metaData?.['hostname'], 'behind-auth');
  t.true(secured.requests.filter((r) => r.status === 200).some((r) => r.path === '/disk.qcow2' && r.method === 'GET'));
});

run('agent - a checksum URL that answers 404 fails the deploy with the agent\'s ImageDownloadError in last_error', async (t) => {
  const { uuid, mac } = await directNode(t, 'available');
  await api('PATCH', `/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info/image_source', value: images.urlOf('os.img') },
    { op: 'add', path: '/instance_info/image_checksum', value: `${images.url}/no-such.sha256sum` },
  ]);
  await api('PUT', `/nodes/${uuid}/states/provision`, { target: 'active' });
  const disk = new SimDisk();
  await bootRamdisk(t, uuid, mac, disk, 'wait call-back');
  const failed = await waitState(uuid, 'deploy failed');
  t.regex(failed.last_error ?? '', /write_image failed.*Download of image http:\/\/127\.0\.0\.1:\d+\/no-such\.sha256sum failed: Received status code 404/);
  t.is(disk.writeCount, 0);
});
