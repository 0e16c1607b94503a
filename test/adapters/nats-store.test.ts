import test, { type ExecutionContext } from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import type { BareMetalHost } from '../../src/api/index.ts';
import { secretValue } from '../../src/api/secret.ts';
import { formatApplyIssue } from '../../src/adapters/store/index.ts';
import { hostKeyFromKv, hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { loadSecretFiles, type SecretSource } from '../../src/adapters/store/nats-secrets.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { KvConflict, StaleFence, StoreError, type KvBucket } from '../../src/ports/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { hostManifest } from '../support/host-manifest.ts';
import { kvRecord } from '../support/local-store.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';

type StatusRecordView = { status: { provisioning: { state: string } }; fence: { shard: number; epoch: number; holder: string } };

const PASSWORD = 'n4ts-must-never-see-this';
const USERNAME = 'bmc-admin-user-xyz';

const fixture = (name: string) => {
  const path = fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
  return { path, text: readFileSync(path, 'utf8') };
};

const host = hostManifest;

function status(state: 'registering' | 'available' | 'provisioned'): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state, ID: 'node-1' } };
}

/** Two or more stores over the same buckets, as nodes of a cluster would have them. */
interface Cluster {
  /** A new store on its own connection (NATS) or the shared buckets (memory). */
  open(secrets?: SecretSource): Promise<NatsStore>;
  /** The buckets as a third party sees them, for scans. */
  readonly specs: KvBucket;
  readonly status: KvBucket;
}

interface Backend {
  readonly name: string;
  readonly skip?: boolean;
  cluster(t: ExecutionContext): Promise<Cluster>;
}

const memory: Backend = {
  name: 'memory kv',
  async cluster(t) {
    const kv = new MemoryKvStore();
    const specs = kv.bucket(NATS_HOSTS_BUCKET);
    const statusBucket = kv.bucket(NATS_STATUS_BUCKET);
    return {
      specs,
      status: statusBucket,
      async open(secrets) {
        const store = await openNatsStore({ specs, status: statusBucket, ...(secrets ? { secrets } : {}) });
        t.teardown(() => store.close());
        return store;
      },
    };
  },
};

const nats: Backend = {
  name: 'nats-server',
  skip: !natsServerInstalled(),
  async cluster(t) {
    const server = await startNatsServer();
    t.teardown(() => server.dispose());
    const connection = async () => {
      const nc = await connect({ servers: server.url });
      t.teardown(() => nc.close());
      return { specs: await openNatsKv(nc, NATS_HOSTS_BUCKET), status: await openNatsKv(nc, NATS_STATUS_BUCKET) };
    };
    const observer = await connection();
    return {
      ...observer,
      async open(secrets) {
        const buckets = await connection();
        const store = await openNatsStore({ ...buckets, ...(secrets ? { secrets } : {}) });
        t.teardown(() => store.close());
        return store;
      },
    };
  },
};

function contract(title: string, body: (t: ExecutionContext, cluster: Cluster) => Promise<void>, backends: readonly Backend[] = [memory, nats]): void {
  for (const backend of backends) {
    const name = `nats store (${backend.name}) - ${title}`;
    if (backend.skip) test.skip(name, () => undefined);
    else test(name, async (t) => body(t, await backend.cluster(t)));
  }
}

async function allValues(bucket: KvBucket): Promise<string[]> {
  const out: string[] = [];
  for (const key of await bucket.keys()) {
    const entry = await bucket.get(key);
    if (entry) out.push(`${key} ${Buffer.from(entry.value).toString('utf8')}`);
  }
  return out;
}

function recorder(store: NatsStore): HostEvent[] {
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  return events;
}

const describe = (e: HostEvent) => (e.type === 'upsert' ? `upsert ${e.host.metadata.name}` : `deleted ${e.key}`);

// ---- keys ----

