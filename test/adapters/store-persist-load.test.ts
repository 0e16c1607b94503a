// Loading a `--persist FILE` that is not a state this build can load: each case names the file and
// what is wrong with it, loads nothing, and leaves the file exactly as it was (the demo would
// otherwise save over it a second later).
import test from 'ava';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKvSnapshot } from '../../src/adapters/store/kv-snapshot.ts';
import { encodeKvRecord } from '../../src/adapters/store/kv-value.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { StoreError, type KvBucket } from '../../src/ports/index.ts';

async function tempDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-persist-load-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function buckets(t: { teardown: (fn: () => Promise<void>) => void }): Promise<KvBucket[]> {
  const transport = createMemoryBus().connect('demo');
  t.teardown(() => transport.close());
  return Promise.all([transport.kv(NATS_HOSTS_BUCKET), transport.kv(NATS_STATUS_BUCKET)]);
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const record = encodeKvRecord({ metadata: { name: 'h0', namespace: 'metal3' } });

test('persist load - a file of a newer format says so, naming the file and both versions, not "corrupt", and is left untouched', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'newer.json');
  const content = JSON.stringify({ version: 3, buckets: { [NATS_HOSTS_BUCKET]: { 'metal3.h0': { base64: b64(record) } } }, extra: 'a v3 field' });
  await writeFile(path, content);
  const kv = await buckets(t);
  const error = await t.throwsAsync(loadKvSnapshot(path, kv), { instanceOf: StoreError });
  t.is(error!.code, 'storeFileNewer');
  t.is(error!.message, `the store file ${path} was written by a newer metalfleet: it is format version 3 and this build reads format version 2. Nothing was loaded and the file was left untouched; run that newer metalfleet, or move the file away to start from the manifests alone`);
  t.notRegex(error!.message, /corrupt/);
  t.false(error!.retryable);
  t.is(await readFile(path, 'utf8'), content);
  t.deepEqual(await kv[0]!.keys(), []);
});

test('persist load - a file of an older format says so, naming both versions, not "corrupt"', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'old.json');
  const content = JSON.stringify({ version: 1, hosts: { 'metal3/h1': { uid: 'kept' } } });
  await writeFile(path, content);
  const error = await t.throwsAsync(loadKvSnapshot(path, await buckets(t)), { instanceOf: StoreError });
  t.is(error!.code, 'storeFileOlder');
  t.regex(error!.message, /^the store file .*old\.json was written by an older metalfleet: it is format version 1 and this build reads format version 2\. Nothing was loaded and the file was left untouched;/);
  t.notRegex(error!.message, /corrupt/);
  t.is(await readFile(path, 'utf8'), content);
});

test('persist load - an empty, truncated, wrongly shaped or undecodable file names the file and what is wrong, loads nothing and is left untouched', async (t) => {
  const dir = await tempDir(t);
  const cases: Array<[name: string, content: string, code: string, detail: RegExp]> = [
    ['empty.json', '', 'storeFileEmpty', /is empty \(0 bytes\)/],
    ['blank.json', ' \n\n', 'storeFileEmpty', /is empty \(3 bytes of white space\)/],
    ['truncated.json', JSON.stringify({ version: 2, buckets: { [NATS_HOSTS_BUCKET]: { 'metal3.h0': { base64: b64(record) } } } }).slice(0, 40), 'storeFileCorrupt', /is corrupt: not valid JSON \(.+\)/],
    ['null.json', 'null', 'storeFileCorrupt', /is corrupt: the file: .*expected object, received null/],
    ['array.json', '[]', 'storeFileCorrupt', /is corrupt: the file: .*expected object, received array/],
    ['no-buckets.json', '{"version":2}', 'storeFileCorrupt', /is corrupt: buckets: .*expected record/],
    ['no-version.json', '{"buckets":{}}', 'storeFileCorrupt', /is corrupt: version: /],
    ['bad-entry.json', JSON.stringify({ version: 2, buckets: { [NATS_HOSTS_BUCKET]: { 'metal3.h1': { text: 7 } } } }), 'storeFileCorrupt', /is corrupt: buckets\[mf-hosts\]\[metal3\.h1\]/],
    // A record cut short: base64 that decodes, of MessagePack that does not. It used to load, the
    // store skipped the host as malformed, and the next save wrote the file over without it.
    ['truncated-msgpack.json', JSON.stringify({ version: 2, buckets: { [NATS_HOSTS_BUCKET]: { 'metal3.h0': { base64: b64(record) }, 'metal3.h1': { base64: b64(record.subarray(0, 5)) } } } }), 'storeFileCorrupt', /is corrupt: buckets\[mf-hosts\]\[metal3\.h1\]: 5 bytes that are neither MessagePack nor JSON/],
    ['truncated-json-entry.json', JSON.stringify({ version: 2, buckets: { [NATS_STATUS_BUCKET]: { 'metal3.h1': { text: '{"status":{"provisioning":' } } } }), 'storeFileCorrupt', /is corrupt: buckets\[mf-status\]\[metal3\.h1\]: \d+ bytes that start as JSON but do not parse as JSON/],
  ];
  for (const [name, content, code, detail] of cases) {
    const path = join(dir, name);
    await writeFile(path, content);
    const kv = await buckets(t);
    const error = await t.throwsAsync(loadKvSnapshot(path, kv), { instanceOf: StoreError }, name);
    t.is(error?.code, code, `${name}: ${error?.message}`);
    t.true(error?.message.startsWith(`the store file ${path} `), `${name}: ${error?.message}`);
    t.regex(error?.message ?? '', detail, name);
    t.regex(error?.message ?? '', /Nothing was loaded and the file was left untouched; .*move it away/, name);
    t.false(error?.retryable, name);
    t.is(await readFile(path, 'utf8'), content, `${name} is unchanged`);
    t.deepEqual([...await kv[0]!.keys(), ...await kv[1]!.keys()], [], `${name}: nothing was loaded`);
  }
  t.deepEqual((await readdir(dir)).sort(), cases.map(([name]) => name).sort());
});

test('persist load - a folder where the file should be is named as a folder, not a read failure worth retrying', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'state.json');
  await mkdir(path);
  const error = await t.throwsAsync(loadKvSnapshot(path, await buckets(t)), { instanceOf: StoreError });
  t.is(error!.code, 'storeFileUnreadable');
  t.is(error!.message, `the store file ${path} is a folder, not a file. Nothing was loaded; give the path of a file (it is created on the first save)`);
  t.false(error!.retryable);
  t.deepEqual(await readdir(path), []);
});
