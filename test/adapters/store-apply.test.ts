import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BareMetalHost } from '../../src/api/index.ts';
import { secretValue } from '../../src/api/secret.ts';
import { formatApplyIssue, openKvStoreOn, openLocalStore, type KvStore, type LocalStore } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { hostManifest } from '../support/host-manifest.ts';

// The embedded default's store applying manifests: hosts to its KV, Secrets beside it in memory.
// What every KV store does with manifests between stores and nodes is in nats-store.test.ts.

async function open(t: { teardown(fn: () => unknown): void }): Promise<LocalStore> {
  const transport = createMemoryBus().connect('test');
  const store = await openLocalStore(transport);
  t.teardown(async () => {
    await store.close();
    await transport.close();
  });
  return store;
}

// The MAAS kinds' store, as the embedded default opens it beside the hosts: the KV object store.
async function openObjects(t: { teardown(fn: () => unknown): void }, options: Parameters<typeof openKvStoreOn>[1] = {}): Promise<KvStore> {
  const transport = createMemoryBus().connect('objects');
  const objects = await openKvStoreOn(transport, options);
  t.teardown(async () => {
    await objects.close();
    await transport.close();
  });
  return objects;
}

const fixture = (name: string) => {
  const path = fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
  return { path, text: readFileSync(path, 'utf8') };
};

const host = hostManifest;

function status(state: 'registering' | 'available'): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state, ID: 'node-1' } };
}

test('local store - applyText stores hosts, and Secrets beside them, skips other kinds', async (t) => {
  const store = await open(t);
  const { path, text } = fixture('store-hosts.yaml');
  const result = await store.applyText(text, path);
  t.true(result.ok);
  t.deepEqual(result.created, ['metal3/worker-0', 'metal3/worker-1']);
  t.deepEqual(result.secrets, ['metal3/worker-0-bmc', 'metal3/worker-1-bmc']);
  t.deepEqual(result.skipped, [{ index: 0, kind: 'Namespace', key: 'default/metal3' }]);
  t.deepEqual(result.warnings, []);

  const w0 = await store.get('metal3/worker-0');
  t.truthy(w0);
  t.regex(w0!.metadata.uid!, /^[0-9a-f-]{36}$/);
  t.is(w0!.metadata.generation, 1);
  t.truthy(w0!.metadata.resourceVersion);
  t.truthy(w0!.metadata.creationTimestamp);
  t.is(w0!.spec.bootMode, 'UEFI');
  t.is(w0!.status, undefined);
  t.deepEqual(w0!.metadata.labels, { rack: 'r1' });
  t.is((await store.list()).length, 2);

  const s0 = await store.getSecret('metal3', 'worker-0-bmc');
  t.is(secretValue(s0!, 'password'), 's3cr3t-pw');
  const s1 = await store.getSecret('metal3', 'worker-1-bmc');
  t.is(secretValue(s1!, 'password'), 'calvin-string-data');
  t.is(await store.getSecret('metal3', 'nope'), undefined);
});

test('local store - re-apply bumps generation only on spec change and keeps status', async (t) => {
  const store = await open(t);
  await store.applyObjects([host('h1')]);
  const first = (await store.get('metal3/h1'))!;
  await store.writeStatus('metal3/h1', status('available'));
  await store.addFinalizer('metal3/h1', 'baremetalhost.metal3.io');

  const same = await store.applyObjects([host('h1')]);
  t.deepEqual(same.unchanged, ['metal3/h1']);
  const unchanged = (await store.get('metal3/h1'))!;
  t.is(unchanged.metadata.generation, 1);

  // Labels change metadata, not spec: new resourceVersion, same generation.
  const relabelled = await store.applyObjects([host('h1', {}, { labels: { a: 'b' } })]);
  t.deepEqual(relabelled.updated, ['metal3/h1']);
  const afterLabels = (await store.get('metal3/h1'))!;
  t.is(afterLabels.metadata.generation, 1);
  t.not(afterLabels.metadata.resourceVersion, unchanged.metadata.resourceVersion);

  // A status in the manifest is ignored; the stored one stays.
  const withStatus = { ...host('h1', { online: false }, { labels: { a: 'b' } }), status: status('registering') };
  t.deepEqual((await store.applyObjects([withStatus])).updated, ['metal3/h1']);
  const updated = (await store.get('metal3/h1'))!;
  t.is(updated.metadata.generation, 2);
  t.is(updated.metadata.uid, first.metadata.uid);
  t.is(updated.metadata.creationTimestamp, first.metadata.creationTimestamp);
  t.false(updated.spec.online);
  t.is(updated.status?.provisioning.state, 'available');
  // Finalizers a controller added survive a manifest without them.
  t.deepEqual(updated.metadata.finalizers, ['baremetalhost.metal3.io']);
  t.true(Number(updated.metadata.resourceVersion) > Number(afterLabels.metadata.resourceVersion));
});

