// Every Secret source gives each Secret a metadata.resourceVersion the host controller records as
// credentialsVersion (BMO: a Secret whose ResourceVersion differs from the recorded one has new
// credentials). Local sources change it when, and only when, the content changes.
import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Secret } from '../../src/api/secret.ts';
import { secretValue } from '../../src/api/secret.ts';
import { kubeSecretSource } from '../../src/adapters/kube/secret-source.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { createSecretMap } from '../../src/adapters/store/memory-secrets.ts';
import { loadSecretFiles, type SecretSource } from '../../src/adapters/store/nats-secrets.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { ObjectKind, ResourceEvent } from '../../src/ports/index.ts';
import type { SecretEvent } from '../../src/adapters/store/secret-changes.ts';
import { OBJECT_KINDS, silentLogger } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

const PASSWORD = 'hunter2-s3cr3t';

const secret = (values: Record<string, string>, extra: Partial<Secret> = {}): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab' }, stringData: values, ...extra });
const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function versionOf(source: SecretSource, name = 'bmc'): Promise<string> {
  const found = await source.get('lab', name);
  const version = found?.metadata.resourceVersion;
  if (version === undefined) throw new Error(`lab/${name} has no resourceVersion`);
  return version;
}

/** The version tells nothing of the values: neither a value nor a digest of one is in it. */
function assertNoValueIn(t: { false(v: boolean, m?: string): void }, version: string, values: readonly string[]): void {
  for (const value of values) {
    t.false(version.includes(value), 'a value in the version');
    for (const algorithm of ['sha256', 'sha1', 'md5']) {
      t.false(version.includes(createHash(algorithm).update(value).digest('hex').slice(0, 8)), `a ${algorithm} of a value in the version`);
    }
    t.false(version.includes(b64(value).replace(/=+$/, '')), 'a base64 value in the version');
  }
}

test('secret versions - the secret map stamps a version, keeps it for the same content and gives a new one for other content', async (t) => {
  const map = createSecretMap();
  map.set(secret({ username: 'admin', password: PASSWORD }));
  const v1 = await versionOf(map);
  assertNoValueIn(t, v1, ['admin', PASSWORD]);

  // The same content again (as data, keys reordered, a label added): the same version.
  t.false(map.set(secret({ username: 'admin', password: PASSWORD })), 'the same Secret again is no change');
  map.set(secret({ password: PASSWORD, username: 'admin' }));
  map.set(secret({}, { stringData: undefined, data: { username: b64('admin'), password: b64(PASSWORD) }, type: 'Opaque' }));
  map.set({ ...secret({ username: 'admin', password: PASSWORD }), metadata: { name: 'bmc', namespace: 'lab', labels: { team: 'lab' } } });
  t.is(await versionOf(map), v1);

  t.true(map.set(secret({ username: 'admin', password: 'rotated' })));
  const v2 = await versionOf(map);
  t.not(v2, v1);
  // Back to the first content: a change like any other, never the first version again.
  map.set(secret({ username: 'admin', password: PASSWORD }));
  const v3 = await versionOf(map);
  t.is(new Set([v1, v2, v3]).size, 3);
  // Another type is other content.
  map.set(secret({ username: 'admin', password: PASSWORD }, { type: 'kubernetes.io/basic-auth' }));
  t.not(await versionOf(map), v3);
});

test('secret versions - the secret map keeps a version the Secret brings, and never takes back one it stamped', async (t) => {
  const map = createSecretMap([secret({ password: PASSWORD }, { metadata: { name: 'bmc', namespace: 'lab', resourceVersion: '42' } })]);
  t.is(await versionOf(map), '42');
  // Without a version and with the same content: the one it had stays.
  map.set(secret({ password: PASSWORD }));
  t.is(await versionOf(map), '42');

  map.set(secret({ password: 'one' }));
  const read = map.peek('lab/bmc')!;
  map.set(secret({ password: 'two' }));
  const two = await versionOf(map);
  // A Secret read back with the version the map stamped brings no version: its content decides.
  map.set(read);
  const back = await versionOf(map);
  t.not(back, read.metadata.resourceVersion);
  t.not(back, two);
  t.is(secretValue((await map.get('lab', 'bmc'))!, 'password'), 'one');
});

