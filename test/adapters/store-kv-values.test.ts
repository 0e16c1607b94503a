// The host buckets and the object bucket hold msgpackr records (issue 29.5); values an older node wrote as JSON stay
// readable through a rolling upgrade, and a value of neither form is named for what it is.
import test from 'ava';
import { OBJECT_LAYOUTS } from '../../src/adapters/store/kv-layouts.ts';
import { besideObjects } from '../support/object-buckets.ts';
import { initialStatus, type BareMetalHostStatus } from '../../src/api/index.ts';
import { decodeKvRecord, encodeKvRecord, isJsonKvValue } from '../../src/adapters/store/kv-value.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore } from '../../src/adapters/store/nats-store.ts';
import { PermanentWriteError } from '../../src/adapters/store/write-limits.ts';
import { openKvStore } from '../../src/adapters/store/kv-store.ts';
import { OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import type { Logger } from '../../src/ports/index.ts';
import { hostManifest } from '../support/host-manifest.ts';
import { waitUntil } from '../support/wait.ts';

const KEY = 'metal3/h1';

function status(state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus {
  const s = initialStatus();
  return { ...s, provisioning: { ...s.provisioning, state } };
}

function buckets(): { specs: ReturnType<MemoryKvStore['bucket']>; status: ReturnType<MemoryKvStore['bucket']> } {
  const kv = new MemoryKvStore();
  return { specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) };
}

test('store kv values - hosts and statuses are written as msgpackr records, smaller than JSON, and read back by another store', async (t) => {
  const b = buckets();
  const a = await openNatsStore(b);
  t.teardown(() => a.close());
  await a.apply([hostManifest('h1')]);
  await a.writeStatus(KEY, status('provisioned'));
  for (const bucket of [b.specs, b.status]) {
    const value = (await bucket.get(hostKvKey(KEY)))!.value;
    t.false(isJsonKvValue(value), `${bucket.name} holds JSON`);
    const decoded = decodeKvRecord(value);
    if (!decoded.ok) return t.fail(decoded.reason);
    t.true(value.length < JSON.stringify(decoded.value).length, `${bucket.name}: ${value.length} bytes is not smaller than its JSON`);
  }
  const other = await openNatsStore(b);
  t.teardown(() => other.close());
  const host = await other.get(KEY);
  t.is(host?.spec.bmc?.address, 'redfish://192.0.2.1/redfish/v1/Systems/1');
  t.is(host?.status?.provisioning.state, 'provisioned');
  t.deepEqual(host?.status, (await a.get(KEY))?.status);
});

test('store kv values - JSON records an older node wrote are read, and the next write replaces them with a record', async (t) => {
  const b = buckets();
  const uid = 'c0ffee00-0000-4000-8000-000000000001';
  const spec = { ...hostManifest('h1'), metadata: { name: 'h1', namespace: 'metal3', uid, generation: 1, finalizers: ['baremetalhost.metal3.io'] } };
  const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
  await b.specs.put(hostKvKey(KEY), json(spec));
  await b.status.put(hostKvKey(KEY), json({ uid, status: status('available'), fence: { epoch: 4, shard: 9, holder: 'old-node' } }));
  const store = await openNatsStore(b);
  t.teardown(() => store.close());
  t.is((await store.get(KEY))?.status?.provisioning.state, 'available');
  t.deepEqual((await store.getFresh(KEY))?.metadata.finalizers, ['baremetalhost.metal3.io']);
  // The JSON record's fence still counts: an older epoch is refused, a newer one writes.
  await t.throwsAsync(store.writeStatus(KEY, status('provisioning'), { epoch: 3, shard: 9, holder: 'new-node' }), { message: /epoch 3 of new-node is older than epoch 4/ });
  await store.writeStatus(KEY, status('provisioning'), { epoch: 5, shard: 9, holder: 'new-node' });
  await store.removeFinalizer(KEY, 'baremetalhost.metal3.io', { epoch: 5, shard: 9, holder: 'new-node' });
  for (const bucket of [b.status, b.specs]) t.false(isJsonKvValue((await bucket.get(hostKvKey(KEY)))!.value), `${bucket.name} still holds JSON`);
  const fresh = await store.getFresh(KEY);
  t.is(fresh?.status?.provisioning.state, 'provisioning');
  t.is(fresh?.metadata.finalizers, undefined);
});

test('store kv values - a value of neither form, or broken JSON, is named with its bucket and size, never its bytes', async (t) => {
  const b = buckets();
  const a = await openNatsStore(b);
  t.teardown(() => a.close());
  await a.apply([hostManifest('h1'), hostManifest('h2')]);
  // 0xc1 is the one byte MessagePack never uses.
  await b.specs.put(hostKvKey(KEY), Uint8Array.from([0xc1, 0x73, 0x65, 0x63]));
  await b.specs.put(hostKvKey('metal3/h2'), new TextEncoder().encode('{"apiVersion": "metal3.io/v1alpha1", "spec": '));
  await t.throwsAsync(a.getFresh(KEY), { message: /^BareMetalHost metal3\/h1 in bucket mf-hosts \(revision \d+\) does not parse: 4 bytes that are neither MessagePack nor JSON; apply the BareMetalHost again or delete its key$/ });
  await t.throwsAsync(a.getFresh('metal3/h2'), { message: /does not parse: 45 bytes that start as JSON but do not parse as JSON/ });
});

test('store kv values - the record size limit still holds for binary records', async (t) => {
  const b = buckets();
  const store = await openNatsStore({ ...b, maxValueBytes: 2_048 });
  t.teardown(() => store.close());
  await store.apply([hostManifest('h1')]);
  const big = { ...status('provisioned'), errorMessage: 'x'.repeat(4_000) };
  const error = await t.throwsAsync(store.writeStatus(KEY, big), { instanceOf: PermanentWriteError });
  t.regex(error?.message ?? '', /^the status of BareMetalHost metal3\/h1: the record is .* one NATS message holds at most .* \(2048 bytes/);
  t.is((await b.status.get(hostKvKey(KEY))), null);
});

// The object records (MAAS and Cluster API kinds, mf-objects) are values of the same form.
const machine = (image: string) => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm-0', namespace: 'default' }, spec: { minCPU: 1, minMemory: 1024, image } });
const MACHINE_KV_KEY = `MaasMachine.${hostKvKey('default/m-0')}`;

test('store kv values - MAAS objects are written as msgpackr records, smaller than JSON, and read back by another store', async (t) => {
  const bucket = new MemoryKvStore().bucket(OBJECTS_BUCKET);
  const a = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(bucket) });
  t.teardown(() => a.close());
  t.true((await a.apply([machine('ubuntu')])).ok);
  await a.writeStatus('MaasMachine', 'default/m-0', { ready: true, machineSystemID: 'abc123' });
  const value = (await bucket.get(MACHINE_KV_KEY))!.value;
  t.false(isJsonKvValue(value), 'mf-objects holds JSON');
  const decoded = decodeKvRecord(value);
  if (!decoded.ok) return t.fail(decoded.reason);
  t.true(value.length < JSON.stringify(decoded.value).length, `${value.length} bytes is not smaller than its JSON`);
  const other = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(bucket) });
  t.teardown(() => other.close());
  const read = await other.get('MaasMachine', 'default/m-0');
  t.is(read?.spec?.image, 'ubuntu');
  t.deepEqual(read?.status, { ready: true, machineSystemID: 'abc123' });
});