test('nats store - host keys are readable KV keys and decode back', (t) => {
  t.is(hostKvKey('metal3/worker-0'), 'metal3.worker-0');
  t.is(hostKvKey('metal3/rack1.node_2'), 'metal3.rack1_2Enode_5F2');
  for (const key of ['metal3/worker-0', 'a/b.c.d', 'ns/naïve name', 'x/_2E', 'ns/with/slash']) {
    const kv = hostKvKey(key);
    t.regex(kv, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    t.is(hostKeyFromKv(kv), key);
  }
  t.is(hostKeyFromKv('not-a-host'), undefined);
  t.is(hostKeyFromKv('a.b.c'), undefined);
  t.is(hostKeyFromKv('ns._zz'), undefined);
  t.throws(() => hostKvKey('no-namespace'), { instanceOf: StoreError });
});

// ---- the contract, on both backends ----

contract('a watcher of some keys gets only those; the others are still read right, from bytes kept unparsed', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  const mine: HostEvent[] = [];
  b.watch((e) => mine.push(e), { keys: (key) => key === 'metal3/mine' });
  t.true((await a.apply([host('mine'), host('other')])).ok);
  await waitUntil(() => mine.length === 1, 5_000, 'b hears of its host');
  t.true((await a.apply([host('other', { online: false }), host('mine', { online: false })])).ok);
  await waitUntil(() => mine.length === 2, 5_000, 'b hears of the change to its host');
  t.deepEqual(mine.map(describe), ['upsert mine', 'upsert mine'], 'nothing about the host b does not watch');
  // The unwatched host's newest version is there for whoever reads it (a shard gained later).
  await waitUntil(async () => (await b.get('metal3/other'))?.spec.online === false, 5_000, 'b reads the newest version of the other host');
  t.deepEqual((await b.list()).map((h) => h.metadata.name).sort(), ['mine', 'other']);
  // A watcher of everything beside it gets both.
  const all = recorder(b);
  t.true((await a.apply([host('other', { online: true })])).ok);
  await waitUntil(() => all.length === 1, 5_000, 'the watcher of all keys hears of the other host');
  t.is(mine.length, 2);
});


contract('each of a store\'s own writes is one event at the revision it got, whichever of watch and ack came first', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  t.true((await a.apply([host('h1')])).ok);
  const events = recorder(a);
  const written: string[] = [];
  let online = true;
  for (let i = 0; i < 12; i++) {
    online = !online;
    const updated = await a.applyIntent('metal3/h1', { online });
    written.push(`${updated.metadata.resourceVersion} ${updated.spec.online}`);
  }
  await waitUntil(() => events.length >= 12, 5_000, 'a hears of its own twelve writes');
  const seen = events.map((e) => (e.type === 'upsert' ? `${e.host.metadata.resourceVersion} ${e.host.spec.online}` : e.key));
  t.deepEqual(seen, written, 'one upsert per write, in order, with the revision and content written');
  // The other store parsed the same bytes: the same host.
  await waitUntil(async () => (await b.get('metal3/h1'))?.metadata.resourceVersion === written.at(-1)!.split(' ')[0], 5_000, 'b reads the last write');
  t.deepEqual(await b.get('metal3/h1'), await a.get('metal3/h1'));
});

contract('a power intent that is not a boolean is refused, naming spec.online, and nothing is written', async (t, cluster) => {
  const a = await cluster.open();
  t.true((await a.apply([host('h1')])).ok);
  const before = await a.get('metal3/h1');
  const error = await t.throwsAsync(a.applyIntent('metal3/h1', { online: 'yes' as unknown as boolean }), { instanceOf: StoreError });
  t.regex(error!.message, /metal3\/h1: invalid spec change: spec\.online: /);
  t.false((error as StoreError).retryable);
  t.deepEqual(await a.get('metal3/h1'), before);
});

