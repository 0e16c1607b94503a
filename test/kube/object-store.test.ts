import test from 'ava';
import { KubeObjectStore } from '../../src/adapters/kube/object-store.ts';
import { ObjectWriter } from '../../src/adapters/kube/object-writer.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import type { ResourceName } from '../../src/adapters/kube/resources.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { WriteLanes } from '../../src/adapters/kube/write-lanes.ts';
import type { ObjectEvent, ObjectKind } from '../../src/ports/index.ts';
import { silentLogger, StoreError } from '../../src/ports/index.ts';
import { FakeServer } from './support/fake-client.ts';

function setup() {
  const server = new FakeServer();
  const client = server.client();
  const lanes = new WriteLanes();
  const kinds: ObjectKind[] = ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'];
  const caches = Object.fromEntries(kinds.map((k) => [k, new ResourceCache(RESOURCES[k as ResourceName], silentLogger)])) as Record<ObjectKind, ResourceCache>;
  const writer = (k: 'MaasMachine' | 'MaasCluster') => new ObjectWriter(RESOURCES[k], { client, cache: caches[k], lanes, log: silentLogger, sleep: async () => undefined });
  const store = new KubeObjectStore({ caches, writers: { MaasMachine: writer('MaasMachine'), MaasCluster: writer('MaasCluster') }, log: silentLogger });
  const events: ObjectEvent[] = [];
  store.watch((e) => events.push(e));
  return { server, caches, store, events };
}

const mm = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm1', namespace: 'capi' }, spec: { image: 'ubuntu/jammy', minCPU: 1, minMemory: 1024 } };

test('kube object store - status writes come back as status changes, spec changes as spec', async (t) => {
  const { server, caches, store, events } = setup();
  caches.MaasMachine.observe('add', server.put(mm));
  await store.writeStatus('MaasMachine', 'capi/m1', { ready: false, machineState: 'Deploying' });
  await store.patchSpec('MaasMachine', 'capi/m1', { providerID: 'maas:///az1/abc', systemID: 'abc' });
  t.deepEqual(events.map((e) => (e.type === 'upsert' ? `${e.kind} ${e.change}` : 'deleted')), ['MaasMachine spec', 'MaasMachine status', 'MaasMachine spec']);
  t.deepEqual((await store.get('MaasMachine', 'capi/m1'))?.spec, { image: 'ubuntu/jammy', minCPU: 1, minMemory: 1024, providerID: 'maas:///az1/abc', systemID: 'abc' });
  const specPatch = server.requests.at(-1);
  t.deepEqual(specPatch?.body, { spec: { providerID: 'maas:///az1/abc', systemID: 'abc' }, metadata: { resourceVersion: '102' } });
});

test('kube object store - a replaced spec field drops what the new value no longer has', async (t) => {
  const { server, caches, store } = setup();
  caches.MaasCluster.observe('add', server.put({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'capi' }, spec: { controlPlaneEndpoint: { host: 'old', port: 6443, extra: 1 } } }));
  await store.patchSpec('MaasCluster', 'capi/c1', { controlPlaneEndpoint: { host: 'new', port: 6443 } });
  t.deepEqual((await store.get('MaasCluster', 'capi/c1'))?.spec, { controlPlaneEndpoint: { host: 'new', port: 6443 } });
});

test('kube object store - Secret events name the Secret and never carry its data', async (t) => {
  const { caches, store, events } = setup();
  caches.Secret.observe('add', { metadata: { name: 'boot', namespace: 'capi', resourceVersion: '4' }, data: { value: Buffer.from('#cloud-config').toString('base64') } });
  t.false(JSON.stringify(events).includes(Buffer.from('#cloud-config').toString('base64')));
  t.is(events[0]?.type === 'upsert' ? events[0].key : '', 'capi/boot');
  t.is((await store.getSecret('capi', 'boot'))?.data?.['value'], Buffer.from('#cloud-config').toString('base64'));
});

test('kube object store - kinds metalfleet only reads are refused for writes, without a request', async (t) => {
  const { server, caches, store } = setup();
  caches.Machine.observe('add', server.put({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm1', namespace: 'capi' }, spec: {} }));
  const error = await t.throwsAsync(store.writeStatus('Machine', 'capi/m1', { ready: true }), { instanceOf: StoreError });
  t.false(error.retryable);
  t.is(server.requests.length, 0);
});

test('kube object store - removing a finalizer of an object already gone is nothing to do', async (t) => {
  const { store } = setup();
  await t.notThrowsAsync(store.removeFinalizer('MaasCluster', 'capi/none', 'x'));
});