test('store kv values - a MAAS object an older node wrote as JSON is read, its fence counts, and the next write replaces it with a record', async (t) => {
  const bucket = new MemoryKvStore().bucket(OBJECTS_BUCKET);
  const object = { ...machine('jammy'), metadata: { name: 'm-0', namespace: 'default', uid: 'c0ffee00-0000-4000-8000-000000000002', generation: 1 } };
  await bucket.put(MACHINE_KV_KEY, new TextEncoder().encode(JSON.stringify({ object, fence: { epoch: 4, shard: 9, holder: 'old-node' } })));
  const store = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(bucket) });
  t.teardown(() => store.close());
  t.is((await store.get('MaasMachine', 'default/m-0'))?.spec?.image, 'jammy');
  await t.throwsAsync(store.writeStatus('MaasMachine', 'default/m-0', { ready: true }, { epoch: 3, shard: 9, holder: 'new-node' }), { message: /epoch 3 of new-node is older than epoch 4/ });
  await store.writeStatus('MaasMachine', 'default/m-0', { ready: true }, { epoch: 5, shard: 9, holder: 'new-node' });
  // The status goes to its own record now; the object's next write makes its record one too.
  t.true(isJsonKvValue((await bucket.get(MACHINE_KV_KEY))!.value), 'a status write left the object record alone');
  await store.addFinalizer('MaasMachine', 'default/m-0', 'test/f', { epoch: 5, shard: 9, holder: 'new-node' });
  t.false(isJsonKvValue((await bucket.get(MACHINE_KV_KEY))!.value), 'mf-objects still holds JSON');
  t.deepEqual((await store.get('MaasMachine', 'default/m-0'))?.metadata.finalizers, ['test/f']);
  t.deepEqual((await store.get('MaasMachine', 'default/m-0'))?.status, { ready: true });
});