test('secret versions - restoring what peek returned is a change with a fresh version, and announced', async (t) => {
  const map = createSecretMap([secret({ password: 'before' })]);
  const events: SecretEvent[] = [];
  map.watch((e) => events.push(e));
  const old = map.peek('lab/bmc');
  const v1 = await versionOf(map);
  map.set(secret({ password: 'during' }));
  const v2 = await versionOf(map);
  map.restore('lab/bmc', old);
  const v3 = await versionOf(map);
  t.is(secretValue((await map.get('lab', 'bmc'))!, 'password'), 'before');
  // A host that read "during" must see its credentials change; none sees v1 for other content.
  t.is(new Set([v1, v2, v3]).size, 3);
  t.deepEqual(events.map((e) => e.change), ['changed', 'changed']);
  // Restoring the same content again changes nothing.
  map.restore('lab/bmc', map.peek('lab/bmc'));
  t.is(await versionOf(map), v3);
  t.is(events.length, 2);
});

test('secret versions - two maps of one process never give the same version', async (t) => {
  const a = createSecretMap([secret({ password: 'x' })]);
  const b = createSecretMap([secret({ password: 'y' })]);
  t.not(await versionOf(a), await versionOf(b));
});

function secretYaml(name: string, data: Record<string, string>, resourceVersion?: string): string {
  const rv = resourceVersion === undefined ? '' : `, resourceVersion: "${resourceVersion}"`;
  return ['apiVersion: v1', 'kind: Secret', `metadata: {name: ${name}, namespace: lab${rv}}`, 'stringData:', ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)].join('\n');
}

async function tempDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secret-versions-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

// Both ways a file's version is made: from its state (read well after it was written) and, for a
// file read right after a write, of this process alone.
for (const [clock, now] of [['file state', () => Date.now() + 60_000], ['racy read', Date.now]] as const) {
  test(`secret versions (${clock}) - a secrets file keeps a version while the content is the same, touched or rewritten, and changes it with the content`, async (t) => {
    const dir = await tempDir(t);
    const creds = join(dir, 'creds.yaml');
    // Two Secrets in one file: editing one leaves the other's version alone.
    const both = (password: string): string => `${secretYaml('bmc', { username: 'admin', password })}\n---\n${secretYaml('other', { password: 'steady' })}`;
    await writeFile(creds, both(PASSWORD));
    await writeFile(join(dir, 'marker.yaml'), secretYaml('marker', { n: '0' }));
    const files = await loadSecretFiles([dir], { debounceMs: 10, now });
    const events: SecretEvent[] = [];
    const stop = files.watch((e) => events.push(e));
    t.teardown(stop);
    const v1 = await versionOf(files);
    const other1 = await versionOf(files, 'other');
    assertNoValueIn(t, v1, ['admin', PASSWORD, 'steady']);

    // The marker's change proves a re-read that also read creds.yaml (touched, then rewritten as it was).
    let marker = 0;
    const reread = async (): Promise<void> => {
      marker += 1;
      const before = events.length;
      await writeFile(join(dir, 'marker.yaml'), secretYaml('marker', { n: String(marker) }));
      await waitFor(() => events.slice(before).some((e) => e.key === 'lab/marker' && e.change === 'changed'), 5_000, `re-read ${marker}`);
    };
    const later = new Date(Date.now() + 60_000);
    await utimes(creds, later, later);
    await reread();
    t.is(await versionOf(files), v1);
    await writeFile(creds, both(PASSWORD));
    await reread();
    t.is(await versionOf(files), v1);
    t.false(events.some((e) => e.key === 'lab/bmc'), 'no change announced for the same content');

    await writeFile(creds, both('rotated'));
    await waitFor(() => events.some((e) => e.key === 'lab/bmc' && e.change === 'changed'), 5_000, 'bmc changed');
    const v2 = await versionOf(files);
    t.not(v2, v1);
    t.is(await versionOf(files, 'other'), other1);
    assertNoValueIn(t, v2, ['rotated']);

    await writeFile(creds, both(PASSWORD));
    await waitFor(() => events.filter((e) => e.key === 'lab/bmc' && e.change === 'changed').length === 2, 5_000, 'bmc changed back');
    t.is(new Set([v1, v2, await versionOf(files)]).size, 3);
  });
}

