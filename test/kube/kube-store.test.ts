import test from 'ava';
import { EventRecorder } from '../../src/adapters/kube/event-recorder.ts';
import { KubeStore } from '../../src/adapters/kube/kube-store.ts';
import { ObjectWriter } from '../../src/adapters/kube/object-writer.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { WriteLanes } from '../../src/adapters/kube/write-lanes.ts';
import type { Logger, ResourceEvent, ResourceKind } from '../../src/ports/index.ts';
import { silentLogger, StoreError } from '../../src/ports/index.ts';
import { bmh } from '../support/node.ts';
import { FakeServer } from './support/fake-client.ts';

function recordingLogger(lines: Array<{ obj: object; msg?: string }>): Logger {
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (obj, msg) => lines.push({ obj, ...(msg !== undefined ? { msg } : {}) }),
    error: (obj, msg) => lines.push({ obj, ...(msg !== undefined ? { msg } : {}) }),
    child: () => log,
  };
  return log;
}

const KINDS = ['BareMetalHost', 'MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'] as const satisfies readonly ResourceKind[];

// One store over every kind's cache, as the adapter builds it (with MAAS).
function setup(log: Logger = silentLogger) {
  const server = new FakeServer();
  const client = server.client();
  const lanes = new WriteLanes();
  const caches = Object.fromEntries(KINDS.map((k) => [k, new ResourceCache(RESOURCES[k], log)])) as Record<ResourceKind, ResourceCache>;
  const writer = (k: 'BareMetalHost' | 'MaasMachine' | 'MaasCluster') => new ObjectWriter(RESOURCES[k], { client, cache: caches[k], lanes, log, sleep: async () => undefined });
  const store = new KubeStore({
    caches,
    writers: { BareMetalHost: writer('BareMetalHost'), MaasMachine: writer('MaasMachine'), MaasCluster: writer('MaasCluster') },
    events: new EventRecorder({ client, log, component: 'metalfleet', instance: 'node-a', now: () => 1_700_000_000_000 }),
    log,
  });
  const hosts = caches.BareMetalHost;
  const secrets = caches.Secret;
  const events: string[] = [];
  store.watch<'BareMetalHost'>((e) => events.push(e.type === 'deleted' ? `deleted ${e.key}` : `upsert ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`), { kinds: ['BareMetalHost'] });
  const objectEvents: ResourceEvent[] = [];
  store.watch((e) => objectEvents.push(e), { kinds: ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'] });
  const add = (o: unknown) => {
    const stored = server.put(o as Record<string, unknown>);
    hosts.observe('add', stored);
    return stored;
  };
  return { server, caches, hosts, secrets, store, events, objectEvents, add };
}

test('kube store - BareMetalHost: new hosts and spec changes are delivered; status-only updates (our writes) are not', async (t) => {
  const { server, hosts, store, events, add } = setup();
  add(bmh('h1', { credentialsName: 'bmc' }));
  await store.writeStatus('BareMetalHost', 'lab/h1', { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioning: { state: 'registering', ID: '' }, provisioningFailCount: 0 });
  hosts.observe('update', server.objects.get('lab/h1'));
  hosts.observe('update', server.touch('lab/h1', { spec: { online: false } }));
  t.deepEqual(events, ['upsert h1 101', 'upsert h1 103']);
  t.is((await store.get('BareMetalHost', 'lab/h1'))?.status?.provisioning.state, 'registering');
});

test('kube store - BareMetalHost: a Secret that appears or changes re-delivers the hosts naming it, unchanged', async (t) => {
  const { secrets, events, add } = setup();
  add(bmh('h1', { credentialsName: 'bmc-1' }));
  add(bmh('h2', { credentialsName: 'bmc-2' }));
  events.length = 0;
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc-1', namespace: 'lab', resourceVersion: '7' }, data: { username: 'YQ==', password: 'Yg==' } };
  secrets.observe('add', secret);
  // A new resourceVersion with the same data (a label added) wakes nobody.
  secrets.observe('update', { ...secret, metadata: { ...secret.metadata, resourceVersion: '8', labels: { a: 'b' } } });
  secrets.observe('update', { ...secret, metadata: { ...secret.metadata, resourceVersion: '9' }, data: { username: 'YQ==', password: 'Yw==' } });
  t.deepEqual(events, ['upsert h1 101', 'upsert h1 101']);
});

test('kube store - BareMetalHost: getSecret reads the Secret cache and decodes nothing until a value is used', async (t) => {
  const { secrets, store } = setup();
  secrets.observe('add', { metadata: { name: 'bmc', namespace: 'lab', resourceVersion: '3' }, data: { username: Buffer.from('admin').toString('base64') } });
  const secret = await store.getSecret('lab', 'bmc');
  t.is(secret?.data?.['username'], 'YWRtaW4=');
  t.is(await store.getSecret('lab', 'missing'), undefined);
});

test('kube store - BareMetalHost: a host that does not parse is logged by key and field and skipped', async (t) => {
  const lines: Array<{ obj: object; msg?: string }> = [];
  const { events, add, store } = setup(recordingLogger(lines));
  const bad = bmh('bad') as { spec: Record<string, unknown> };
  bad.spec['online'] = 'p4ssw0rd-like-value';
  add(bad);
  add(bmh('good'));
  t.deepEqual(events, ['upsert good 102']);
  t.deepEqual((await store.list('BareMetalHost')).map((h) => h.metadata.name), ['good']);
  t.like(lines[0]?.obj, { kind: 'BareMetalHost', key: 'lab/bad', problems: ['spec.online: Invalid input: expected boolean, received string'] });
  t.false(JSON.stringify(lines).includes('p4ssw0rd'));
});

test('kube store - an intent another writer already recorded, unseen by the cache, is told unchanged and writes nothing', async (t) => {
  const { server, store, add } = setup();
  add(bmh('h1', { online: true }));
  // Another node powered it off; this node's cache has not seen it yet.
  server.touch('lab/h1', { spec: { online: false }, metadata: { annotations: { 'reboot.metal3.io': '' } } });
  server.requests.length = 0;
  const intent = await store.applyIntent('BareMetalHost', 'lab/h1', { spec: { online: false }, annotations: { 'reboot.metal3.io': '' } });
  t.false(intent.changed);
  t.false(intent.object.spec.online);
  t.deepEqual(server.requests.filter((r) => r.verb === 'patch').length, 1, 'one conditional patch, refused, then nothing');
  const removed = await store.applyIntent('BareMetalHost', 'lab/h1', { annotations: { 'reboot.metal3.io': null } });
  t.true(removed.changed);
  t.is(server.objects.get('lab/h1')?.metadata.annotations?.['reboot.metal3.io'], undefined);
});

test('kube store - BareMetalHost: finalizers, annotations and intent are merge patches; the last finalizer of a deleted host deletes it', async (t) => {
  const { server, store, events, add, hosts } = setup();
  add({ ...(bmh('h1', { annotations: { 'inspect.metal3.io': 'disabled' } }) as object) });
  await store.addFinalizer('BareMetalHost', 'lab/h1', 'baremetalhost.metal3.io');
  await store.patchAnnotations('BareMetalHost', 'lab/h1', { 'inspect.metal3.io': null });
  const intent = await store.applyIntent('BareMetalHost', 'lab/h1', { spec: { online: false }, annotations: { 'reboot.metal3.io': '' } });
  t.true(intent.changed);
  t.false(intent.object.spec.online);
  t.deepEqual(server.requests.map((r) => [r.verb, JSON.stringify(r.body)]), [
    ['patch', '{"metadata":{"finalizers":["baremetalhost.metal3.io"],"resourceVersion":"101"}}'],
    ['patch', '{"metadata":{"annotations":{"inspect.metal3.io":null}}}'],
    // Sent with the version it was judged on, so "changed" is exact (a lagging cache conflicts).
    ['patch', '{"metadata":{"annotations":{"reboot.metal3.io":""},"resourceVersion":"103"},"spec":{"online":false}}'],
  ]);
  t.is(await store.requestDelete('BareMetalHost', 'lab/h1'), 'terminating');
  await t.throwsAsync(store.addFinalizer('BareMetalHost', 'lab/h1', 'other'), { message: /being deleted/ });
  await store.removeFinalizer('BareMetalHost', 'lab/h1', 'baremetalhost.metal3.io');
  t.false(server.objects.has('lab/h1'));
  t.is(hosts.get('lab/h1'), undefined);
  t.is(events.at(-1), 'deleted lab/h1');
});

test('kube store - BareMetalHost: events are recorded on the host, identical ones counted into one', async (t) => {
  const { server, store, add } = setup();
  const stored = add(bmh('h1'));
  await store.recordEvent('BareMetalHost', 'lab/h1', 'Warning', 'RegistrationError', 'BMC credentials Secret lab/bmc not found');
  await store.recordEvent('BareMetalHost', 'lab/h1', 'Warning', 'RegistrationError', 'BMC credentials Secret lab/bmc not found');
  t.is(server.events.size, 1);
  const [event] = [...server.events.values()];
  t.like(event, {
    type: 'Warning', reason: 'RegistrationError', count: 2,
    involvedObject: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: 'lab', name: 'h1', uid: stored.metadata.uid, resourceVersion: stored.metadata.resourceVersion },
    source: { component: 'metalfleet', host: 'node-a' },
  });
});

const mm = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm1', namespace: 'capi' }, spec: { image: 'ubuntu/jammy', minCPU: 1, minMemory: 1024 } };

test('kube store - Cluster API side: status writes come back as status changes, spec changes as spec', async (t) => {
  const { server, caches, store, objectEvents: events } = setup();
  caches.MaasMachine.observe('add', server.put(mm));
  await store.writeStatus('MaasMachine', 'capi/m1', { ready: false, machineState: 'Deploying' });
  await store.patchSpec('MaasMachine', 'capi/m1', { providerID: 'maas:///az1/abc', systemID: 'abc' });
  t.deepEqual(events.map((e) => (e.type === 'upsert' ? `${e.kind} ${e.change}` : 'deleted')), ['MaasMachine spec', 'MaasMachine status', 'MaasMachine spec']);
  t.deepEqual((await store.get('MaasMachine', 'capi/m1'))?.spec, { image: 'ubuntu/jammy', minCPU: 1, minMemory: 1024, providerID: 'maas:///az1/abc', systemID: 'abc' });
  const specPatch = server.requests.at(-1);
  t.deepEqual(specPatch?.body, { spec: { providerID: 'maas:///az1/abc', systemID: 'abc' }, metadata: { resourceVersion: '102' } });
});

test('kube store - Cluster API side: a replaced spec field drops what the new value no longer has', async (t) => {
  const { server, caches, store } = setup();
  caches.MaasCluster.observe('add', server.put({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'capi' }, spec: { controlPlaneEndpoint: { host: 'old', port: 6443, extra: 1 } } }));
  await store.patchSpec('MaasCluster', 'capi/c1', { controlPlaneEndpoint: { host: 'new', port: 6443 } });
  t.deepEqual((await store.get('MaasCluster', 'capi/c1'))?.spec, { controlPlaneEndpoint: { host: 'new', port: 6443 } });
});

