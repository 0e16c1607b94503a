import test from 'ava';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import type { IronicTestNode } from '../support/ironic-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

// Against a real Ironic (fake-hardware nodes): every step BMO takes, and what Ironic ends up with.
let ironic: IronicServer;
let recorder: Recorder;
let t0: IronicTestNode;

test.before(async () => {
  ironic = await startIronic();
  recorder = await startRecorder(ironic.url);
  t0 = await startIronicNode({ url: recorder.url });
  const applied = await t0.store.applyObjects([bmcSecret(), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ud', namespace: 'lab' }, stringData: { userData: '#cloud-config\nhostname: full' } }]);
  if (!applied.ok) throw new Error(`Secrets refused: ${JSON.stringify(applied.issues)}`);
});
test.after.always(async () => {
  await t0?.stop();
  await recorder?.stop();
  await ironic?.stop();
});

const targets = (name: string, kind: 'provision' | 'power') => recorder.calls
  .filter((c) => c.node === `lab~${name}` && c.method === 'PUT' && c.route.endsWith(`/states/${kind}`))
  .map((c) => (c.body as { target?: string } | undefined)?.target);

const state = (name: string) => t0.node.stats.hosts.get(`lab/${name}`);
const node = (name: string) => t0.client.getNode(`lab~${name}`);

test.serial('ironic - full lifecycle: register, inspect, prepare, provision, deprovision, delete', async (t) => {
  t.true((await t0.store.applyObjects([ironicHost('full', { userData: 'ud' })])).ok);
  const seen = new Set<string>();
  const off = t0.node.stats.onChange(() => { const s = state('full')?.state; if (s) seen.add(s); });
  await waitFor(() => state('full')?.state === 'provisioned', 60_000, 'provisioned');
  const active = await node('full');
  t.is(active?.provision_state, 'active');
  t.is(active?.driver, 'fake-hardware');
  t.is((active?.instance_info as Record<string, unknown>)['image_source'], 'http://images.lab/os.qcow2');
  t.is(((active?.driver_info ?? {}) as Record<string, unknown>)['redfish_address'], 'https://192.168.111.1:8000');
  // The deploy carried a config drive built from the host's Secrets and names.
  const deploy = recorder.calls.find((c) => c.node === 'lab~full' && c.route.endsWith('/states/provision') && (c.body as { target?: string }).target === 'active');
  const drive = (deploy?.body as { configdrive?: { user_data?: string; meta_data?: Record<string, string> } }).configdrive;
  t.is(drive?.user_data, '#cloud-config\nhostname: full');
  t.is(drive?.meta_data?.['metal3-name'], 'full');
  t.is(drive?.meta_data?.['metal3-namespace'], 'lab');
  t.deepEqual(targets('full', 'provision').slice(0, 4), ['manage', 'inspect', 'provide', 'active']);
  const snap = await t0.node.snapshot('lab/full');
  t.is(snap?.status.provisioning.ID, active?.uuid);
  t.truthy(snap?.status.hardware);
  // Deprovision by removing the image.
  t.true((await t0.store.applyObjects([ironicHost('full', { userData: 'ud', image: null })])).ok);
  await waitFor(() => state('full')?.state === 'available', 60_000, 'available again');
  t.is((await node('full'))?.provision_state, 'available');
  await t0.store.requestDelete('lab/full');
  await waitFor(() => t0.node.stats.hosts.get('lab/full') === undefined, 60_000, 'gone');
  off();
  t.is(await node('full'), null);
  for (const s of ['registering', 'inspecting', 'preparing', 'available', 'provisioning', 'provisioned', 'deprovisioning', 'powering off before delete', 'deleting']) t.true(seen.has(s), `passed through ${s}`);
});

test.serial('ironic - an externally provisioned host is adopted, never deployed', async (t) => {
  t.true((await t0.store.applyObjects([ironicHost('ext', { externallyProvisioned: true })])).ok);
  await waitFor(() => state('ext')?.state === 'externally provisioned', 30_000, 'externally provisioned');
  await waitUntil(async () => (await node('ext'))?.provision_state === 'active', 30_000, 'adopted in Ironic');
  t.deepEqual(targets('ext', 'provision'), ['manage', 'adopt']);
});

test.serial('ironic - detach removes the node and keeps the host; re-attach registers and adopts it', async (t) => {
  t.true((await t0.store.applyObjects([ironicHost('det')])).ok);
  await waitFor(() => state('det')?.state === 'provisioned', 60_000, 'provisioned');
  await t0.store.applyIntent('lab/det', { annotations: { 'baremetalhost.metal3.io/detached': '' } });
  await waitFor(() => state('det')?.operationalStatus === 'detached', 30_000, 'detached');
  t.is(await node('det'), null);
  t.is(state('det')?.state, 'provisioned');
  await t0.store.removeAnnotation('lab/det', 'baremetalhost.metal3.io/detached');
  await waitUntil(async () => (await node('det'))?.provision_state === 'active', 30_000, 'adopted again');
  t.is(state('det')?.operationalStatus, 'OK');
  t.is(state('det')?.state, 'provisioned');
});

test.serial('ironic - power off, on, and a reboot annotation reach Ironic', async (t) => {
  t.true((await t0.store.applyObjects([ironicHost('pwr')])).ok);
  await waitFor(() => state('pwr')?.state === 'provisioned', 60_000, 'provisioned');
  t.true((await t0.store.applyObjects([ironicHost('pwr', { online: false })])).ok);
  await waitUntil(async () => (await node('pwr'))?.power_state === 'power off' && state('pwr')?.poweredOn === false, 30_000, 'powered off');
  t.true((await t0.store.applyObjects([ironicHost('pwr', { online: true })])).ok);
  await waitUntil(async () => (await node('pwr'))?.power_state === 'power on' && state('pwr')?.poweredOn === true, 30_000, 'powered on');
  const before = targets('pwr', 'power').length;
  await t0.store.applyIntent('lab/pwr', { annotations: { 'reboot.metal3.io': '' } });
  await waitUntil(async () => (await t0.store.get('lab/pwr'))?.metadata.annotations?.['reboot.metal3.io'] === undefined, 30_000, 'reboot annotation consumed');
  await waitUntil(async () => (await node('pwr'))?.power_state === 'power on' && state('pwr')?.poweredOn === true, 30_000, 'back on');
  // Soft first (fake-hardware has it), then on again once the annotation is consumed.
  t.deepEqual(targets('pwr', 'power').slice(before), ['soft power off', 'power on']);
  t.deepEqual(targets('pwr', 'power').slice(0, before), ['soft power off', 'power on']);
});

for (const [label, make, ready] of [
  ['available', () => ironicHost('del-avail', { image: null }), 'available'],
  ['provisioned', () => ironicHost('del-prov'), 'provisioned'],
  ['externally provisioned', () => ironicHost('del-ext', { externallyProvisioned: true }), 'externally provisioned'],
] as const) {
  test.serial(`ironic - deleting a host in ${label} removes its node`, async (t) => {
    const host = make() as { metadata: { name: string } };
    const name = host.metadata.name;
    t.true((await t0.store.applyObjects([host])).ok);
    await waitFor(() => state(name)?.state === ready, 60_000, ready);
    await waitUntil(async () => (await node(name)) !== null, 10_000, 'node exists');
    await t0.store.requestDelete(`lab/${name}`);
    await waitFor(() => t0.node.stats.hosts.get(`lab/${name}`) === undefined, 60_000, 'gone');
    t.is(await node(name), null);
  });
}

test.serial('ironic - deleting a host still registering removes it', async (t) => {
  t.true((await t0.store.applyObjects([ironicHost('del-reg')])).ok);
  await t0.store.requestDelete('lab/del-reg');
  await waitFor(() => t0.node.stats.hosts.get('lab/del-reg') === undefined, 60_000, 'gone');
  await waitUntil(async () => (await node('del-reg')) === null, 10_000, 'node gone');
  t.is(await node('del-reg'), null);
});
