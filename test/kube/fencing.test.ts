// Fencing on Kubernetes for every write of a shard's owner, not only status: finalizers, the
// annotations the controller removes, and the MAAS side's status, spec and finalizers. Each
// fenced write claims the object (metalfleet.io/owner: <shard>/<epoch>/<node>) in the same patch,
// with the resourceVersion, so a newer owner's claim is never overwritten; an older epoch is
// refused (StaleFence) and counted. Against the Kubernetes API test server, two nodes' adapters.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter, type KubeAdapter } from '../../src/adapters/kube/index.ts';
import { initialStatus, type BareMetalHostStatus } from '../../src/api/index.ts';
import { silentLogger, StaleFence, type Fence } from '../../src/ports/index.ts';
import { startKubeApi, type KubeApiServer, type KubeObject } from '../support/kube-api/index.ts';
import { waitUntil } from '../support/wait.ts';

const CRD_DIRS = [fileURLToPath(new URL('../../deploy/crds', import.meta.url)), fileURLToPath(new URL('./fixtures/crds', import.meta.url))];
const OWNER = 'metalfleet.io/owner';
const REBOOT = 'reboot.metal3.io';
const OLD: Fence = { shard: 3, epoch: 5, holder: 'node-a' };
const NEW: Fence = { shard: 3, epoch: 9, holder: 'node-b' };

interface Node {
  readonly adapter: KubeAdapter;
  stop(): Promise<void>;
}

async function node(api: KubeApiServer, name: string): Promise<Node> {
  const system = startSystem({ name: `fencing-${name}`, onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: name, maas: true });
  await adapter.start(system);
  return {
    adapter,
    async stop() {
      await adapter.close();
      system.stop();
    },
  };
}

async function twoNodes(t: { teardown(fn: () => Promise<void>): void }, objects: KubeObject[]): Promise<{ api: KubeApiServer; a: Node; b: Node }> {
  const api = await startKubeApi({ crdDir: CRD_DIRS, watchTimeoutSeconds: 5 });
  for (const o of objects) api.create(o);
  const a = await node(api, 'node-a');
  const b = await node(api, 'node-b');
  t.teardown(async () => {
    await a.stop();
    await b.stop();
    await api.close();
  });
  return { api, a, b };
}

const host = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'h1', namespace: 'lab', annotations: { [REBOOT]: '{"mode":"soft"}', 'inspect.metal3.io': '' } },
  spec: { online: true, bmc: { address: 'redfish://10.0.0.14/redfish/v1/Systems/1', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:00:00:01' },
} as KubeObject;

const machine = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'MaasMachine',
  metadata: { name: 'm1', namespace: 'capi' },
  spec: { image: 'ubuntu/jammy', minCPU: 1, minMemory: 1024 },
} as KubeObject;