contract('a host applied through one store is seen by a watcher and get/list on another', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  const seen = recorder(b);

  const created = await a.apply([host('h1', {}, { labels: { rack: 'r1' } })]);
  t.true(created.ok);
  t.deepEqual(created.hosts, [{ key: 'metal3/h1', outcome: 'created' }]);
  // The writer sees its own write at once.
  const own = (await a.get('metal3/h1'))!;
  t.is(own.metadata.generation, 1);
  t.regex(own.metadata.uid!, /^[0-9a-f-]{36}$/);
  t.truthy(own.metadata.creationTimestamp);
  t.is(own.spec.bootMode, 'UEFI');

  await waitUntil(() => seen.length === 1, 5_000, 'b sees the new host');
  t.deepEqual(seen.map(describe), ['upsert h1']);
  const there = (await b.get('metal3/h1'))!;
  t.is(there.metadata.uid, own.metadata.uid);
  t.is(there.metadata.resourceVersion, own.metadata.resourceVersion);
  t.deepEqual(there.metadata.labels, { rack: 'r1' });
  t.deepEqual((await b.list()).map((h) => h.metadata.name), ['h1']);

  // A spec change bumps generation; b hears of it.
  const changed = await a.apply([host('h1', { online: false }, { labels: { rack: 'r1' } })]);
  t.deepEqual(changed.updated, ['metal3/h1']);
  await waitUntil(async () => (await b.get('metal3/h1'))?.metadata.generation === 2, 5_000, 'b sees generation 2');
  t.false((await b.get('metal3/h1'))!.spec.online);

  // The same manifest again writes nothing at all.
  const before = await cluster.specs.get(hostKvKey('metal3/h1'));
  const same = await b.apply([host('h1', { online: false }, { labels: { rack: 'r1' } })]);
  t.deepEqual(same.hosts, [{ key: 'metal3/h1', outcome: 'unchanged' }]);
  t.is((await cluster.specs.get(hostKvKey('metal3/h1')))!.revision, before!.revision);

  // A store opened later replays what is there.
  const c = await cluster.open();
  t.is((await c.get('metal3/h1'))!.metadata.generation, 2);
});

contract('status writes are stored and merged but wake no watcher, here or elsewhere', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  await a.apply([host('h1')]);
  await waitUntil(async () => (await b.get('metal3/h1')) !== undefined, 5_000, 'b has h1');
  const onA = recorder(a);
  const onB = recorder(b);
  const specBefore = (await cluster.specs.get(hostKvKey('metal3/h1')))!.revision;

  await a.writeStatus('metal3/h1', status('available'));
  t.is((await a.get('metal3/h1'))!.status?.provisioning.state, 'available');
  await waitUntil(async () => (await b.get('metal3/h1'))?.status?.provisioning.state === 'available', 5_000, 'b sees the status');
  // A spec change after the status write: its event is the first b gets, so none came before.
  await a.applyIntent('metal3/h1', { annotations: { note: 'x' } });
  await waitUntil(() => onB.length > 0, 5_000, 'b sees the annotation');
  t.deepEqual(onB.map(describe), ['upsert h1']);
  t.deepEqual(onA.map(describe), ['upsert h1']);
  t.is(onB[0]!.type === 'upsert' && onB[0]!.host.status?.provisioning.state, 'available');
  t.true((await cluster.specs.get(hostKvKey('metal3/h1')))!.revision > specBefore);

  await t.throwsAsync(a.writeStatus('metal3/nope', status('available')), { instanceOf: StoreError, message: /metal3\/nope not found/ });
  t.deepEqual(await cluster.status.keys(), [hostKvKey('metal3/h1')]);
});

contract('fences: epoch 5 writes, epoch 3 is refused and changes nothing, epoch 7 writes', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  await a.apply([host('h1')]);
  await waitUntil(async () => (await b.get('metal3/h1')) !== undefined, 5_000, 'b has h1');

  await a.writeStatus('metal3/h1', status('registering'), { shard: 2, epoch: 5, holder: 'node-a' });
  // b may not have seen epoch 5 yet: the compare-and-set makes it look.
  const error = await t.throwsAsync(b.writeStatus('metal3/h1', status('provisioned'), { shard: 2, epoch: 3, holder: 'node-b' }), { instanceOf: StaleFence });
  t.is(error?.current, 5);
  t.false(error?.retryable);
  t.regex(error?.message ?? '', /epoch 3 of node-b is older than epoch 5/);
  const stored = kvRecord((await cluster.status.get(hostKvKey('metal3/h1')))!.value) as StatusRecordView;
  t.is(stored.status.provisioning.state, 'registering');
  t.deepEqual(stored.fence, { shard: 2, epoch: 5, holder: 'node-a' });

  // The old owner is refused now too, once it has seen the newer epoch.
  await b.writeStatus('metal3/h1', status('available'), { shard: 2, epoch: 7, holder: 'node-b' });
  await t.throwsAsync(a.writeStatus('metal3/h1', status('registering'), { shard: 2, epoch: 5, holder: 'node-a' }), { instanceOf: StaleFence });
  // Without a fence (single node) a write goes through and keeps the highest epoch.
  await a.writeStatus('metal3/h1', status('provisioned'));
  const last = kvRecord((await cluster.status.get(hostKvKey('metal3/h1')))!.value) as StatusRecordView;
  t.is(last.status.provisioning.state, 'provisioned');
  t.is(last.fence.epoch, 7);
  await waitUntil(async () => (await b.get('metal3/h1'))?.status?.provisioning.state === 'provisioned', 5_000, 'b sees the last status');
});