// A logger that keeps the keys of its warnings: a record is parsed when its problem is logged.
function warnedKeys(keys: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields: object) => void keys.push(`${String((fields as { kind?: unknown }).kind)} ${String((fields as { key?: unknown }).key)}`),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

test('store kv values - an object record nobody here watches waits unparsed until it is read; a watched one is parsed as it comes', async (t) => {
  const bucket = new MemoryKvStore().bucket(OBJECTS_BUCKET);
  const warned: string[] = [];
  const store = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(bucket), log: warnedKeys(warned) });
  t.teardown(() => store.close());
  const cluster = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c-0', namespace: 'default' }, spec: { dnsDomain: 'maas' } };
  const clusterKvKey = `MaasCluster.${hostKvKey('default/c-0')}`;
  t.true((await store.apply([machine('ubuntu'), cluster])).ok);
  store.watch(() => undefined, { kinds: ['MaasCluster'] });
  // Unreadable values for both: the watch delivers them in order, so once the watched
  // MaasCluster's is logged the MaasMachine's has been seen too, and nobody has read it.
  await bucket.put(MACHINE_KV_KEY, Uint8Array.from([0xc1, 0x01]));
  await bucket.put(clusterKvKey, Uint8Array.from([0xc1, 0x02]));
  await waitUntil(() => warned.length > 0, 2_000, 'the watched record is parsed');
  t.deepEqual(warned, ['MaasCluster default/c-0'], 'the unwatched record was parsed before anyone read it');
  // Read, it is parsed: its problem is told and logged once, and the last good version stands.
  t.regex(store.recordProblem('MaasMachine', 'default/m-0') ?? '', /does not parse: 2 bytes that are neither MessagePack nor JSON/);
  t.is((await store.get('MaasMachine', 'default/m-0'))?.spec?.image, 'ubuntu');
  t.deepEqual(warned, ['MaasCluster default/c-0', 'MaasMachine default/m-0']);
  // A good version that waited is the one read, and it ends the problem.
  await bucket.put(MACHINE_KV_KEY, encodeKvRecord({ object: { ...machine('noble'), metadata: { name: 'm-0', namespace: 'default', uid: 'u-1' } } }));
  await waitUntil(async () => (await store.get('MaasMachine', 'default/m-0'))?.spec?.image === 'noble', 2_000, 'the waiting version is read');
  t.is(store.recordProblem('MaasMachine', 'default/m-0'), undefined);
  t.deepEqual((await store.list('MaasMachine')).map((m) => m.spec?.image), ['noble']);
});

