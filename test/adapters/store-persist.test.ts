import test from 'ava';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareMetalHost } from '../../src/api/index.ts';
import { createMemoryStore, type StoreClock } from '../../src/adapters/store/index.ts';
import { StoreError, type HostEvent } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

const FINALIZER = 'baremetalhost.metal3.io';

function host(name: string, online = true): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'metal3' },
    spec: { online, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` } },
  };
}

function status(state: 'registering' | 'available' | 'provisioned', errorCount = 0): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount, poweredOn: state === 'provisioned', provisioningFailCount: 0, provisioning: { state, ID: 'node-1' } };
}

async function tempDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

// A clock whose timers fire only when the test says so.
function manualTimers(): StoreClock & { fire(): void; pending(): number } {
  const timers = new Map<number, () => void>();
  let next = 1;
  return {
    now: () => Date.parse('2026-01-01T00:00:00Z'),
    setTimeout(fn) {
      timers.set(next, fn);
      return next++;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    fire() {
      const due = [...timers.values()];
      timers.clear();
      for (const fn of due) fn();
    },
    pending: () => timers.size,
  };
}

test('store - status, finalizers and deletion survive a restart', async (t) => {
  const dir = await tempDir(t);
  const persistPath = join(dir, 'hosts.json');
  const manifests = [host('h1'), host('h2'), host('h3')];

  const first = createMemoryStore({ persistPath });
  first.apply(manifests);
  t.deepEqual(await first.load(), { restored: 0, pending: 0 });
  await first.writeStatus('metal3/h1', status('provisioned'));
  await first.addFinalizer('metal3/h1', FINALIZER);
  await first.writeStatus('metal3/h2', status('available', 2));
  await first.addFinalizer('metal3/h2', FINALIZER);
  const uid3 = (await first.get('metal3/h3'))!.metadata.uid;
  first.delete('metal3/h2');
  first.delete('metal3/h3');
  const uid1 = (await first.get('metal3/h1'))!.metadata.uid;
  const h2 = (await first.get('metal3/h2'))!;
  await first.close();

  const second = createMemoryStore({ persistPath });
  // The manifests still list h3; it comes back as a new host (deletions are not remembered).
  second.apply(manifests);
  const events: HostEvent[] = [];
  second.watch((e) => events.push(e));
  t.deepEqual(await second.load(), { restored: 2, pending: 0 });
  const r1 = (await second.get('metal3/h1'))!;
  t.is(r1.metadata.uid, uid1);
  t.deepEqual(r1.status, status('provisioned'));
  t.deepEqual(r1.metadata.finalizers, [FINALIZER]);
  const r2 = (await second.get('metal3/h2'))!;
  t.is(r2.metadata.deletionTimestamp, h2.metadata.deletionTimestamp);
  t.is(r2.status?.errorCount, 2);
  t.not((await second.get('metal3/h3'))!.metadata.uid, uid3);
  t.is(events.length, 2);
  await second.close();
});

test('store - a saved host applied after load takes its saved state', async (t) => {
  const dir = await tempDir(t);
  const persistPath = join(dir, 'hosts.json');
  const first = createMemoryStore({ persistPath });
  await first.load();
  first.apply([host('h1')]);
  await first.writeStatus('metal3/h1', status('available'));
  await first.flush();

  const second = createMemoryStore({ persistPath });
  t.deepEqual(await second.load(), { restored: 0, pending: 1 });
  second.apply([host('h1')]);
  t.is((await second.get('metal3/h1'))!.status?.provisioning.state, 'available');
  await second.close();
});

test('store - writes are coalesced: one write in flight, later changes batched', async (t) => {
  const dir = await tempDir(t);
  const persistPath = join(dir, 'hosts.json');
  const clock = manualTimers();
  const store = createMemoryStore({ persistPath, clock });
  store.apply(Array.from({ length: 1000 }, (_, i) => host(`h${i}`)));
  await store.load();
  t.is(clock.pending(), 1);
  for (let i = 0; i < 1000; i++) await store.writeStatus(`metal3/h${i}`, status('available'));
  // A thousand changes, still one timer.
  t.is(clock.pending(), 1);
  clock.fire();
  // While that write runs, more changes arrive; they do not start a second write.
  for (let i = 0; i < 10; i++) await store.writeStatus(`metal3/h${i}`, status('provisioned'));
  t.is(clock.pending(), 0);
  await waitFor(() => clock.pending() === 1, 5_000, 'the follow-up write to be scheduled');
  clock.fire();
  await store.flush();
  const saved = JSON.parse(await readFile(persistPath, 'utf8')) as { hosts: Record<string, { status?: { provisioning: { state: string } } }> };
  t.is(Object.keys(saved.hosts).length, 1000);
  t.is(saved.hosts['metal3/h0']?.status?.provisioning.state, 'provisioned');
  t.is(saved.hosts['metal3/h999']?.status?.provisioning.state, 'available');
  // No temporary files are left behind.
  t.deepEqual(await readdir(dir), ['hosts.json']);
  await store.close();
});

test('store - a corrupt persist file is named in the error and left untouched', async (t) => {
  const dir = await tempDir(t);
  for (const [name, content, detail] of [
    ['broken.json', '{"version":1,"hosts":{"metal3/h1":', /not valid JSON/],
    ['wrong.json', JSON.stringify({ version: 1, hosts: { 'metal3/h1': { status: { operationalStatus: 'bogus' } } } }), /hosts\[metal3\/h1\]\.status\.operationalStatus/],
    ['future.json', JSON.stringify({ version: 2, hosts: {} }), /version/],
  ] as const) {
    const persistPath = join(dir, name);
    await writeFile(persistPath, content);
    const store = createMemoryStore({ persistPath });
    store.apply([host('h1')]);
    const error = await t.throwsAsync(store.load(), { instanceOf: StoreError });
    t.true(error.message.includes(persistPath), error.message);
    t.regex(error.message, /corrupt/);
    t.regex(error.message, detail);
    // Changes after a failed load never reach the file.
    await store.writeStatus('metal3/h1', status('available'));
    await t.throwsAsync(store.flush(), { instanceOf: StoreError });
    await store.close();
    t.is(await readFile(persistPath, 'utf8'), content);
  }
});

test('store - flush before load is refused so saved state is never overwritten', async (t) => {
  const dir = await tempDir(t);
  const persistPath = join(dir, 'hosts.json');
  await writeFile(persistPath, JSON.stringify({ version: 1, hosts: { 'metal3/h1': { uid: 'kept' } } }));
  const store = createMemoryStore({ persistPath });
  store.apply([host('h1')]);
  await t.throwsAsync(store.flush(), { instanceOf: StoreError, message: /load\(\)/ });
  await store.load();
  t.is((await store.get('metal3/h1'))!.metadata.uid, 'kept');
  await store.close();
});

test('store - a removed host leaves the file on the next write', async (t) => {
  const dir = await tempDir(t);
  const persistPath = join(dir, 'hosts.json');
  const store = createMemoryStore({ persistPath });
  store.apply([host('h1'), host('h2')]);
  await store.load();
  await store.flush();
  store.delete('metal3/h1');
  await store.flush();
  const saved = JSON.parse(await readFile(persistPath, 'utf8')) as { hosts: Record<string, unknown> };
  t.deepEqual(Object.keys(saved.hosts), ['metal3/h2']);
  await store.close();
});

test('store - a store without persistPath needs no load or flush', async (t) => {
  const store = createMemoryStore();
  t.deepEqual(await store.load(), { restored: 0, pending: 0 });
  await store.flush();
  await store.close();
  t.pass();
});