contract('concurrent changes from two stores all survive (annotations, finalizers, apply)', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  await a.apply([host('h1')]);
  await waitUntil(async () => (await b.get('metal3/h1')) !== undefined, 5_000, 'b has h1');

  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 8; i++) {
    writes.push(a.applyIntent('metal3/h1', { annotations: { [`from-a-${i}`]: String(i) } }));
    writes.push(b.applyIntent('metal3/h1', { annotations: { [`from-b-${i}`]: String(i) } }));
  }
  writes.push(a.addFinalizer('metal3/h1', 'a.example/f'), b.addFinalizer('metal3/h1', 'b.example/f'));
  await Promise.all(writes);
  const after = await a.applyIntent('metal3/h1', {});
  t.is(Object.keys(after.metadata.annotations ?? {}).length, 16);
  t.deepEqual([...after.metadata.finalizers!].sort(), ['a.example/f', 'b.example/f']);

  // A finalizer removal racing an apply of a new spec: both land.
  await Promise.all([a.removeFinalizer('metal3/h1', 'a.example/f'), b.apply([host('h1', { online: false })])]);
  await waitUntil(async () => {
    const [ha, hb] = [await a.get('metal3/h1'), await b.get('metal3/h1')];
    return ha?.metadata.resourceVersion === hb?.metadata.resourceVersion;
  }, 5_000, 'a and b agree');
  const final = (await b.get('metal3/h1'))!;
  t.false(final.spec.online);
  t.is(final.metadata.generation, 2);
  t.deepEqual(final.metadata.finalizers, ['b.example/f']);
});

