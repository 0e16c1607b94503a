// The embedded default's store (the KV store on the memory KV, Secrets beside it) over a host's
// life: deletion with finalizers, metadata changes and their events, watch listeners, missing hosts.
// What every KV store does between stores and nodes is in nats-store.test.ts.
import test from 'ava';
import type { BareMetalHost } from '../../src/api/index.ts';
import { openLocalStore, type LocalStore } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { silentLogger, StoreError, type Logger, type Transport } from '../../src/ports/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { waitUntil } from '../support/wait.ts';

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

function names(events: HostEvent[]): string[] {
  return events.map((e) => (e.type === 'upsert' ? `upsert ${e.host.metadata.name}` : `deleted ${e.key}`));
}

async function open(t: { teardown(fn: () => unknown): void }, log: Logger = silentLogger): Promise<LocalStore> {
  const transport = createMemoryBus().connect('test');
  const store = await openLocalStore(transport, { log });
  t.teardown(async () => {
    await store.close();
    await transport.close();
  });
  return store;
}

async function applied(store: LocalStore, objects: unknown[]): Promise<void> {
  const result = await store.applyObjects(objects);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
}

test('local store - delete without finalizers removes the host and emits deleted', async (t) => {
  const store = await open(t);
  await applied(store, [host('h1')]);
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  t.is(await store.requestDelete('metal3/h1'), 'deleted');
  t.is(await store.get('metal3/h1'), undefined);
  t.deepEqual(names(events), ['deleted metal3/h1']);
  const error = await t.throwsAsync(store.requestDelete('metal3/h1'), { instanceOf: StoreError });
  t.false(error!.retryable);
});

test('local store - delete with finalizers stamps deletionTimestamp; removing the last finalizer removes the host', async (t) => {
  const store = await open(t);
  await applied(store, [host('h1')]);
  await store.addFinalizer('metal3/h1', FINALIZER);
  await store.addFinalizer('metal3/h1', 'example.com/other');
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));

  const asked = Date.now();
  t.is(await store.requestDelete('metal3/h1'), 'terminating');
  const terminating = (await store.get('metal3/h1'))!;
  // RFC 3339 with whole seconds, as Kubernetes writes it.
  t.regex(terminating.metadata.deletionTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.true(Math.abs(Date.parse(terminating.metadata.deletionTimestamp!) - asked) < 2_000);
  // Deleting again changes nothing.
  t.is(await store.requestDelete('metal3/h1'), 'terminating');
  t.is((await store.get('metal3/h1'))!.metadata.resourceVersion, terminating.metadata.resourceVersion);
  t.is((await store.get('metal3/h1'))!.metadata.deletionTimestamp, terminating.metadata.deletionTimestamp);
  // A deleting object takes no new finalizers.
  await t.throwsAsync(store.addFinalizer('metal3/h1', 'late'), { instanceOf: StoreError, message: /being deleted/ });

  await store.removeFinalizer('metal3/h1', 'example.com/other');
  t.deepEqual((await store.get('metal3/h1'))!.metadata.finalizers, [FINALIZER]);
  await store.removeFinalizer('metal3/h1', FINALIZER);
  t.is(await store.get('metal3/h1'), undefined);
  // Unfenced, these are not a host actor's own writes (an actor writes under its shard's fence):
  // each is told to the node.
  t.deepEqual(names(events), ['upsert h1', 'upsert h1', 'deleted metal3/h1']);
});

test('local store - a user\'s finalizer and annotation changes emit upsert; the host actor\'s own (fenced) writes, and no-ops, emit nothing', async (t) => {
  const store = await open(t);
  await applied(store, [host('h1')]);
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  const fence = { shard: 1, epoch: 2, holder: 'node-a' };
  await store.addFinalizer('metal3/h1', FINALIZER);
  await store.addFinalizer('metal3/h1', FINALIZER);
  await store.applyIntent('metal3/h1', { annotations: { 'inspect.metal3.io': '' } });
  await store.applyIntent('metal3/h1', { annotations: { 'inspect.metal3.io': '' } });
  // The host actor's own: it made the change, so it is not told it back (issue 29.5).
  await store.removeAnnotation('metal3/h1', 'inspect.metal3.io', fence);
  await store.removeAnnotation('metal3/h1', 'inspect.metal3.io', fence);
  await store.removeFinalizer('metal3/h1', FINALIZER, fence);
  await store.removeFinalizer('metal3/h1', FINALIZER);
  t.deepEqual(names(events), ['upsert h1', 'upsert h1']);
  // A user's removal of an annotation (re-attaching a detached host) wakes the host.
  await store.applyIntent('metal3/h1', { annotations: { 'baremetalhost.metal3.io/detached': '' } });
  await store.removeAnnotation('metal3/h1', 'baremetalhost.metal3.io/detached');
  t.deepEqual(names(events), ['upsert h1', 'upsert h1', 'upsert h1', 'upsert h1']);
  const h = (await store.get('metal3/h1'))!;
  t.is(h.metadata.finalizers, undefined);
  t.is(h.metadata.annotations, undefined);
  t.is(h.metadata.generation, 1);
});

