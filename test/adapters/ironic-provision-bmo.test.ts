import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Image, RootDeviceHints } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { matchesHints } from '../../src/sim/agent/root-device.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { provisionerOnNode } from '../support/ironic-node-stub.ts';
import { untilDone } from '../support/provisioner-steps.ts';

// reference/bmo.md §5.2 Provision, as BMO sends it to Ironic:
// - instance_info carries `boot_iso` for a live ISO (ramdisk deploy), `image_source` and its
//   checksum otherwise, and the deploy interface is set at each deployment (a host's image may
//   have changed format since its node was created);
// - root_device hints carry BMO's operators (MakeHintMap): `<in>` for model and vendor, `by_path`
//   for a /dev/disk/by-path device name;
// - `wait call-back` + forceReboot → `deleted` (the deployment is aborted and started again).

const QCOW: Image = { url: 'http://images.example/os.qcow2', checksum: 'http://images.example/os.qcow2.sha256sum' };
const ISO: Image = { url: 'http://images.example/live.iso', format: 'live-iso' };

function host(name: string, image: Image): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled',
      bmc: { address: `redfish-virtualmedia://192.168.111.1:8000/redfish/v1/Systems/${name}`, credentialsName: 'bmc' },
      bootMACAddress: '52:54:00:aa:dd:01',
      image,
    } as HostData['spec'],
    credentials: { username: 'admin', password: 'provision-bmo-test-password' },
  };
}

/** Registers `h` on a fresh test server (real redfish interfaces, no override) and deploys `deployed`. */
async function deploy(t: { teardown: (fn: () => Promise<void>) => void }, registeredWith: Image, deployed: Image, rootDeviceHints?: RootDeviceHints) {
  const s = await startIronicApiServer({ maxVersion: '1.87', phaseDelayMs: 2 });
  const client = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    client.close();
    await s.close();
  });
  const p = createIronicProvisioner({ client, polls: { shortMs: 10, longMs: 20 }, imageCheck: { enabled: false } });
  const first = host('pb1', registeredWith);
  const id = (await untilDone(p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, first)).provisionerId ?? '';
  const createdWith = s.node(id)?.fields.deploy_interface;
  const h = { ...first, provisionerId: id, spec: { ...first.spec, image: deployed, ...(rootDeviceHints ? { rootDeviceHints } : {}) } };
  await untilDone(p, { op: 'provision', image: deployed, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints }, h);
  const fields = s.node(id)?.fields ?? {};
  return { createdWith, state: s.node(id)?.provisionState, deployInterface: fields.deploy_interface, info: (fields.instance_info ?? {}) as Record<string, unknown> };
}

test('ironic provision - a live ISO given after registration is booted by the ramdisk deploy from boot_iso', async (t) => {
  const r = await deploy(t, QCOW, ISO);
  t.is(r.createdWith, 'direct');
  t.is(r.state, 'active');
  t.is(r.deployInterface, 'ramdisk');
  t.is(r.info['boot_iso'], ISO.url);
  t.false('image_source' in r.info, 'a live ISO is not an image to write');
  t.false('image_disk_format' in r.info, 'live-iso is no Ironic disk format');
});

test('ironic provision - a disk image given to a host registered with a live ISO is written by the direct deploy', async (t) => {
  const r = await deploy(t, ISO, QCOW);
  t.is(r.createdWith, 'ramdisk');
  t.is(r.state, 'active');
  t.is(r.deployInterface, 'direct');
  t.is(r.info['image_source'], QCOW.url);
  t.false('boot_iso' in r.info);
});

test('ironic provision - root device hints keep their meaning: model and vendor are substrings, a by-path name is by_path', async (t) => {
  const byPath = '/dev/disk/by-path/pci-0000:00:1f.2-ata-1';
  const r = await deploy(t, QCOW, QCOW, { model: 'PERC', vendor: 'DELL', deviceName: byPath, minSizeGigabytes: 100 });
  const hints = r.info['root_device'] as Record<string, unknown>;
  t.deepEqual(hints, { model: '<in> PERC', vendor: '<in> DELL', by_path: `s== ${byPath}`, size: '>= 100' });
  // The disk the user described, as IPA matches it against those hints.
  const disk = { name: '/dev/sda', by_path: byPath, size: 480 * 2 ** 30, model: 'PERC H730 Mini', vendor: 'DELL EMC' };
  t.true(matchesHints(disk, hints));
  t.false(matchesHints({ ...disk, by_path: '/dev/disk/by-path/pci-0000:00:1f.2-ata-2' }, hints));
  // A plain device name stays Ironic's name hint.
  const plain = await deploy(t, QCOW, QCOW, { deviceName: '/dev/sda', serialNumber: 'S1' });
  t.deepEqual(plain.info['root_device'], { name: '/dev/sda', serial: 'S1' });
});

// A deployment waiting for its agent, on a stub Ironic that lists the writes asked of it.
const waitingForAgent = (node: Partial<IronicNode>) => provisionerOnNode({ name: 'lab~pb1', driver: 'redfish', provision_state: 'wait call-back', target_provision_state: 'active', ...node });

const provisionArgs = { op: 'provision', image: QCOW, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;
const forced = { ...provisionArgs, forceReboot: true };

test('ironic provision - a forced reboot tears down a deployment waiting in wait call-back, to deploy again', async (t) => {
  const { p, writes } = waitingForAgent({});
  t.deepEqual(await p.provision({ ...host('pb1', QCOW), provisionerId: 'node-1' }, forced), { kind: 'continuing', afterMs: 3, started: true });
  t.deepEqual(writes, ['setProvisionState ["deleted"]']);
});

test('ironic provision - without a forced reboot wait call-back is only polled, and deploying is never torn down', async (t) => {
  const waiting = waitingForAgent({});
  t.deepEqual(await waiting.p.provision({ ...host('pb1', QCOW), provisionerId: 'node-1' }, provisionArgs), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(waiting.writes, []);
  const deploying = waitingForAgent({ provision_state: 'deploying' });
  t.deepEqual(await deploying.p.provision({ ...host('pb1', QCOW), provisionerId: 'node-1' }, forced), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(deploying.writes, []);
});