contract('requestDelete with finalizers: terminating, then removing the last finalizer deletes it everywhere', async (t, cluster) => {
  const a = await cluster.open();
  const b = await cluster.open();
  await a.apply([host('h1'), host('h2')]);
  await a.addFinalizer('metal3/h1', 'baremetalhost.metal3.io');
  await a.writeStatus('metal3/h1', status('provisioned'));
  await waitUntil(async () => (await b.get('metal3/h1'))?.metadata.finalizers?.length === 1, 5_000, 'b has the finalizer');
  const seen = recorder(b);

  t.is(await a.requestDelete('metal3/h1'), 'terminating');
  await waitUntil(() => seen.length === 1, 5_000, 'b sees terminating');
  const terminating = seen[0]!.type === 'upsert' ? seen[0]!.host : undefined;
  t.truthy(terminating?.metadata.deletionTimestamp);
  t.regex(terminating!.metadata.deletionTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // Asked again: still terminating, nothing written.
  t.is(await b.requestDelete('metal3/h1'), 'terminating');
  await t.throwsAsync(b.addFinalizer('metal3/h1', 'late'), { instanceOf: StoreError, message: /being deleted/ });

  await b.removeFinalizer('metal3/h1', 'baremetalhost.metal3.io');
  t.is(await b.get('metal3/h1'), undefined);
  await waitUntil(async () => (await a.get('metal3/h1')) === undefined, 5_000, 'a sees it gone');
  await waitUntil(() => seen.some((e) => e.type === 'deleted'), 5_000, 'b got deleted');
  t.deepEqual(seen.map(describe), ['upsert h1', 'deleted metal3/h1']);
  t.deepEqual(await cluster.specs.keys(), [hostKvKey('metal3/h2')]);
  t.deepEqual(await cluster.status.keys(), []);
  await t.throwsAsync(a.writeStatus('metal3/h1', status('available')), { instanceOf: StoreError, message: /not found/ });
  await t.throwsAsync(a.requestDelete('metal3/h1'), { instanceOf: StoreError, message: /metal3\/h1 not found/ });

  // Without finalizers a delete is immediate.
  t.is(await b.requestDelete('metal3/h2'), 'deleted');
  await waitUntil(async () => (await a.list()).length === 0, 5_000, 'a sees h2 gone');

  // A host applied again under the same name starts fresh: no status of its predecessor.
  await a.apply([host('h1')]);
  t.is((await a.get('metal3/h1'))!.status, undefined);
  t.is((await a.get('metal3/h1'))!.metadata.generation, 1);
});

contract('applyIntent sets and removes annotations and online in one write; removeAnnotation', async (t, cluster) => {
  const a = await cluster.open();
  await a.apply([host('h1', {}, { annotations: { keep: '1', drop: '2' } })]);
  const seen = recorder(a);
  const after = await a.applyIntent('metal3/h1', { online: false, annotations: { drop: null, reboot: '' } });
  t.false(after.spec.online);
  t.is(after.metadata.generation, 2);
  t.deepEqual(after.metadata.annotations, { keep: '1', reboot: '' });
  t.is(seen.length, 1);
  // Nothing to change: nothing written, no event.
  await a.applyIntent('metal3/h1', { online: false, annotations: { drop: null } });
  await a.removeAnnotation('metal3/h1', 'absent');
  t.is(seen.length, 1);
  await a.removeAnnotation('metal3/h1', 'keep');
  t.deepEqual((await a.get('metal3/h1'))!.metadata.annotations, { reboot: '' });
  await t.throwsAsync(a.applyIntent('metal3/gone', { online: true }), { instanceOf: StoreError, message: /metal3\/gone not found/ });
});

contract('invalid manifests are refused with file, document and field, and nothing is stored', async (t, cluster) => {
  const a = await cluster.open();
  const { path, text } = fixture('store-invalid.yaml');
  const result = await a.applyManifests(text, path);
  t.false(result.ok);
  const online = result.issues.find((i) => i.path === 'spec.online');
  t.like(online, { file: path, index: 1, kind: 'BareMetalHost', key: 'metal3/bad-1' });
  t.regex(formatApplyIssue(online!), /store-invalid\.yaml document 2 \(line \d+\): BareMetalHost metal3\/bad-1 spec\.online: /);
  t.truthy(result.issues.find((i) => i.path === 'spec.bmc.credentialsName' && i.index === 1));
  t.regex(result.issues.find((i) => i.index === 2)?.message ?? '', /^YAML: /);
  t.deepEqual(await a.list(), []);
  t.deepEqual(await cluster.specs.keys(), []);

  // Update rules run against the stored version, as the webhook's do.
  await a.apply([host('h1', { bootMACAddress: '00:00:5e:00:53:01' })]);
  const update = await a.apply([host('h1', { bootMACAddress: '00:00:5e:00:53:02' })]);
  t.false(update.ok);
  t.is(update.issues[0]?.path, 'spec.bootMACAddress');
});

contract('Secrets are refused on apply: nothing is stored, the error says to use --secrets', async (t, cluster) => {
  const a = await cluster.open();
  const { path, text } = fixture('store-hosts.yaml');
  const result = await a.applyManifests(text, path);
  t.false(result.ok);
  t.deepEqual(result.issues.map((i) => `${i.index} ${i.kind} ${i.key}`), ['1 Secret metal3/worker-0-bmc', '2 Secret metal3/worker-1-bmc']);
  t.regex(formatApplyIssue(result.issues[0]!), /store-hosts\.yaml document 2 \(line \d+\): Secret metal3\/worker-0-bmc Secrets are never stored in NATS.*--secrets/);
  t.deepEqual(await cluster.specs.keys(), []);
  t.false(JSON.stringify(result).includes('calvin-string-data'));
});

contract('Secrets come from local files; no secret value ever reaches a KV value', async (t, cluster) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secrets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'h1.yaml'), [
    'apiVersion: v1', 'kind: Secret', 'metadata: {name: h1-bmc, namespace: metal3}',
    `data: {username: ${Buffer.from(USERNAME).toString('base64')}, password: ${Buffer.from(PASSWORD).toString('base64')}}`,
    '---',
    'apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: ignored}',
  ].join('\n'));
  await writeFile(join(dir, 'h2.yml'), ['apiVersion: v1', 'kind: Secret', 'metadata: {name: h2-bmc, namespace: metal3}', `stringData: {username: ${USERNAME}, password: ${PASSWORD}}`].join('\n'));
  await writeFile(join(dir, 'README.txt'), 'not a manifest');
  const secrets = await loadSecretFiles([dir]);
  t.deepEqual(secrets.keys, ['metal3/h1-bmc', 'metal3/h2-bmc']);

  const a = await cluster.open(secrets);
  const b = await cluster.open();
  await a.apply([host('h1'), host('h2', {}, { annotations: { note: 'n' } })]);
  await a.addFinalizer('metal3/h1', 'baremetalhost.metal3.io');
  await a.writeStatus('metal3/h1', status('provisioned'), { shard: 1, epoch: 2, holder: 'node-a' });
  const s1 = await a.getSecret('metal3', 'h1-bmc');
  t.is(secretValue(s1!, 'password'), PASSWORD);
  t.is(secretValue((await a.getSecret('metal3', 'h2-bmc'))!, 'username'), USERNAME);
  t.is(await a.getSecret('metal3', 'nope'), undefined);
  // A node given no Secrets finds none.
  t.is(await b.getSecret('metal3', 'h1-bmc'), undefined);

  const values = [...await allValues(cluster.specs), ...await allValues(cluster.status)];
  t.true(values.length >= 3);
  const forbidden = [PASSWORD, USERNAME, Buffer.from(PASSWORD).toString('base64'), Buffer.from(USERNAME).toString('base64')];
  for (const value of values) for (const secret of forbidden) t.false(value.includes(secret), 'a secret value is in a KV value');
}, [memory, nats]);

