// `--persist FILE` at fleet size: a save reads and encodes only the entries that changed since the
// last one, and writes the same file a full snapshot of the buckets writes; a slow save spaces the
// next ones out. (At 10,000 hosts every save read and encoded all 60,000 entries again: 42% of
// the demo's CPU, and the run took twice as long.)
import test from 'ava';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKvSnapshot, nextSaveDelayMs, persistKv, saveKvSnapshot, SAVE_SPACING } from '../../src/adapters/store/kv-snapshot.ts';
import { encodeKvRecord } from '../../src/adapters/store/kv-value.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';

async function tempDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-persist-incremental-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Two buckets on a fresh memory KV, the hosts one counting the keys read from it. */
async function buckets(t: { teardown: (fn: () => Promise<void>) => void }): Promise<{ hosts: KvBucket; status: KvBucket; reads: string[] }> {
  const transport = createMemoryBus().connect('demo');
  t.teardown(() => transport.close());
  const inner = await transport.kv(NATS_HOSTS_BUCKET);
  const reads: string[] = [];
  const hosts = wrappedBucket(inner, {
    get(key) {
      reads.push(key);
      return inner.get(key);
    },
  });
  return { hosts, status: await transport.kv(NATS_STATUS_BUCKET), reads };
}

test('persist - a save reads only the keys that changed since the last one', async (t) => {
  const dir = await tempDir(t);
  const { hosts, status, reads } = await buckets(t);
  for (let i = 0; i < 200; i++) await hosts.put(`metal3.h${i}`, encodeKvRecord({ n: i }));
  const persist = await persistKv(join(dir, 'state.json'), [hosts, status], { debounceMs: 60_000 });
  t.teardown(() => persist.close());
  await persist.flush();
  t.is(reads.length, 200, 'the first save reads every entry once');
  reads.length = 0;
  await hosts.put('metal3.h7', encodeKvRecord({ n: 7, state: 'provisioned' }));
  await hosts.put('metal3.h300', encodeKvRecord({ n: 300 }));
  await hosts.delete('metal3.h9');
  await persist.flush();
  t.deepEqual([...reads].sort(), ['metal3.h300', 'metal3.h7', 'metal3.h9']);
  reads.length = 0;
  await persist.flush();
  t.deepEqual(reads, [], 'nothing changed, nothing read');
});

test('persist - after puts, updates, deletes and re-creations the file is the one a full snapshot writes, and loads back', async (t) => {
  const dir = await tempDir(t);
  const { hosts, status } = await buckets(t);
  const path = join(dir, 'state.json');
  await hosts.put('metal3.h0', encodeKvRecord({ n: 0 }));
  // A JSON value (an older node's write) stays text in the file, as in a full snapshot.
  await status.put('metal3.old', new TextEncoder().encode('{"status":{"provisioning":{"state":"available"}}}'));
  const persist = await persistKv(path, [hosts, status], { debounceMs: 60_000 });
  t.teardown(() => persist.close());
  await persist.flush();
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 50; i++) {
      const key = `metal3.h${(i * 7 + round * 13) % 60}`;
      if ((i + round) % 9 === 0) await hosts.delete(key);
      else await hosts.put(key, encodeKvRecord({ n: i, round, note: 'x'.repeat(i * 40) }));
      if (i % 5 === 0) await status.put(key, encodeKvRecord({ state: `s${round}-${i}` }));
    }
    if (round === 2) await status.delete('metal3.old');
    if (round === 3) await status.put('metal3.old', new TextEncoder().encode('{"status":{}}'));
    await persist.flush();
    const full = join(dir, 'full.json');
    await saveKvSnapshot(full, [hosts, status]);
    t.is(await readFile(path, 'utf8'), await readFile(full, 'utf8'), `round ${round}`);
  }
  const other = (await buckets(t));
  t.is(await loadKvSnapshot(path, [other.hosts, other.status]), (await hosts.keys()).length + (await status.keys()).length);
  t.deepEqual((await other.hosts.keys()).sort(), (await hosts.keys()).sort());
  for (const key of await hosts.keys()) {
    const [loaded, kept] = [(await other.hosts.get(key))?.value, (await hosts.get(key))?.value];
    t.true(loaded !== undefined && kept !== undefined && Buffer.from(loaded).equals(Buffer.from(kept)), key);
  }
});

test('persist - a save that failed misses nothing: the next one writes what it did not', async (t) => {
  const dir = await tempDir(t);
  const transport = createMemoryBus().connect('demo');
  t.teardown(() => transport.close());
  const inner = await transport.kv(NATS_HOSTS_BUCKET);
  let failOn: string | null = null;
  const hosts = wrappedBucket(inner, {
    get(key) {
      if (key === failOn) return Promise.reject(new Error('read failed'));
      return inner.get(key);
    },
  });
  const path = join(dir, 'state.json');
  const persist = await persistKv(path, [hosts], { debounceMs: 60_000 });
  t.teardown(() => persist.close());
  for (let i = 0; i < 10; i++) await hosts.put(`metal3.h${i}`, encodeKvRecord({ n: i }));
  failOn = 'metal3.h5';
  await t.throwsAsync(persist.flush(), { message: 'read failed' });
  failOn = null;
  await persist.flush();
  const saved = JSON.parse(await readFile(path, 'utf8')) as { buckets: Record<string, Record<string, unknown>> };
  t.is(Object.keys(saved.buckets[NATS_HOSTS_BUCKET] ?? {}).length, 10);
});

test('persist - the next save waits the quiet time, or longer after a slow save, so saving takes at most a fifth of the time', (t) => {
  t.is(nextSaveDelayMs(1_000, 0), 1_000);
  t.is(nextSaveDelayMs(1_000, 200), 1_000);
  t.is(nextSaveDelayMs(1_000, 700), 700 * SAVE_SPACING);
  t.is(nextSaveDelayMs(50, 15.3), Math.ceil(15.3 * SAVE_SPACING));
  for (const lastSaveMs of [0, 10, 250, 3_000]) {
    const delay = nextSaveDelayMs(1_000, lastSaveMs);
    t.true(lastSaveMs / (lastSaveMs + delay) <= 1 / (SAVE_SPACING + 1) + 1e-9);
  }
});

test('persist - a slow save delays the next one by its spacing (clock passed in)', async (t) => {
  const dir = await tempDir(t);
  const { hosts } = await buckets(t);
  let clock = 0;
  const path = join(dir, 'state.json');
  const persist = await persistKv(path, [hosts], { debounceMs: 20, now: () => clock });
  t.teardown(() => persist.close());
  // The save of this flush "takes" 10 s on the clock: it reads the clock as it starts, and again as it ends.
  await hosts.put('metal3.h1', encodeKvRecord({ n: 1 }));
  const flushing = persist.flush();
  clock = 10_000;
  await flushing;
  const before = await readFile(path, 'utf8');
  await hosts.put('metal3.h2', encodeKvRecord({ n: 2 }));
  // With a 20 ms quiet time the change would be saved within 20 ms; after a 10 s save it waits 40 s.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is(await readFile(path, 'utf8'), before, 'not saved 300 ms later');
  await persist.flush();
  t.not(await readFile(path, 'utf8'), before, 'a flush still saves at once');
});
