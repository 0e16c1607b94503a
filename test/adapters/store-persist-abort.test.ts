// An interrupted save of a `--persist FILE` (Ctrl-C while it writes): the save writes a temporary
// file and renames it over FILE, and the temporary file stayed behind when the process stopped in
// between. Aborted, the save removes it: FILE is the last complete save, and nothing else is left.
import test from 'ava';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { persistKv, saveKvSnapshot } from '../../src/adapters/store/kv-snapshot.ts';
import { encodeKvRecord } from '../../src/adapters/store/kv-value.ts';
import { NATS_HOSTS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { StoreError, type KvBucket } from '../../src/ports/index.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';

async function tempDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-persist-abort-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Polls until `check` holds, or fails after `ms`. */
async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A bucket of `count` entries whose reads stop at `holdAt` until released: a save caught half
 * written, its temporary file open, for as long as the test needs.
 */
async function heldBucket(t: { teardown: (fn: () => Promise<void>) => void }, count: number, holdAt: string): Promise<{ bucket: KvBucket; held: () => boolean; release: () => void }> {
  const transport = createMemoryBus().connect('demo');
  t.teardown(() => transport.close());
  const inner = await transport.kv(NATS_HOSTS_BUCKET);
  for (let i = 0; i < count; i++) await inner.put(`metal3.h${String(i).padStart(3, '0')}`, encodeKvRecord({ n: i }));
  let held = false;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const bucket = wrappedBucket(inner, {
    async get(key) {
      if (key === holdAt) {
        held = true;
        await gate;
      }
      return inner.get(key);
    },
  });
  return { bucket, held: () => held, release };
}

const tempFiles = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((f) => f.endsWith('.tmp'));

test('persist save - aborted half way, the temporary file is removed and the previous file is kept as it was', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'state.json');
  const previous = '{"version":2,"buckets":{}}\n';
  await writeFile(path, previous);
  const { bucket, held, release } = await heldBucket(t, 20, 'metal3.h010');
  const abort = new AbortController();
  const saving = saveKvSnapshot(path, [bucket], { signal: abort.signal });
  await until(async () => held() && (await tempFiles(dir)).length === 1, 'the save to stop half way with its temporary file open');
  abort.abort();
  release();
  const error = await t.throwsAsync(saving, { instanceOf: StoreError });
  t.is(error!.code, 'saveAborted');
  t.deepEqual(await readdir(dir), ['state.json']);
  t.is(await readFile(path, 'utf8'), previous);
});

test('persist save - an abort after the rename leaves the new file whole', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'state.json');
  const { bucket, release } = await heldBucket(t, 3, 'none');
  release();
  const abort = new AbortController();
  await saveKvSnapshot(path, [bucket], { signal: abort.signal });
  abort.abort();
  t.deepEqual(await readdir(dir), ['state.json']);
  const saved = JSON.parse(await readFile(path, 'utf8')) as { buckets: Record<string, Record<string, unknown>> };
  t.is(Object.keys(saved.buckets[NATS_HOSTS_BUCKET] ?? {}).length, 3);
});

test('persist - abort() during a save waits for its temporary file to be removed, and nothing is saved after it', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'state.json');
  const { bucket, held, release } = await heldBucket(t, 20, 'metal3.h005');
  const errors: unknown[] = [];
  const persist = await persistKv(path, [bucket], { debounceMs: 60_000, onError: (err) => errors.push(err) });
  const flushing = persist.flush();
  await until(async () => held() && (await tempFiles(dir)).length === 1, 'the save to stop half way');
  const aborting = persist.abort();
  release();
  t.true(await aborting, 'abort() says a save was abandoned');
  t.is((await t.throwsAsync(flushing, { instanceOf: StoreError }))?.code, 'saveAborted');
  t.deepEqual(await readdir(dir), [], 'no temporary file, and no file: there was no complete save');
  await bucket.put('metal3.h999', encodeKvRecord({ n: 999 }));
  await persist.flush();
  await persist.close();
  t.deepEqual(await readdir(dir), [], 'nothing is written after abort()');
  t.deepEqual(errors, []);
  t.false(await persist.abort(), 'no save in progress the second time');
});