test('nats store - loadSecretFiles refuses an invalid Secret by file, document and field, without its value', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secrets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'bad.yaml');
  await writeFile(file, ['apiVersion: v1', 'kind: Secret', 'metadata: {name: s, namespace: metal3}', 'data: {password: "not base64 !! very-secret"}'].join('\n'));
  const error = await t.throwsAsync(loadSecretFiles([file]), { instanceOf: StoreError });
  t.regex(error!.message, /bad\.yaml document 1 \(line 1\): Secret metal3\/s data\.password: /);
  t.false(error!.message.includes('very-secret'));
  await t.throwsAsync(loadSecretFiles([join(dir, 'missing.yaml')]), { message: /missing\.yaml: no such file or directory/ });
});

test('nats store - a record nobody wrote through the store is ignored, not fatal', async (t) => {
  const kv = new MemoryKvStore();
  const specs = kv.bucket(NATS_HOSTS_BUCKET);
  await specs.put('metal3.junk', new TextEncoder().encode('{"not":"a host"}'));
  await specs.put('not-a-host-key', new TextEncoder().encode('{}'));
  const store = await openNatsStore({ specs, status: kv.bucket(NATS_STATUS_BUCKET) });
  t.teardown(() => store.close());
  t.deepEqual(await store.list(), []);
  await t.throwsAsync(store.requestDelete('metal3/junk'), { instanceOf: StoreError, message: /does not parse/ });
});

test('nats store - lost compare-and-sets are retried from a fresh read, and bounded', async (t) => {
  const kv = new MemoryKvStore();
  const inner = kv.bucket(NATS_HOSTS_BUCKET);
  let conflicts = 0;
  const counting = wrappedBucket(inner, {
    update: async (key, value, revision) => {
      try {
        return await inner.update(key, value, revision);
      } catch (error) {
        conflicts += 1;
        throw error;
      }
    },
  });
  const statusBucket = kv.bucket(NATS_STATUS_BUCKET);
  const a = await openNatsStore({ specs: counting, status: statusBucket });
  const b = await openNatsStore({ specs: counting, status: statusBucket });
  t.teardown(() => Promise.all([a.close(), b.close()]));
  await a.apply([host('h1')]);
  await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).applyIntent('metal3/h1', { annotations: { [`n${i}`]: 'x' } })));
  t.true(conflicts > 0, 'the writers raced');
  t.is(Object.keys((await a.applyIntent('metal3/h1', {})).metadata.annotations!).length, 10);

  // A writer that always loses gives up after maxAttempts with a retryable error.
  const hopeless = wrappedBucket(inner, {
    update: async () => {
      throw new KvConflict(inner.name, 'metal3.h1', 'always');
    },
  });
  const c = await openNatsStore({ specs: hopeless, status: statusBucket, maxAttempts: 3 });
  t.teardown(() => c.close());
  const error = await t.throwsAsync(c.addFinalizer('metal3/h1', 'f'), { instanceOf: StoreError, message: /3 compare-and-set attempts/ });
  t.true(error!.retryable);
});