type Meta = { metadata: { annotations?: Record<string, string>; finalizers?: string[] }; status?: Record<string, unknown>; spec?: Record<string, unknown> };
const hostRef = { resource: 'baremetalhosts', namespace: 'lab', name: 'h1' };
const machineRef = { resource: 'maasmachines', namespace: 'capi', name: 'm1' };
const status = (state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus => ({ ...initialStatus(), provisioning: { state, ID: '' } });

test('kube fencing - host finalizer and annotation writes: an older epoch after a newer one is refused and counted', async (t) => {
  const { api, a, b } = await twoNodes(t, [host]);
  const stored = (): Meta => api.get(hostRef) as Meta;
  const key = 'lab/h1';
  await a.adapter.store.addFinalizer('BareMetalHost', key, 'old.metalfleet.io', OLD);
  t.is(stored().metadata.annotations?.[OWNER], '3/5/node-a', 'the finalizer write claimed the host for a');
  // The shard moves to b, whose first write is a finalizer: its claim rides in the same patch.
  // (b's cache may not have a's write yet: a 409, a read, and the patch again.)
  const patchesBefore = api.requests({ method: 'PATCH', code: 200 }).length;
  await b.adapter.store.addFinalizer('BareMetalHost', key, 'new.metalfleet.io', NEW);
  t.is(api.requests({ method: 'PATCH', code: 200 }).length, patchesBefore + 1, 'claim and finalizer in one patch');
  t.is(stored().metadata.annotations?.[OWNER], '3/9/node-b');
  t.deepEqual(stored().metadata.finalizers, ['old.metalfleet.io', 'new.metalfleet.io']);

  // a has the old epoch: refused, whether its cache has seen b's claim yet or not.
  const error = await t.throwsAsync(a.adapter.store.removeFinalizer('BareMetalHost', key, 'old.metalfleet.io', OLD), { instanceOf: StaleFence });
  t.is(error.message, 'removing finalizer old.metalfleet.io from BareMetalHost lab/h1 refused: shard 3 epoch 5 of node-a is older than epoch 9, which has written since (this node no longer owns the shard)');
  await waitUntil(async () => (await a.adapter.store.get('BareMetalHost', key))?.metadata.annotations?.[OWNER] === '3/9/node-b', 5_000, 'a sees the claim');
  await t.throwsAsync(a.adapter.store.patchAnnotations('BareMetalHost', key, { [REBOOT]: null }, OLD), { instanceOf: StaleFence });
  await t.throwsAsync(a.adapter.store.addFinalizer('BareMetalHost', key, 'late.metalfleet.io', OLD), { instanceOf: StaleFence });
  await t.throwsAsync(a.adapter.store.writeStatus('BareMetalHost', key, status('available'), OLD), { instanceOf: StaleFence });
  t.is(a.adapter.store.staleFenceRefusals(), 4);
  t.is(b.adapter.store.staleFenceRefusals(), 0);
  t.deepEqual(stored().metadata.finalizers, ['old.metalfleet.io', 'new.metalfleet.io'], 'nothing of a\'s went through');
  t.is(stored().metadata.annotations?.[REBOOT], '{"mode":"soft"}');

  // The newer owner's writes pass.
  await b.adapter.store.patchAnnotations('BareMetalHost', key, { [REBOOT]: null }, NEW);
  await b.adapter.store.removeFinalizer('BareMetalHost', key, 'old.metalfleet.io', NEW);
  await b.adapter.store.writeStatus('BareMetalHost', key, status('registering'), NEW);
  t.deepEqual(stored().metadata.finalizers, ['new.metalfleet.io']);
  t.is(stored().metadata.annotations?.[REBOOT], undefined);
  t.is((stored().status as { provisioning?: { state?: string } }).provisioning?.state, 'registering');

  // No fence (one owner): not checked, and the owner recorded stays.
  await a.adapter.store.patchAnnotations('BareMetalHost', key, { ['inspect.metal3.io']: null });
  await a.adapter.store.addFinalizer('BareMetalHost', key, 'plain.metalfleet.io');
  t.deepEqual(stored().metadata.finalizers, ['new.metalfleet.io', 'plain.metalfleet.io']);
  t.is(stored().metadata.annotations?.['inspect.metal3.io'], undefined);
  t.is(stored().metadata.annotations?.[OWNER], '3/9/node-b');
  t.is(a.adapter.store.staleFenceRefusals(), 4);
});

test('kube fencing - a newer owner\'s status claim refuses the older owner\'s finalizer write', async (t) => {
  const { api, a, b } = await twoNodes(t, [host]);
  await b.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('registering'), NEW);
  await t.throwsAsync(a.adapter.store.addFinalizer('BareMetalHost', 'lab/h1', 'old.metalfleet.io', OLD), { instanceOf: StaleFence, message: /older than epoch 9/ });
  t.is((api.get(hostRef) as Meta).metadata.finalizers, undefined);
  t.is(a.adapter.store.staleFenceRefusals(), 1);
});

test('kube fencing - MaasMachine status, spec and finalizers: an older epoch is refused and counted', async (t) => {
  const { api, a, b } = await twoNodes(t, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi' } } as KubeObject, machine]);
  const objectsA = a.adapter.store;
  const objectsB = b.adapter.store;
  const stored = (): Meta => api.get(machineRef) as Meta;
  const key = 'capi/m1';
  await objectsA.writeStatus('MaasMachine', key, { ready: false }, OLD);
  t.is(stored().metadata.annotations?.[OWNER], '3/5/node-a');
  await objectsB.addFinalizer('MaasMachine', key, 'maasmachine.infrastructure.cluster.x-k8s.io', NEW);
  t.is(stored().metadata.annotations?.[OWNER], '3/9/node-b');

  await t.throwsAsync(objectsA.writeStatus('MaasMachine', key, { ready: true }, OLD), { instanceOf: StaleFence });
  await t.throwsAsync(objectsA.patchSpec('MaasMachine', key, { systemID: 'abc' }, OLD), { instanceOf: StaleFence });
  await t.throwsAsync(objectsA.removeFinalizer('MaasMachine', key, 'maasmachine.infrastructure.cluster.x-k8s.io', OLD), { instanceOf: StaleFence });
  t.is(objectsA.staleFenceRefusals(), 3);
  t.deepEqual(stored().metadata.finalizers, ['maasmachine.infrastructure.cluster.x-k8s.io']);
  t.is(stored().spec?.['systemID'], undefined);
  t.deepEqual(stored().status, { ready: false });

  await objectsB.patchSpec('MaasMachine', key, { systemID: 'abc' }, NEW);
  await objectsB.writeStatus('MaasMachine', key, { ready: true }, NEW);
  t.is(stored().spec?.['systemID'], 'abc');
  t.deepEqual(stored().status, { ready: true });
  // Without a fence (MAAS actors that pass none yet) nothing changes for them.
  await objectsA.patchSpec('MaasMachine', key, { providerID: 'maas:///az1/abc' });
  t.is(stored().spec?.['providerID'], 'maas:///az1/abc');
  t.is(objectsB.staleFenceRefusals(), 0);
});
