import test from 'ava';
import type { BareMetalHost } from '../../src/api/index.ts';
import { createMemoryStore, type StoreClock } from '../../src/adapters/store/index.ts';
import { StoreError, type HostEvent } from '../../src/ports/index.ts';

const FINALIZER = 'baremetalhost.metal3.io';

function host(name: string): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'metal3' },
    spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` } },
  };
}

function status(state: 'registering' | 'available' | 'provisioned'): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state, ID: 'node-1' } };
}

const fixedClock = (ms: number): StoreClock => ({ now: () => ms, setTimeout: () => 0, clearTimeout: () => undefined });

function names(events: HostEvent[]): string[] {
  return events.map((e) => (e.type === 'upsert' ? `upsert ${e.host.metadata.name}` : `deleted ${e.key}`));
}

test('store - delete without finalizers removes the host and emits deleted', async (t) => {
  const store = createMemoryStore();
  store.apply([host('h1')]);
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  t.is(store.delete('metal3/h1'), 'deleted');
  t.is(await store.get('metal3/h1'), undefined);
  t.deepEqual(names(events), ['deleted metal3/h1']);
  const error = t.throws(() => store.delete('metal3/h1'), { instanceOf: StoreError });
  t.false(error.retryable);
});

test('store - delete with finalizers stamps deletionTimestamp; removing the last finalizer removes the host', async (t) => {
  const store = createMemoryStore({ clock: fixedClock(Date.parse('2026-03-04T05:06:07.890Z')) });
  store.apply([host('h1')]);
  await store.addFinalizer('metal3/h1', FINALIZER);
  await store.addFinalizer('metal3/h1', 'example.com/other');
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));

  t.is(store.delete('metal3/h1'), 'terminating');
  const terminating = (await store.get('metal3/h1'))!;
  t.is(terminating.metadata.deletionTimestamp, '2026-03-04T05:06:07Z');
  // Deleting again changes nothing.
  t.is(store.delete('metal3/h1'), 'terminating');
  t.is((await store.get('metal3/h1'))!.metadata.resourceVersion, terminating.metadata.resourceVersion);
  // A deleting object takes no new finalizers.
  await t.throwsAsync(store.addFinalizer('metal3/h1', 'late'), { instanceOf: StoreError, message: /being deleted/ });

  await store.removeFinalizer('metal3/h1', 'example.com/other');
  t.deepEqual((await store.get('metal3/h1'))!.metadata.finalizers, [FINALIZER]);
  await store.removeFinalizer('metal3/h1', FINALIZER);
  t.is(await store.get('metal3/h1'), undefined);
  t.deepEqual(names(events), ['upsert h1', 'upsert h1', 'deleted metal3/h1']);
});

test('store - finalizer and annotation changes emit upsert; no-ops emit nothing', async (t) => {
  const store = createMemoryStore();
  store.apply([host('h1')]);
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  await store.addFinalizer('metal3/h1', FINALIZER);
  await store.addFinalizer('metal3/h1', FINALIZER);
  store.setAnnotation('metal3/h1', 'inspect.metal3.io', '');
  store.setAnnotation('metal3/h1', 'inspect.metal3.io', '');
  await store.removeAnnotation('metal3/h1', 'inspect.metal3.io');
  await store.removeAnnotation('metal3/h1', 'inspect.metal3.io');
  await store.removeFinalizer('metal3/h1', FINALIZER);
  await store.removeFinalizer('metal3/h1', FINALIZER);
  t.deepEqual(names(events), ['upsert h1', 'upsert h1', 'upsert h1', 'upsert h1']);
  const h = (await store.get('metal3/h1'))!;
  t.is(h.metadata.finalizers, undefined);
  t.is(h.metadata.annotations, undefined);
  t.is(h.metadata.generation, 1);
});

test('store - writeStatus stores the status without an event and leaves spec alone', async (t) => {
  const store = createMemoryStore();
  store.apply([host('h1')]);
  const before = (await store.get('metal3/h1'))!;
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  const s = status('available');
  await store.writeStatus('metal3/h1', s);
  await store.writeStatus('metal3/h1', status('provisioned'));
  const after = (await store.get('metal3/h1'))!;
  t.deepEqual(events, []);
  t.is(after.spec, before.spec);
  t.is(after.metadata.generation, before.metadata.generation);
  t.is(after.status?.provisioning.state, 'provisioned');
  // The object handed out earlier is not changed in place.
  t.is(before.status, undefined);
  t.is(store.statusWrites('metal3/h1'), 2);
  t.is(store.statusWrites(), 2);
  t.is(store.statusWrites('metal3/other'), 0);
  const error = await t.throwsAsync(store.writeStatus('metal3/missing', s), { instanceOf: StoreError, message: /metal3\/missing not found/ });
  t.false(error.retryable);
});

test('store - writeStatus keeps the status object it is given (no copy)', async (t) => {
  const store = createMemoryStore();
  store.apply([host('h1')]);
  const s = status('available');
  await store.writeStatus('metal3/h1', s);
  t.is((await store.get('metal3/h1'))!.status, s);
});

test('store - patchSpec validates, bumps generation and emits upsert', async (t) => {
  const store = createMemoryStore();
  store.apply([host('h1')]);
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  store.patchSpec('metal3/h1', { image: { url: 'http://images/os.qcow2', checksum: 'abc' } });
  let h = (await store.get('metal3/h1'))!;
  t.is(h.metadata.generation, 2);
  t.is(h.spec.image?.url, 'http://images/os.qcow2');
  store.patchSpec('metal3/h1', { image: { url: 'http://images/os.qcow2', checksum: 'abc' } });
  t.is((await store.get('metal3/h1'))!.metadata.generation, 2);
  store.patchSpec('metal3/h1', { image: undefined });
  h = (await store.get('metal3/h1'))!;
  t.is(h.spec.image, undefined);
  t.is(h.metadata.generation, 3);
  t.throws(() => store.patchSpec('metal3/h1', { online: 'yes' as never }), { instanceOf: StoreError, message: /spec\.online/ });
  t.is((await store.get('metal3/h1'))!.metadata.generation, 3);
  t.is(events.length, 2);
});

test('store - watch events are synchronous, ordered, and survive a throwing listener', async (t) => {
  const reported: string[] = [];
  const store = createMemoryStore({ onListenerError: (_e, event) => reported.push(event.type) });
  store.apply([host('h1')]);
  const seen: string[] = [];
  store.watch(() => {
    throw new Error('boom');
  });
  // A listener that causes an event: the event it causes comes after the current one everywhere.
  store.watch((e) => {
    seen.push(`a:${names([e])[0]}`);
    if (e.type === 'upsert' && !e.host.metadata.finalizers) void store.addFinalizer('metal3/h1', FINALIZER);
  });
  const unsubscribe = store.watch((e) => seen.push(`b:${names([e])[0]}`));
  store.setAnnotation('metal3/h1', 'x', '1');
  t.deepEqual(seen, ['a:upsert h1', 'b:upsert h1', 'a:upsert h1', 'b:upsert h1']);
  t.deepEqual(reported, ['upsert', 'upsert']);
  unsubscribe();
  store.setAnnotation('metal3/h1', 'x', '2');
  t.is(seen.length, 5);
});

test('store - operations on a missing host fail with a non-retryable StoreError', async (t) => {
  const store = createMemoryStore();
  for (const run of [
    () => store.addFinalizer('metal3/x', FINALIZER),
    () => store.removeFinalizer('metal3/x', FINALIZER),
    () => store.removeAnnotation('metal3/x', 'a'),
  ]) {
    const error = await t.throwsAsync(run(), { instanceOf: StoreError });
    t.false(error.retryable);
  }
  t.throws(() => store.setAnnotation('metal3/x', 'a', 'b'), { instanceOf: StoreError });
  t.throws(() => store.patchSpec('metal3/x', { online: false }), { instanceOf: StoreError });
});

test('store - writeStatus stays cheap for 100,000 hosts', async (t) => {
  const store = createMemoryStore();
  const hosts = Array.from({ length: 100_000 }, (_, i) => host(`h${i}`));
  const applied = store.apply(hosts);
  t.is(applied.created.length, 100_000);
  const start = performance.now();
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 100_000; i++) await store.writeStatus(`metal3/h${i}`, status('available'));
  }
  const ms = performance.now() - start;
  t.is(store.statusWrites(), 300_000);
  t.true(ms < 5_000, `300,000 status writes took ${ms} ms`);
});