test('store kv values - a host whose newest record waited unread and does not parse keeps its last good version when read, as an object does', async (t) => {
  const b = buckets();
  const store = await openNatsStore(b);
  t.teardown(() => store.close());
  await store.apply([hostManifest('h1'), hostManifest('h2')]);
  // Nobody here watches h1: its next value waits as bytes. h2 is written after it, so once h2's
  // good record is in, h1's bad one has been seen (the watch delivers in order).
  await b.specs.put(hostKvKey(KEY), Uint8Array.from([0xc1, 0x01]));
  await store.patchAnnotations('metal3/h2', { seen: 'yes' });
  await waitUntil(async () => (await store.get('metal3/h2'))?.metadata.annotations?.seen === 'yes', 2_000, 'h2 is written');
  const host = await store.get(KEY);
  t.is(host?.spec.bmc?.address, 'redfish://192.0.2.1/redfish/v1/Systems/1', 'the host vanished instead of keeping its last good version');
  t.deepEqual((await store.list()).map((h) => h.metadata.name).sort(), ['h1', 'h2']);
  t.regex(store.recordProblem(KEY) ?? '', /does not parse: 2 bytes that are neither MessagePack nor JSON/);
});

test('store kv values - each map carries the smallest MessagePack size header, and a map16 an older node wrote still reads', (t) => {
  // A status record of two keys: fixmap 0x82, one byte, not the fixed three of map16 (0xde 00 02).
  const record = { uid: 'c0ffee00-0000-4000-8000-000000000001', status: { operationalStatus: 'OK', errorCount: 0 } };
  const bytes = encodeKvRecord(record);
  t.is(bytes[0], 0x82);
  t.false(isJsonKvValue(bytes));
  t.deepEqual(decodeKvRecord(bytes), { ok: true, value: record });
  // What a node before this change wrote: every map as map16.
  const older = Uint8Array.from([0xde, 0x00, 0x01, 0xa3, 0x75, 0x69, 0x64, 0xde, 0x00, 0x01, 0xa1, 0x61, 0x01]);
  t.deepEqual(decodeKvRecord(older), { ok: true, value: { uid: { a: 1 } } });
});

// The bytes the encoder wrote before its arena was reused between records (issue 30): a rolling
// upgrade mixes nodes of both builds on one bucket, so the bytes must be the same, not merely
// decode the same. Records encoded one after another each keep their own bytes.
const RECORD = { uid: 'u-1', status: { operationalStatus: 'OK', errorCount: 0, poweredOn: false, provisioning: { state: 'inspecting', ID: 'fixture-u-1' }, lastUpdated: '2026-12-05T15:02:23.015Z', hardware: { ramMebibytes: 131072, nics: [{ name: 'eth0', speedGbps: 25 }], storage: [{ name: '/dev/sda', sizeBytes: 480000000000 }] }, note: 'é ✓ 🙂' }, fence: { epoch: 3, shard: 1, holder: 'node-a' } };
const RECORD_BYTES = '83a3756964a3752d31a673746174757387b16f7065726174696f6e616c537461747573a24f4baa6572726f72436f756e7400a9706f77657265644f6ec2ac70726f766973696f6e696e6782a57374617465aa696e7370656374696e67a24944ab666978747572652d752d31ab6c61737455706461746564b8323032362d31322d30355431353a30323a32332e3031355aa8686172647761726583ac72616d4d6562696279746573ce00020000a46e6963739182a46e616d65a465746830a973706565644762707319a773746f726167659182a46e616d65a82f6465762f736461a973697a654279746573cb425bf08eb0000000a46e6f7465abc3a920e29c9320f09f9982a566656e636583a565706f636803a5736861726401a6686f6c646572a66e6f64652d61';

test('store kv values - a record is written byte for byte as the previous build wrote it, and each of a run of records keeps its own bytes', (t) => {
  const bytes = encodeKvRecord(RECORD);
  t.is(Buffer.from(bytes).toString('hex'), RECORD_BYTES);
  const decoded = decodeKvRecord(Buffer.from(RECORD_BYTES, 'hex'));
  t.deepEqual(decoded, { ok: true, value: RECORD });
  const run = Array.from({ length: 20 }, (_, i) => ({ ...RECORD, status: { ...RECORD.status, errorCount: i, note: 'x'.repeat(i * 400) } }));
  const written = run.map((r) => encodeKvRecord(r));
  run.forEach((r, i) => t.deepEqual(decodeKvRecord(written[i]!), { ok: true, value: r }));
  t.is(Buffer.from(bytes).toString('hex'), RECORD_BYTES, 'later records did not write over an earlier one');
});