test('secret versions - a new load of an untouched file finds the same version; of a changed one, another', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'bmc.yaml');
  await writeFile(file, secretYaml('bmc', { password: PASSWORD }));
  // Each load stands for a process start, a minute after the file was written.
  const later = { now: () => Date.now() + 60_000 };
  // Each write a few ms after the last, so the file's clock (a kernel tick) has moved on.
  const nextTick = async (): Promise<void> => {
    const { mtimeMs } = await stat(file);
    await waitFor(() => Date.now() > mtimeMs + 20, 1_000, 'the clock past the last write');
  };
  const first = await versionOf(await loadSecretFiles([dir], later));
  t.is(await versionOf(await loadSecretFiles([dir], later)), first);
  t.is(await versionOf(await loadSecretFiles([file], later)), first, 'named as a file or through its folder');

  await nextTick();
  await writeFile(file, secretYaml('bmc', { password: 'changed-while-down' }));
  const second = await versionOf(await loadSecretFiles([dir], later));
  t.not(second, first);
  // The same content written anew is another version for a new process: it cannot know.
  await nextTick();
  await writeFile(file, secretYaml('bmc', { password: PASSWORD }));
  const third = await versionOf(await loadSecretFiles([dir], later));
  t.not(third, first);
  t.not(third, second);
});

test('secret versions - a file read right after it was written gets a version of this process alone', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'bmc.yaml'), secretYaml('bmc', { password: PASSWORD }));
  // A write within the same tick of the file's clock could give the next process the same file
  // state for other content; two starts within that tick must not agree on a version.
  const justNow = { now: () => Date.now() };
  t.not(await versionOf(await loadSecretFiles([dir], justNow)), await versionOf(await loadSecretFiles([dir], justNow)));
});

test('secret versions - a resourceVersion written in a secrets file is not used', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'bmc.yaml'), secretYaml('bmc', { password: PASSWORD }, '7'));
  const files = await loadSecretFiles([dir]);
  t.not(await versionOf(files), '7');
});

test('secret versions - the kube source gives the API server resourceVersion unchanged, metadata-only updates included', async (t) => {
  const cache = new ResourceCache(RESOURCES.Secret, silentLogger);
  const source = kubeSecretSource(cache, silentLogger);
  const raw = (rv: string, password: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab', resourceVersion: rv, ...(labels ? { labels } : {}) }, data: { password: b64(password) } });
  cache.observe('add', raw('1001', PASSWORD));
  t.is(await versionOf(source), '1001');
  cache.observe('update', raw('1002', PASSWORD, { touched: 'yes' }));
  t.is(await versionOf(source), '1002');
  cache.observe('update', raw('1010', 'rotated'));
  t.is(await versionOf(source), '1010');
});

// The MAAS kinds' store in the embedded default: the KV object store reading the local store's
// secret map, where applied Secrets go (never to KV).
test('secret versions - the embedded default\'s object store gives a Secret a version that follows its content', async (t) => {
  const transport = createMemoryBus().connect('test');
  const local = await openLocalStore(transport, { maas: {} });
  t.teardown(async () => {
    await local.objects?.close();
    await local.close();
    await transport.close();
  });
  const store = local.objects!;
  const events: ResourceEvent<ObjectKind>[] = [];
  store.watch((e) => events.push(e), { kinds: OBJECT_KINDS });
  const apply = async (password: string): Promise<void> => {
    t.true((await local.applyObjects([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab' }, stringData: { password } }])).ok);
  };
  const version = async (): Promise<string | undefined> => (await store.getSecret('lab', 'bmc'))?.metadata.resourceVersion;
  await apply(PASSWORD);
  const v1 = await version();
  t.truthy(v1);
  t.is(await version(), v1);
  await apply(PASSWORD);
  t.is(await version(), v1, 'applied again unchanged');
  await apply('rotated');
  const v2 = await version();
  t.truthy(v2);
  t.not(v2, v1);
  assertNoValueIn(t, v2!, ['rotated', PASSWORD]);
  // Watchers (the MaasMachine a bootstrap Secret wakes) hear of each change by name only; the
  // unchanged apply told nothing.
  t.deepEqual(events.map((e) => `${e.type} ${e.kind} ${e.key}`), ['upsert Secret lab/bmc', 'upsert Secret lab/bmc']);
  assertNoValueIn(t, JSON.stringify(events), ['rotated', PASSWORD]);
});