test('local store - a new host ignores identity fields and status in its manifest', async (t) => {
  const store = await open(t);
  await store.applyObjects([{ ...host('h1', {}, { uid: 'mine', generation: 7, resourceVersion: '99', deletionTimestamp: '2020-01-01T00:00:00Z' }), status: status('available') }]);
  const h = (await store.get('metal3/h1'))!;
  t.not(h.metadata.uid, 'mine');
  t.is(h.metadata.generation, 1);
  t.is(h.metadata.deletionTimestamp, undefined);
  t.is(h.status, undefined);
});

test('local store - an invalid manifest is rejected with file, document and path, and nothing changes', async (t) => {
  const store = await open(t);
  await store.applyObjects([host('good-0', { online: false })]);
  const before = await store.get('metal3/good-0');
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));

  const { path, text } = fixture('store-invalid.yaml');
  const result = await store.applyText(text, path);
  t.false(result.ok);
  t.deepEqual(result.created, []);
  t.deepEqual(result.updated, []);
  const online = result.issues.find((i) => i.path === 'spec.online');
  t.like(online, { file: path, index: 1, kind: 'BareMetalHost', key: 'metal3/bad-1' });
  t.is(typeof online?.line, 'number');
  t.truthy(result.issues.find((i) => i.path === 'spec.bmc.credentialsName' && i.index === 1));
  const yaml = result.issues.find((i) => i.index === 2);
  t.regex(yaml?.message ?? '', /^YAML: /);
  t.regex(formatApplyIssue(online!), /store-invalid\.yaml document 2 \(line \d+\): BareMetalHost metal3\/bad-1 spec\.online: /);
  // The valid host in the same file was not applied, and the stored one is untouched.
  t.is(await store.get('metal3/bad-1'), undefined);
  t.deepEqual(await store.get('metal3/good-0'), before);
  t.deepEqual(events, []);
});

test('local store - an invalid object in a list names its index and applies nothing', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([host('a'), { kind: 'BareMetalHost', apiVersion: 'metal3.io/v1alpha1', metadata: { name: 'b' }, spec: { online: true, bootMode: 'BIOS' } }, 'nonsense'], 'hosts.json');
  t.false(result.ok);
  t.like(result.issues.find((i) => i.index === 1), { file: 'hosts.json', path: 'spec.bootMode', key: 'default/b' });
  t.like(result.issues.find((i) => i.index === 2), { path: '' });
  t.deepEqual(await store.list(), []);
});

test('local store - Secret values never appear in issues', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: 'not base64 !! very-secret' } }]);
  t.false(result.ok);
  t.is(result.issues[0]?.path, 'data.password');
  t.false(JSON.stringify(result).includes('very-secret'));
});

// Known gaps of the LocalStore that the memory store had (remove `.failing` when local-store.ts
// does it again): a host naming a Secret not in the store is not warned about, and a new or
// changed Secret does not re-deliver the hosts that name it (the wake a registration error waits
// for, src/machines/bmh/step.ts); a host waits out its retry instead.
test('local store - a new Secret wakes the hosts that name it; missing ones are warned about', async (t) => {
  const store = await open(t);
  const first = await store.applyObjects([host('h1'), host('h2', { bmc: { address: 'ipmi://192.0.2.2', credentialsName: 'shared' } })]);
  t.is(first.warnings.length, 2);
  t.regex(first.warnings[0] ?? '', /metal3\/h1-bmc \(spec\.bmc\.credentialsName\)/);
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'h1-bmc', namespace: 'metal3' }, stringData: { username: 'u', password: 'p' } };
  await store.applyObjects([secret]);
  t.deepEqual(events.map((e) => (e.type === 'upsert' ? e.host.metadata.name : e.key)), ['h1']);
  // The same Secret again changes nothing and wakes nobody.
  await store.applyObjects([secret]);
  t.is(events.length, 1);
});

