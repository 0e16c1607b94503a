// `--persist FILE` of the embedded default: a snapshot of the host buckets of its memory KV,
// loaded back before the store opens, so a rerun resumes where the last one stopped. These runs
// follow `metalfleet demo`: load the snapshot, open the store, apply the manifests, persist.
import test from 'ava';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareMetalHost } from '../../src/api/index.ts';
import { openLocalStore, type LocalStore } from '../../src/adapters/store/index.ts';
import { loadKvSnapshot, persistKv } from '../../src/adapters/store/kv-snapshot.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { StoreError, type KvBucket, type Transport } from '../../src/ports/index.ts';
import { kvRecord } from '../support/local-store.ts';

const FINALIZER = 'baremetalhost.metal3.io';
const PASSWORD = 'persist-must-never-see-this';

function host(name: string, online = true): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'metal3' },
    spec: { online, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'bmc' } },
  };
}

const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'metal3' }, stringData: { username: 'admin', password: PASSWORD } };

function status(state: 'registering' | 'available' | 'provisioned', errorCount = 0): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount, poweredOn: state === 'provisioned', provisioningFailCount: 0, provisioning: { state, ID: 'node-1' } };
}

async function tempDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

interface Run {
  readonly transport: Transport;
  readonly buckets: KvBucket[];
  /** Entries loaded from the snapshot. */
  readonly loaded: number;
  readonly store: LocalStore;
  readonly persist: { flush(): Promise<void>; close(): Promise<void> };
  stop(): Promise<void>;
}

/** One run of the embedded default on a fresh memory KV, as `metalfleet demo --persist` does it. */
async function run(path: string, manifests: readonly unknown[], debounceMs = 60_000): Promise<Run> {
  const transport = createMemoryBus().connect('demo');
  const buckets = await Promise.all([transport.kv(NATS_HOSTS_BUCKET), transport.kv(NATS_STATUS_BUCKET)]);
  const loaded = await loadKvSnapshot(path, buckets);
  const store = await openLocalStore(transport);
  const applied = await store.applyObjects(manifests, 'manifests');
  if (!applied.ok) throw new Error(JSON.stringify(applied.issues));
  const persist = await persistKv(path, buckets, { debounceMs });
  return {
    transport, buckets, loaded, store, persist,
    async stop() {
      await persist.close();
      await store.close();
      await transport.close();
    },
  };
}

test('persist - status, finalizers and deletion survive a restart', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'hosts.json');
  const manifests = [secret, host('h1'), host('h2'), host('h3')];

  const first = await run(path, manifests);
  t.is(first.loaded, 0);
  await first.store.writeStatus('metal3/h1', status('provisioned'));
  await first.store.addFinalizer('metal3/h1', FINALIZER);
  await first.store.writeStatus('metal3/h2', status('available', 2));
  await first.store.addFinalizer('metal3/h2', FINALIZER);
  const uid3 = (await first.store.get('metal3/h3'))!.metadata.uid;
  t.is(await first.store.requestDelete('metal3/h2'), 'terminating');
  t.is(await first.store.requestDelete('metal3/h3'), 'deleted');
  const h1 = (await first.store.get('metal3/h1'))!;
  const h2 = (await first.store.get('metal3/h2'))!;
  await first.stop();

  // A new process: a new memory KV, the snapshot loaded into it, the same manifests applied.
  const second = await run(path, manifests);
  t.teardown(() => second.stop());
  // h1 and h2, each a host record and a status record.
  t.is(second.loaded, 4);
  const r1 = (await second.store.get('metal3/h1'))!;
  t.is(r1.metadata.uid, h1.metadata.uid);
  t.is(r1.metadata.creationTimestamp, h1.metadata.creationTimestamp);
  t.deepEqual(r1.status, status('provisioned'));
  t.deepEqual(r1.metadata.finalizers, [FINALIZER]);
  const r2 = (await second.store.get('metal3/h2'))!;
  t.is(r2.metadata.deletionTimestamp, h2.metadata.deletionTimestamp);
  t.deepEqual(r2.metadata.finalizers, [FINALIZER]);
  t.is(r2.status?.errorCount, 2);
  // The manifests still list h3; it comes back as a new host (a deletion is not held against them).
  const r3 = (await second.store.get('metal3/h3'))!;
  t.not(r3.metadata.uid, uid3);
  t.is(r3.status, undefined);
  // The deletion goes on where it stopped: the last finalizer removed, h2 is gone.
  await second.store.removeFinalizer('metal3/h2', FINALIZER);
  t.is(await second.store.get('metal3/h2'), undefined);
});

