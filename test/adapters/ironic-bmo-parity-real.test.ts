import { randomUUID } from 'node:crypto';
import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { versionSupports } from '../../src/adapters/ironic/client/features.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Image } from '../../src/api/index.ts';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { untilDone } from '../support/provisioner-steps.ts';

// The BMO parity cases of ironic-bmo-parity.test.ts that the installed Ironic (fake-hardware)
// can play: a failed clean retried by provisioning, md5 as image_os_hash_*, and registration
// putting back configureNode's fields on an existing node.

const DEPLOY = { kernelUrl: 'http://images.example/ipa.kernel', ramdiskUrl: 'http://images.example/ipa.initramfs' };
const MD5 = '0123456789abcdef0123456789abcdef';

const it = {} as { ironic: IronicServer; client: IronicClient; p: Provisioner };
test.before(async () => {
  it.ironic = await startIronic();
  it.client = createIronicClient({ endpoint: it.ironic.url, timeoutMs: 10_000 });
  await it.client.connect();
  it.p = createIronicProvisioner({ client: it.client, driverOverride: { hardwareType: 'fake-hardware' }, deploy: DEPLOY, polls: { shortMs: 50, longMs: 100 }, imageCheck: { enabled: false } });
});
test.after.always(async () => {
  it.client?.close();
  await it.ironic?.stop();
});

function host(name: string, mac: number, spec: Partial<HostData['spec']> = {}): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: randomUUID(), provisionerId: '',
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled',
      bmc: { address: `redfish://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' },
      bootMACAddress: `52:54:00:cc:00:0${mac}`,
      ...spec,
    } as HostData['spec'],
    credentials: { username: 'admin', password: 'bmo-parity-real-password' },
  };
}

async function registered(h: HostData): Promise<HostData> {
  const id = (await untilDone(it.p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, h)).provisionerId ?? '';
  return { ...h, provisionerId: id };
}

async function nodeUntil(id: string, ok: (n: IronicNode) => boolean): Promise<IronicNode> {
  for (let i = 0; i < 200; i++) {
    const n = await it.client.getNode(id);
    if (n && ok(n)) return n;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`node ${id} never reached the state waited for`);
}

const provisionOf = (h: HostData): CallArgs => ({ op: 'provision', image: h.spec.image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });

test('bmo parity on the installed Ironic - provisioning a node whose cleaning failed manages it again and deploys', async (t) => {
  const image: Image = { url: 'http://images.example/os.qcow2', checksum: 'a'.repeat(64), checksumType: 'sha256' };
  const h = await registered(host('real-cf', 1, { image }));
  // A step fake-hardware lacks: the conductor fails the clean (cleaning_error_handler).
  await it.client.setProvisionState(h.provisionerId, 'clean', { cleanSteps: [{ interface: 'deploy', step: 'no_such_step' }] });
  const failedClean = await nodeUntil(h.provisionerId, (n) => n.provision_state === 'clean failed');
  t.truthy(failedClean.last_error);
  await untilDone(it.p, provisionOf(h), h);
  const node = await it.client.getNode(h.provisionerId);
  t.is(node?.provision_state, 'active');
  t.false(node?.maintenance);
});

test('bmo parity on the installed Ironic - an md5 checksum is sent as image_os_hash_algo md5', async (t) => {
  const image: Image = { url: 'http://images.example/os.qcow2', checksum: MD5, checksumType: 'md5' };
  const h = await registered(host('real-md5', 2, { image }));
  await untilDone(it.p, provisionOf(h), h);
  const node = await it.client.getNode(h.provisionerId);
  t.is(node?.provision_state, 'active');
  t.like(node?.instance_info ?? {}, { image_os_hash_algo: 'md5', image_os_hash_value: MD5 });
  t.false('image_checksum' in (node?.instance_info ?? {}));
});

test('bmo parity on the installed Ironic - registering an existing node puts back its deploy images and automated_clean', async (t) => {
  const h = await registered(host('real-rg', 3));
  t.is((await it.client.getNode(h.provisionerId))?.automated_clean, false);
  await it.client.patchNode(h.provisionerId, [
    { op: 'add', path: '/driver_info/deploy_kernel', value: 'http://old.example/k' },
    { op: 'remove', path: '/driver_info/deploy_ramdisk' },
    { op: 'replace', path: '/automated_clean', value: true },
    { op: 'add', path: '/properties/capabilities', value: 'boot_mode:bios' },
  ]);
  await untilDone(it.p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, h);
  const node = await it.client.getNode(h.provisionerId);
  t.like(node?.driver_info ?? {}, { deploy_kernel: DEPLOY.kernelUrl, deploy_ramdisk: DEPLOY.ramdiskUrl, redfish_password: '******' });
  t.is(node?.automated_clean, false);
  t.is((node?.properties ?? {})['capabilities'], 'boot_mode:uefi');
});

// OCI images came with Ironic 29.0 (API 1.96): Debian 12's 21.4 (and any Ironic before 29.0) is
// refused the image before anything is sent, naming the version it offers; a newer one deploys it.
test('bmo parity on the installed Ironic - an oci:// image is deployed from 1.96, refused in words before it', async (t) => {
  const image: Image = { url: 'oci://registry.example/os/ubuntu:24.04' };
  const h = await registered(host('real-oci', 4, { image }));
  const { serverMax } = await it.client.negotiated();
  if (versionSupports(serverMax, 'oci-images')) {
    await untilDone(it.p, provisionOf(h), h);
    t.is((await it.client.getNode(h.provisionerId))?.provision_state, 'active');
    return;
  }
  const before = await it.client.getNode(h.provisionerId);
  const result = await it.p.provision(h, provisionOf(h) as CallArgs & { op: 'provision' });
  t.like(result, { kind: 'failed', retryAfterMs: null });
  t.is(result.kind === 'failed' ? result.message : '', `an oci:// image (spec.image.url) needs Ironic API 1.96 or later; this Ironic offers up to ${serverMax.text}: upgrade Ironic to 29.0 or later, or use an http(s) image URL`);
  const after = await it.client.getNode(h.provisionerId);
  t.is(after?.provision_state, before?.provision_state, 'nothing was sent');
  t.deepEqual(after?.instance_info ?? {}, before?.instance_info ?? {});
});
