import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import { putHostRecord } from '../support/local-store.ts';
import type { IronicTestNode } from '../support/ironic-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

let ironic: IronicServer;
let it: IronicTestNode;
let images: ReturnType<typeof createServer>;
let imageBase = '';

test.before(async () => {
  ironic = await startIronic();
  // A small image server: /good.qcow2 exists, anything else is 404.
  images = createServer((req, res) => {
    res.statusCode = req.url === '/good.qcow2' ? 200 : 404;
    res.end();
  });
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  it = await startIronicNode({ url: ironic.url, imageCheck: true, machine: { maxProvisioningRetries: 2, backoffUnitMs: 50 } });
  const applied = await it.store.applyObjects([bmcSecret()]);
  if (!applied.ok) throw new Error(`Secret refused: ${JSON.stringify(applied.issues)}`);
});
test.after.always(async () => {
  await it?.stop();
  await ironic?.stop();
  images?.close();
});

const host = (name: string) => it.node.stats.hosts.get(`lab/${name}`);

test('ironic errors - an image URL that is not there ends in a provisioning error, backed off, up to the retry limit', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('badurl', { image: `${imageBase}/missing.qcow2` })])).ok);
  await waitFor(() => (host('badurl')?.errorType ?? '') === 'provisioning error', 60_000, 'provisioning error');
  await waitUntil(async () => /limit 2/.test((await it.node.snapshot('lab/badurl'))?.status.errorMessage ?? ''), 60_000, 'retry limit reached');
  const snap = await it.node.snapshot('lab/badurl');
  t.is(snap?.status.provisioningFailCount, 2);
  t.is(snap?.state, 'available');
  t.regex(snap?.status.errorMessage ?? '', /failed 2 times \(limit 2\); change spec.image/);
  t.true(snap?.recent.some((e) => /answered HTTP 404/.test(e.message)) ?? false);
  t.is((await it.client.getNode('lab~badurl'))?.provision_state, 'available');
});

test('ironic errors - a checksum of the wrong form ends in a provisioning error naming it', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('badsum', { image: `${imageBase}/good.qcow2`, checksum: 'xyz' })])).ok);
  await waitFor(() => (host('badsum')?.errorType ?? '') === 'provisioning error', 60_000, 'provisioning error');
  const snap = await it.node.snapshot('lab/badsum');
  t.true(snap?.recent.some((e) => /spec\.image\.checksum is not a sha256 checksum/.test(e.message)) ?? false);
});

test('ironic errors - a good image provisions', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('goodimg', { image: `${imageBase}/good.qcow2` })])).ok);
  await waitFor(() => host('goodimg')?.state === 'provisioned', 60_000, 'provisioned');
  t.is(host('goodimg')?.state, 'provisioned');
  // Provisioned with the image asked for, and without an error or a failed attempt on the way.
  const snap = await it.node.snapshot('lab/goodimg');
  t.is(snap?.state, 'provisioned');
  t.is(snap?.status.provisioning.image?.url, `${imageBase}/good.qcow2`);
  t.is(snap?.status.errorType ?? '', '');
  t.is(snap?.status.errorCount, 0);
  t.is(snap?.status.provisioningFailCount, 0);
  t.is((await it.client.getNode('lab~goodimg'))?.provision_state, 'active');
});

test('ironic errors - an unknown BMC scheme is a registration error and no node is created', async (t) => {
  // Into the hosts bucket directly, past the admission rules (which refuse the scheme).
  await putHostRecord(it.substrate.transport, ironicHost('warp', { address: 'warp://10.0.0.1' }));
  await waitFor(() => host('warp')?.errorType === 'registration error', 30_000, 'registration error');
  const snap = await it.node.snapshot('lab/warp');
  t.regex(snap?.status.errorMessage ?? '', /^spec\.bmc\.address: .*warp/);
  t.is(await it.client.getNode('lab~warp'), null);
});