test('local store - watch events reach listeners before the write returns, in order, past a throwing listener', async (t) => {
  const reported: string[] = [];
  const log: Logger = { ...silentLogger, warn: (obj) => reported.push(String((obj as { event?: unknown }).event)), child: () => log };
  const store = await open(t, log);
  await applied(store, [host('h1')]);
  const seen: string[] = [];
  store.watch(() => {
    throw new Error('boom');
  });
  // A listener that causes an event: the event it causes comes after the current one everywhere.
  store.watch((e) => {
    seen.push(`a:${names([e])[0]}`);
    if (e.type === 'upsert' && !e.host.metadata.annotations?.['y']) void store.applyIntent('metal3/h1', { annotations: { y: '1' } });
  });
  const unsubscribe = store.watch((e) => seen.push(`b:${names([e])[0]}`));
  await store.applyIntent('metal3/h1', { annotations: { x: '1' } });
  t.deepEqual(seen.slice(0, 2), ['a:upsert h1', 'b:upsert h1']);
  await waitUntil(() => seen.length === 4, 5_000, 'the event the listener caused');
  t.deepEqual(seen, ['a:upsert h1', 'b:upsert h1', 'a:upsert h1', 'b:upsert h1']);
  t.deepEqual(reported, ['upsert', 'upsert']);
  unsubscribe();
  await store.applyIntent('metal3/h1', { annotations: { x: '2' } });
  t.is(seen.length, 5);
});

test('local store - operations on a missing host fail with a non-retryable StoreError', async (t) => {
  const store = await open(t);
  for (const run of [
    () => store.addFinalizer('metal3/x', FINALIZER),
    () => store.removeFinalizer('metal3/x', FINALIZER),
    () => store.removeAnnotation('metal3/x', 'a'),
    () => store.applyIntent('metal3/x', { annotations: { a: 'b' } }),
    () => store.applyIntent('metal3/x', { online: false }),
    () => store.writeStatus('metal3/x', status('available')),
    () => store.requestDelete('metal3/x'),
  ]) {
    const error = await t.throwsAsync(run(), { instanceOf: StoreError, message: /metal3\/x not found/ });
    t.false(error!.retryable);
  }
});

// A status write among 100,000 hosts is one compare-and-set of that host's status key: no listing,
// no read, nothing of the fleet touched (speed itself is the lifecycle benchmark's to measure).
test('local store - a status write among 100,000 hosts is one compare-and-set of its own key', async (t) => {
  const bus = createMemoryBus();
  const calls: string[] = [];
  const counting: Pick<Transport, 'kv'> = {
    async kv(name, options) {
      const bucket = await bus.kv.bucket(name, options);
      return new Proxy(bucket, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(`${name} ${String(prop)} ${typeof args[0] === 'string' ? args[0] : ''}`.trim());
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    },
  };
  const store = await openLocalStore(counting);
  t.teardown(() => store.close());
  const count = 100_000;
  t.is((await store.applyObjects(Array.from({ length: count }, (_, i) => host(`h${i}`)))).created.length, count);
  for (const i of [0, 4_711, 99_999]) {
    calls.length = 0;
    await store.writeStatus(`metal3/h${i}`, status('available'));
    t.deepEqual(calls, [`mf-status create metal3.h${i}`], `first write of h${i}`);
    calls.length = 0;
    await store.writeStatus(`metal3/h${i}`, status('provisioned'));
    t.deepEqual(calls, [`mf-status update metal3.h${i}`], `second write of h${i}`);
  }
  t.is((await store.get('metal3/h4711'))?.status?.provisioning.state, 'provisioned');
});