test('local store - a key given twice in one apply: the later document wins, with a warning', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([host('h1', { online: true }), host('h1', { online: false })]);
  t.true(result.ok);
  t.regex(result.warnings.join('\n'), /BareMetalHost metal3\/h1 is given twice/);
  t.false((await store.get('metal3/h1'))!.spec.online);
});

const bmcSecret = (password: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'h1-bmc', namespace: 'metal3' }, stringData: { username: 'u', password } });

test('local store - a Secret given twice in one apply: the later document wins', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([bmcSecret('first'), host('h1'), bmcSecret('second')]);
  t.true(result.ok);
  t.is(secretValue((await store.getSecret('metal3', 'h1-bmc'))!, 'password'), 'second');
  t.false(JSON.stringify(result).includes('first') || JSON.stringify(result).includes('second'));
});

// A known gap (see above): the memory store warned about a Secret given twice as about a host.
test('local store - a Secret given twice in one apply is warned about', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([bmcSecret('first'), host('h1'), bmcSecret('second')]);
  t.regex(result.warnings.join('\n'), /Secret metal3\/h1-bmc is given twice/);
});

// metadata.generateName (issue 14.10): named on create, once, as the API server names it.
const GENERATED = /^metal3\/worker-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

test('generateName - a host named only by generateName is created under a generated name, anew by each apply', async (t) => {
  const store = await open(t);
  const manifest = host('', {}, { name: undefined, generateName: 'worker-' });
  const first = await store.applyObjects([manifest]);
  t.true(first.ok, JSON.stringify(first.issues));
  t.is(first.created.length, 1);
  t.regex(first.created[0] ?? '', GENERATED);
  const stored = await store.get(first.created[0]!);
  t.is(stored?.metadata.generateName, 'worker-', 'the API server keeps generateName');
  t.is(stored?.metadata.generation, 1);
  // Like kubectl create (kubectl apply refuses such an object): a second apply is a second host.
  const second = await store.applyObjects([manifest]);
  t.is(second.created.length, 1);
  t.not(second.created[0], first.created[0]);
  t.is((await store.list()).length, 2);
});

test('generateName - two generateName hosts in one apply get two names; a bad prefix is refused naming the field', async (t) => {
  const store = await open(t);
  const both = await store.applyObjects([host('', {}, { name: undefined, generateName: 'worker-' }), host('', {}, { name: undefined, generateName: 'worker-' })]);
  t.is(new Set(both.created).size, 2);
  const bad = await store.applyObjects([host('', {}, { name: undefined, generateName: 'Worker_' })], 'hosts.yaml');
  t.false(bad.ok);
  t.deepEqual(bad.issues.map((i) => i.path), ['metadata.generateName']);
  const none = await store.applyObjects([host('', {}, { name: undefined })], 'hosts.yaml');
  t.deepEqual(none.issues.map((i) => `${i.path}: ${i.message}`), ['metadata.name: name or generateName is required']);
  t.is((await store.list()).length, 2);
});

test('generateName - a Secret named only by generateName is stored under a generated name', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([{ apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'worker-', namespace: 'metal3' }, stringData: { username: 'u', password: 'p' } }]);
  t.true(result.ok, JSON.stringify(result.issues));
  t.regex(result.secrets[0] ?? '', GENERATED);
  const [ns, name] = (result.secrets[0] ?? '/').split('/');
  t.truthy(await store.getSecret(ns!, name!));
});

