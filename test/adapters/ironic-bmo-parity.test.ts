import test from 'ava';
import type { ExecutionContext } from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Image } from '../../src/api/index.ts';
import type { CallArgs, OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { provisionArgs, provisionerOnNode, stubHost } from '../support/ironic-node-stub.ts';
import { untilDone } from '../support/provisioner-steps.ts';
import { waitFor } from '../support/wait.ts';

// Four places where BMO's Ironic provisioner (reference/bmo.md §5.2, §8) does what ours did not:
// - Provision meeting `clean failed` leaves maintenance and runs `manage`: cleaning always retries (#1182);
// - the checksum is validated whenever spec.image.url is set (validateProvisionData), custom deploy or not;
// - a typed checksum (md5 too) goes as image_os_hash_algo/_value, auto or none as image_checksum;
// - Register re-applies configureNode's fields to an existing node: deploy images, automated_clean,
//   the boot mode capabilities and cpu_arch.

const PASSWORD = 'bmo-parity-secret-password';
const DEPLOY = { kernelUrl: 'http://images.example/ipa.kernel', ramdiskUrl: 'http://images.example/ipa.initramfs' };
const MD5 = '0123456789abcdef0123456789abcdef';
const SHA512 = 'ab'.repeat(64);

function host(name: string, spec: Partial<HostData['spec']> = {}): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata',
      bmc: { address: `redfish-virtualmedia://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' },
      bootMACAddress: `52:54:00:bb:00:${String(name.length).padStart(2, '0')}`,
      ...spec,
    } as HostData['spec'],
    credentials: { username: 'admin', password: PASSWORD },
  };
}

type Rig = { s: IronicApiServer; client: IronicClient; p: Provisioner };

async function rig(t: ExecutionContext, o: { fake?: boolean } = {}): Promise<Rig> {
  const s = await startIronicApiServer({ maxVersion: '1.87', phaseDelayMs: 2 });
  const client = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    client.close();
    await s.close();
  });
  const p = createIronicProvisioner({ client, polls: { shortMs: 5, longMs: 10 }, imageCheck: { enabled: false }, deploy: DEPLOY, ...(o.fake ? { driverOverride: { hardwareType: 'fake-hardware' as const } } : {}) });
  return { s, client, p };
}

async function registered(r: Rig, h: HostData): Promise<HostData> {
  const id = (await untilDone(r.p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, h)).provisionerId ?? '';
  return { ...h, provisionerId: id };
}

/** The call repeated while it answers `continuing`: its first other answer. */
async function settled(p: Provisioner, args: CallArgs, h: HostData): Promise<OpResult> {
  for (let i = 0; i < 500; i++) {
    const r = await (p[args.op as 'provision'] as (h: HostData, a: CallArgs) => Promise<OpResult>).call(p, h, args);
    if (r.kind !== 'continuing') return r;
    await new Promise((resolve) => setTimeout(resolve, Math.min(r.afterMs, 20)));
  }
  throw new Error(`${args.op} did not settle`);
}

const provisionOf = (h: HostData): CallArgs => ({ op: 'provision', image: h.spec.image, customDeploy: h.spec.customDeploy?.method, bootMode: 'UEFI', rootDeviceHints: undefined });

// 1. clean failed during provisioning -------------------------------------------------------------

test('bmo parity - provisioning a node whose cleaning failed leaves maintenance, manages it and deploys', async (t) => {
  const r = await rig(t, { fake: true });
  const image: Image = { url: 'http://images.example/os.qcow2', checksum: 'a'.repeat(64), checksumType: 'sha256' };
  const h = await registered(r, host('cf1', { image }));
  // A clean that failed its step: clean failed, in maintenance with fault "clean failure".
  r.s.failStep('bios.factory_reset', { message: 'BMC said no', times: 1 });
  await r.client.setProvisionState(h.provisionerId, 'clean', { cleanSteps: [{ interface: 'bios', step: 'factory_reset' }] });
  await waitFor(() => r.s.node(h.provisionerId)?.provisionState === 'clean failed', 5_000);
  t.like(r.s.node(h.provisionerId)?.fields ?? {}, { maintenance: true, fault: 'clean failure' });
  await untilDone(r.p, provisionOf(h), h);
  const node = r.s.node(h.provisionerId);
  t.is(node?.provisionState, 'active');
  t.like(node?.fields ?? {}, { maintenance: false, fault: null });
});

test('bmo parity - clean failed in provisioning: maintenance first, then manage, never a failure', async (t) => {
  const inMaintenance = provisionerOnNode({ provision_state: 'clean failed', target_provision_state: 'available', maintenance: true, fault: 'clean failure', last_error: 'Failed to erase devices' });
  t.is((await inMaintenance.p.provision(stubHost(), provisionArgs)).kind, 'continuing');
  t.deepEqual(inMaintenance.writes, ['unsetMaintenance []']);
  const out = provisionerOnNode({ provision_state: 'clean failed', target_provision_state: 'available', maintenance: false, last_error: 'Failed to erase devices' });
  t.is((await out.p.provision(stubHost(), provisionArgs)).kind, 'continuing');
  t.deepEqual(out.writes, ['setProvisionState ["manage"]']);
});

// 2. checksum validated with a custom deploy ------------------------------------------------------

test('bmo parity - a custom deploy with an image whose checksum is broken fails before anything is sent', async (t) => {
  const r = await rig(t);
  const h = await registered(r, host('cd1'));
  const bad = { ...h, spec: { ...h.spec, image: { url: 'http://images.example/os.qcow2', checksum: 'not-a-checksum', checksumType: 'sha256' as const }, customDeploy: { method: 'install_coreos' } } };
  const result = await settled(r.p, provisionOf(bad), bad);
  t.is(result.kind, 'failed');
  t.regex((result as { message: string }).message, /spec\.image\.checksum/);
  const node = r.s.node(h.provisionerId);
  t.is(node?.provisionState, 'manageable', 'nothing was started');
  t.deepEqual(node?.fields.instance_info, {});
  const missing = { ...bad, spec: { ...bad.spec, image: { url: 'http://images.example/os.qcow2' } } };
  t.is((await settled(r.p, provisionOf(missing), missing)).kind, 'failed', 'no checksum for a disk image: BMO\'s "checksum is required"');
});

test('bmo parity - a custom deploy without an image, or with a live ISO, needs no checksum', async (t) => {
  const none = provisionerOnNode({ provision_state: 'manageable' });
  const h = stubHost();
  const withoutImage = { ...h, spec: { ...h.spec, image: undefined, customDeploy: { method: 'install_coreos' } } } as HostData;
  t.is((await none.p.provision(withoutImage, provisionArgs)).kind, 'continuing');
  const iso = { ...withoutImage, spec: { ...withoutImage.spec, image: { url: 'http://images.example/live.iso', format: 'live-iso' as const } } };
  t.is((await provisionerOnNode({ provision_state: 'manageable' }).p.provision(iso, provisionArgs)).kind, 'continuing');
});

// 3. checksum fields by checksumType --------------------------------------------------------------

const CHECKSUM_CASES: readonly { name: string; image: Image; want: Record<string, unknown> }[] = [
  { name: 'md5', image: { url: 'http://images.example/a.qcow2', checksum: MD5, checksumType: 'md5' }, want: { image_os_hash_algo: 'md5', image_os_hash_value: MD5 } },
  { name: 'sha512', image: { url: 'http://images.example/a.qcow2', checksum: SHA512, checksumType: 'sha512' }, want: { image_os_hash_algo: 'sha512', image_os_hash_value: SHA512 } },
  { name: 'auto', image: { url: 'http://images.example/a.qcow2', checksum: MD5, checksumType: 'auto' }, want: { image_checksum: MD5 } },
  { name: 'no type', image: { url: 'http://images.example/a.qcow2', checksum: SHA512 }, want: { image_checksum: SHA512 } },
  { name: 'a checksum URL without type', image: { url: 'http://images.example/a.qcow2', checksum: 'http://images.example/a.md5sum' }, want: { image_checksum: 'http://images.example/a.md5sum' } },
  { name: 'a checksum URL typed md5', image: { url: 'http://images.example/a.qcow2', checksum: 'http://images.example/a.md5sum', checksumType: 'md5' }, want: { image_os_hash_algo: 'md5', image_os_hash_value: 'http://images.example/a.md5sum' } },
];

for (const c of CHECKSUM_CASES) {
  test(`bmo parity - checksum ${c.name} goes to Ironic as BMO sends it`, async (t) => {
    const r = await rig(t, { fake: true });
    const h = await registered(r, host(`ck-${c.name.length}`, { image: c.image }));
    await untilDone(r.p, provisionOf(h), h);
    const info = (r.s.node(h.provisionerId)?.fields.instance_info ?? {}) as Record<string, unknown>;
    const sent = Object.fromEntries(['image_checksum', 'image_os_hash_algo', 'image_os_hash_value'].filter((k) => info[k] !== undefined).map((k) => [k, info[k]]));
    t.deepEqual(sent, c.want);
    t.is(r.s.node(h.provisionerId)?.provisionState, 'active');
  });
}

test('bmo parity - an md5 image that failed to deploy is the same image, not a new one to redeploy', async (t) => {
  const image: Image = { url: 'http://images.example/a.qcow2', checksum: MD5, checksumType: 'md5' };
  const { p, writes } = provisionerOnNode({ provision_state: 'deploy failed', target_provision_state: 'active', last_error: 'boom', instance_info: { image_source: image.url, image_os_hash_algo: 'md5', image_os_hash_value: MD5 } });
  const h = stubHost();
  const result = await p.provision({ ...h, spec: { ...h.spec, image } }, { ...provisionArgs, image });
  t.is(result.kind, 'failed');
  t.deepEqual(writes, []);
});

// 4. Register re-applies configureNode's fields to an existing node --------------------------------

test('bmo parity - registering an existing node puts back its deploy images, automated_clean and boot mode', async (t) => {
  const r = await rig(t);
  const h = await registered(r, host('rg1', { architecture: 'x86_64' }));
  const before = r.s.node(h.provisionerId)?.fields ?? {};
  t.is(before.automated_clean, true, 'created as the host asks');
  // Changed behind our back (another operator, an Ironic restored from an old database).
  await r.client.patchNode(h.provisionerId, [
    { op: 'add', path: '/driver_info/deploy_kernel', value: 'http://old.example/k' },
    { op: 'remove', path: '/driver_info/deploy_ramdisk' },
    { op: 'replace', path: '/automated_clean', value: false },
    { op: 'add', path: '/properties/capabilities', value: 'cpu_vt:true,boot_mode:bios' },
    { op: 'add', path: '/properties/cpu_arch', value: 'aarch64' },
  ]);
  await untilDone(r.p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, h);
  const after = r.s.node(h.provisionerId)?.fields ?? {};
  const info = after.driver_info as Record<string, unknown>;
  t.is(info['deploy_kernel'], DEPLOY.kernelUrl);
  t.is(info['deploy_ramdisk'], DEPLOY.ramdiskUrl);
  t.is(info['redfish_password'], PASSWORD, 'the credentials are left as they were');
  t.is(after.automated_clean, true);
  t.deepEqual(after.properties, { ...(before.properties as object), capabilities: 'cpu_vt:true,boot_mode:uefi', cpu_arch: 'x86_64' });
});

test('bmo parity - registering a node found by its ID under another name gives it the host\'s name back', async (t) => {
  const r = await rig(t);
  const h = await registered(r, host('rg3'));
  await r.client.patchNode(h.provisionerId, [{ op: 'replace', path: '/name', value: 'renamed-by-hand' }]);
  // A controller that has not read the node since (this one would reuse its own last read).
  const restarted = createIronicProvisioner({ client: r.client, polls: { shortMs: 5, longMs: 10 }, imageCheck: { enabled: false }, deploy: DEPLOY });
  await untilDone(restarted, { op: 'register', restartOnFailure: false, credentialsChanged: false }, h);
  t.is(r.s.node(h.provisionerId)?.fields.name, 'lab~rg3');
  t.is((await r.client.getNode('lab~rg3'))?.uuid, h.provisionerId);
  t.is(await r.client.getNode('renamed-by-hand'), null);
});

test('bmo parity - registering a node that already matches writes nothing', async (t) => {
  const r = await rig(t);
  const h = await registered(r, host('rg2', { automatedCleaningMode: 'disabled' }));
  t.is(r.s.node(h.provisionerId)?.fields.automated_clean, false);
  const patches = (): number => r.client.stats.byRoute['PATCH /v1/nodes/{node}'] ?? 0;
  const before = patches();
  await untilDone(r.p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, h);
  t.is(patches() - before, 0);
});

test('bmo parity - a node busy in a flow of its own is not reconfigured by registration', async (t) => {
  const { p, writes } = provisionerOnNode({ provision_state: 'cleaning', target_provision_state: 'available', automated_clean: false, driver_info: { ipmi_address: '10.0.0.1' } });
  const h = stubHost();
  await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.false(writes.some((w) => w.startsWith('patchNode')), writes.join('\n'));
});