test('persist - changes are saved together after a quiet time, or at once on flush; no temporary file stays', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'hosts.json');
  const it = await run(path, [secret, ...Array.from({ length: 1000 }, (_, i) => host(`h${i}`))]);
  t.teardown(() => it.stop());
  for (let i = 0; i < 1000; i++) await it.store.writeStatus(`metal3/h${i}`, status('available'));
  // A thousand changes and no write yet: they wait for the quiet time.
  t.deepEqual(await readdir(dir), []);
  await it.persist.flush();
  for (let i = 0; i < 10; i++) await it.store.writeStatus(`metal3/h${i}`, status('provisioned'));
  await it.persist.flush();
  const saved = JSON.parse(await readFile(path, 'utf8')) as { version: number; buckets: Record<string, Record<string, { base64: string }>> };
  t.is(saved.version, 2);
  t.is(Object.keys(saved.buckets[NATS_HOSTS_BUCKET] ?? {}).length, 1000);
  const state = (key: string) => (kvRecord(Buffer.from(saved.buckets[NATS_STATUS_BUCKET]?.[key]?.base64 ?? '', 'base64')) as { status?: BareMetalHost['status'] }).status?.provisioning.state;
  t.is(state('metal3.h0'), 'provisioned');
  t.is(state('metal3.h999'), 'available');
  t.deepEqual(await readdir(dir), ['hosts.json']);
});

test('persist - a deleted host leaves the file on the next write', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'hosts.json');
  const it = await run(path, [host('h1'), host('h2')]);
  t.teardown(() => it.stop());
  await it.store.writeStatus('metal3/h1', status('available'));
  await it.persist.flush();
  t.is(await it.store.requestDelete('metal3/h1'), 'deleted');
  await it.persist.flush();
  const saved = JSON.parse(await readFile(path, 'utf8')) as { buckets: Record<string, Record<string, unknown>> };
  t.deepEqual(Object.keys(saved.buckets[NATS_HOSTS_BUCKET] ?? {}), ['metal3.h2']);
  t.deepEqual(Object.keys(saved.buckets[NATS_STATUS_BUCKET] ?? {}), []);
});

test('persist - a corrupt file loads nothing, is named in the error, and is left untouched', async (t) => {
  const dir = await tempDir(t);
  for (const [name, content, detail] of [
    ['broken.json', '{"version":2,"buckets":{"mf-hosts":', /not valid JSON/],
    ['wrong.json', JSON.stringify({ version: 2, buckets: { [NATS_HOSTS_BUCKET]: { 'metal3.h0': { text: '{}' }, 'metal3.h1': { text: 7 } } } }), /buckets\[mf-hosts\]\[metal3\.h1\]/],
  ] as const) {
    const path = join(dir, name);
    await writeFile(path, content);
    const error = await t.throwsAsync(run(path, [host('h1')]), { instanceOf: StoreError });
    t.true(error!.message.includes(path), error!.message);
    t.regex(error!.message, /corrupt/);
    t.regex(error!.message, detail);
    t.regex(error!.message, /Nothing was loaded and the file was left untouched/);
    t.false(error!.retryable);
    t.is(await readFile(path, 'utf8'), content);
  }
  // Nothing of a file that fails is put into the KV, not even its valid entries. (Files of another
  // format version, and more damaged ones, are in store-persist-load.test.ts.)
  const transport = createMemoryBus().connect('demo');
  t.teardown(() => transport.close());
  const buckets = await Promise.all([transport.kv(NATS_HOSTS_BUCKET), transport.kv(NATS_STATUS_BUCKET)]);
  await t.throwsAsync(loadKvSnapshot(join(dir, 'wrong.json'), buckets), { instanceOf: StoreError });
  t.deepEqual(await buckets[0]!.keys(), []);
  t.deepEqual(await readdir(dir), ['broken.json', 'wrong.json']);
});

test('persist - a file of a newer format says so, naming its version, not "corrupt", and is left untouched', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'newer.json');
  const content = JSON.stringify({ version: 3, buckets: {} });
  await writeFile(path, content);
  const error = await t.throwsAsync(run(path, [host('h1')]), { instanceOf: StoreError });
  t.regex(error!.message, /written by a newer metalfleet: it is format version 3 and this build reads format version 2/);
  t.notRegex(error!.message, /corrupt/);
  t.regex(error!.message, /Nothing was loaded and the file was left untouched/);
  t.is(await readFile(path, 'utf8'), content);
});

test('persist - a missing file is an empty snapshot', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'new.json');
  const it = await run(path, [host('h1')]);
  t.teardown(() => it.stop());
  t.is(it.loaded, 0);
  t.deepEqual((await it.store.list()).map((h) => h.metadata.name), ['h1']);
  // Nothing is written until there is something to save.
  t.deepEqual(await readdir(dir), []);
});

test('persist - the file never holds a Secret, in any encoding', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'hosts.json');
  const it = await run(path, [secret, host('h1')]);
  t.teardown(() => it.stop());
  t.is(await it.store.secrets.get('metal3', 'bmc').then((s) => s?.metadata.name), 'bmc');
  await it.store.writeStatus('metal3/h1', status('available'));
  await it.persist.flush();
  const text = await readFile(path, 'utf8');
  t.true(text.includes('metal3.h1'));
  for (const form of [PASSWORD, Buffer.from(PASSWORD).toString('base64'), 'admin']) t.false(text.includes(form), `the file holds ${form}`);
});