test('generateName - the MAAS object store names a generateName object and reports the name it got', async (t) => {
  const objects = await openObjects(t);
  const machine = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { generateName: 'worker-', namespace: 'metal3' }, spec: { minCPU: 1, minMemory: 1024, image: 'u' } };
  t.true((await objects.apply([machine, machine])).ok);
  const stored = await objects.list('MaasMachine');
  t.is(stored.length, 2);
  t.not(stored[0]?.metadata.name, stored[1]?.metadata.name, 'two names generated in one apply');
  for (const o of stored) t.regex(`${o.metadata.namespace}/${o.metadata.name}`, GENERATED);
  const unnamed = await objects.apply([{ ...machine, metadata: { namespace: 'metal3' } }]);
  t.deepEqual(unnamed.issues.map((i) => `${i.path}: ${i.message}`), ['metadata.name: Required value: name or generateName is required']);
});

test('generateName - the cluster\'s KV object store names a generateName object once and lists the name it got', async (t) => {
  const { openKvStoreOn } = await import('../../src/adapters/store/kv-store.ts');
  const transport = createMemoryBus().connect('test');
  const objects = await openKvStoreOn(transport, { hosts: false });
  t.teardown(async () => {
    await objects.close();
    await transport.close();
  });
  const machine = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { generateName: 'worker-', namespace: 'metal3' }, spec: { minCPU: 1, minMemory: 1024, image: 'u' } };
  t.deepEqual(objects.check([machine]), []);
  const result = await objects.apply([machine]);
  t.true(result.ok);
  t.is(result.objects?.length, 1);
  t.regex(`${result.objects?.[0]?.key}`, GENERATED);
  const stored = await objects.get('MaasMachine', result.objects![0]!.key);
  t.is((stored?.metadata as { generateName?: string } | undefined)?.generateName, 'worker-', 'the API server keeps generateName');
  t.is((await objects.list('MaasMachine')).length, 1, 'check named nothing');
});

test('generateName - when another document is refused, a generateName host is not reported as unnamed', async (t) => {
  const store = await open(t);
  const result = await store.applyObjects([
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'metal3' }, data: { password: 'not base64 !!' } },
    host('', {}, { name: undefined, generateName: 'worker-' }),
  ]);
  t.false(result.ok);
  t.deepEqual(result.issues.map((i) => i.index), [0]);
  t.is((await store.list()).length, 0);
});

test('generateName - the MAAS object store refuses a bad generateName once, at metadata.generateName', async (t) => {
  const { validateMaasMachine } = await import('../../src/api/index.ts');
  const objects = await openObjects(t, { validators: { MaasMachine: validateMaasMachine } });
  const machine = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { generateName: 'Worker_', namespace: 'metal3' }, spec: { minCPU: 1, minMemory: 1024, image: 'u' } };
  t.deepEqual((await objects.apply([machine])).issues.map((i) => i.path), ['metadata.generateName']);
});

// `kubectl get bmh -o yaml` prints a List: the store applies its items one by one, and names an
// item by its document and its place in the List (and the item's own line), not the List's.
test('local store - a List\'s items are applied one by one, and its issues and warnings name the item', async (t) => {
  const store = await open(t);
  const item = (name: string, online: string) => `- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: ${name}, namespace: metal3}\n  spec: {online: ${online}}\n`;
  const list = (items: string) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: metal3}\n---\napiVersion: metal3.io/v1alpha1\nkind: BareMetalHostList\nitems:\n${items}`;
  const bad = await store.applyText(list(item('a', 'true') + item('b', '"yes"')), 'l.yaml');
  t.false(bad.ok);
  const online = bad.issues.find((i) => i.path === 'spec.online');
  t.like(online, { file: 'l.yaml', index: 1, item: 1, line: 12, kind: 'BareMetalHost', key: 'metal3/b' });
  t.regex(formatApplyIssue(online!), /^l\.yaml document 2 item 2 \(line 12\): BareMetalHost metal3\/b spec\.online: /);
  t.deepEqual(await store.list(), []);

  const good = await store.applyText(list(item('a', 'true') + item('b', 'true') + item('a', 'false')), 'l.yaml');
  t.true(good.ok, JSON.stringify(good.issues));
  t.deepEqual([...good.created].sort(), ['metal3/a', 'metal3/b']);
  t.deepEqual(good.warnings, ['BareMetalHost metal3/a is given twice (l.yaml document 2 item 1 and l.yaml document 2 item 3); the later one wins']);
  t.false((await store.get('metal3/a'))!.spec.online);
});
