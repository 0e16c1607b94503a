import test from 'ava';
import { EventRecorder } from '../../src/adapters/kube/event-recorder.ts';
import { KubeHostStore } from '../../src/adapters/kube/host-store.ts';
import { ObjectWriter } from '../../src/adapters/kube/object-writer.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { WriteLanes } from '../../src/adapters/kube/write-lanes.ts';
import type { HostEvent, Logger } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
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

function setup(log: Logger = silentLogger) {
  const server = new FakeServer();
  const hosts = new ResourceCache(RESOURCES.BareMetalHost, log);
  const secrets = new ResourceCache(RESOURCES.Secret, log);
  const client = server.client();
  const writer = new ObjectWriter(RESOURCES.BareMetalHost, { client, cache: hosts, lanes: new WriteLanes(), log, sleep: async () => undefined });
  const store = new KubeHostStore({ hosts, secrets, writer, events: new EventRecorder({ client, log, component: 'metalfleet', instance: 'node-a', now: () => 1_700_000_000_000 }), log });
  const events: string[] = [];
  store.watch((e: HostEvent) => events.push(e.type === 'deleted' ? `deleted ${e.key}` : `upsert ${e.host.metadata.name} ${e.host.metadata.resourceVersion}`));
  const add = (o: unknown) => {
    const stored = server.put(o as Record<string, unknown>);
    hosts.observe('add', stored);
    return stored;
  };
  return { server, hosts, secrets, store, events, add };
}

test('kube host store - new hosts and spec changes are delivered; status-only updates (our writes) are not', async (t) => {
  const { server, hosts, store, events, add } = setup();
  add(bmh('h1', { credentialsName: 'bmc' }));
  await store.writeStatus('lab/h1', { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioning: { state: 'registering', ID: '' }, provisioningFailCount: 0 });
  hosts.observe('update', server.objects.get('lab/h1'));
  hosts.observe('update', server.touch('lab/h1', { spec: { online: false } }));
  t.deepEqual(events, ['upsert h1 101', 'upsert h1 103']);
  t.is((await store.get('lab/h1'))?.status?.provisioning.state, 'registering');
});

test('kube host store - a Secret that appears or changes re-delivers the hosts naming it, unchanged', async (t) => {
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

test('kube host store - getSecret reads the Secret cache and decodes nothing until a value is used', async (t) => {
  const { secrets, store } = setup();
  secrets.observe('add', { metadata: { name: 'bmc', namespace: 'lab', resourceVersion: '3' }, data: { username: Buffer.from('admin').toString('base64') } });
  const secret = await store.getSecret('lab', 'bmc');
  t.is(secret?.data?.['username'], 'YWRtaW4=');
  t.is(await store.getSecret('lab', 'missing'), undefined);
});

test('kube host store - a host that does not parse is logged by key and field and skipped', async (t) => {
  const lines: Array<{ obj: object; msg?: string }> = [];
  const { events, add, store } = setup(recordingLogger(lines));
  const bad = bmh('bad') as { spec: Record<string, unknown> };
  bad.spec['online'] = 'p4ssw0rd-like-value';
  add(bad);
  add(bmh('good'));
  t.deepEqual(events, ['upsert good 102']);
  t.deepEqual((await store.list()).map((h) => h.metadata.name), ['good']);
  t.like(lines[0]?.obj, { host: 'lab/bad', problems: ['spec.online: Invalid input: expected boolean, received string'] });
  t.false(JSON.stringify(lines).includes('p4ssw0rd'));
});

test('kube host store - finalizers, annotations and intent are merge patches; the last finalizer of a deleted host deletes it', async (t) => {
  const { server, store, events, add, hosts } = setup();
  add({ ...(bmh('h1', { annotations: { 'inspect.metal3.io': 'disabled' } }) as object) });
  await store.addFinalizer('lab/h1', 'baremetalhost.metal3.io');
  await store.removeAnnotation('lab/h1', 'inspect.metal3.io');
  const host = await store.applyIntent('lab/h1', { online: false, annotations: { 'reboot.metal3.io': '' } });
  t.false(host.spec.online);
  t.deepEqual(server.requests.map((r) => [r.verb, JSON.stringify(r.body)]), [
    ['patch', '{"metadata":{"finalizers":["baremetalhost.metal3.io"],"resourceVersion":"101"}}'],
    ['patch', '{"metadata":{"annotations":{"inspect.metal3.io":null}}}'],
    ['patch', '{"metadata":{"annotations":{"reboot.metal3.io":""}},"spec":{"online":false}}'],
  ]);
  t.is(await store.requestDelete('lab/h1'), 'terminating');
  await t.throwsAsync(store.addFinalizer('lab/h1', 'other'), { message: /being deleted/ });
  await store.removeFinalizer('lab/h1', 'baremetalhost.metal3.io');
  t.false(server.objects.has('lab/h1'));
  t.is(hosts.get('lab/h1'), undefined);
  t.is(events.at(-1), 'deleted lab/h1');
});

test('kube host store - events are recorded on the host, identical ones counted into one', async (t) => {
  const { server, store, add } = setup();
  const stored = add(bmh('h1'));
  await store.recordEvent('lab/h1', 'Warning', 'RegistrationError', 'BMC credentials Secret lab/bmc not found');
  await store.recordEvent('lab/h1', 'Warning', 'RegistrationError', 'BMC credentials Secret lab/bmc not found');
  t.is(server.events.size, 1);
  const [event] = [...server.events.values()];
  t.like(event, {
    type: 'Warning', reason: 'RegistrationError', count: 2,
    involvedObject: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: 'lab', name: 'h1', uid: stored.metadata.uid, resourceVersion: stored.metadata.resourceVersion },
    source: { component: 'metalfleet', host: 'node-a' },
  });
});