test('kube store - Cluster API side: Secret events name the Secret and never carry its data', async (t) => {
  const { caches, store, objectEvents: events } = setup();
  caches.Secret.observe('add', { metadata: { name: 'boot', namespace: 'capi', resourceVersion: '4' }, data: { value: Buffer.from('#cloud-config').toString('base64') } });
  t.false(JSON.stringify(events).includes(Buffer.from('#cloud-config').toString('base64')));
  t.is(events[0]?.type === 'upsert' ? events[0].key : '', 'capi/boot');
  t.is((await store.getSecret('capi', 'boot'))?.data?.['value'], Buffer.from('#cloud-config').toString('base64'));
});

test('kube store - Cluster API side: kinds metalfleet only reads are refused for writes, without a request', async (t) => {
  const { server, caches, store } = setup();
  caches.Machine.observe('add', server.put({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm1', namespace: 'capi' }, spec: {} }));
  const error = await t.throwsAsync(store.writeStatus('Machine', 'capi/m1', { ready: true }), { instanceOf: StoreError });
  t.false(error.retryable);
  t.is(server.requests.length, 0);
});

test('kube store - Cluster API side: removing a finalizer of an object already gone is nothing to do', async (t) => {
  const { store } = setup();
  await t.notThrowsAsync(store.removeFinalizer('MaasCluster', 'capi/none', 'x'));
});
