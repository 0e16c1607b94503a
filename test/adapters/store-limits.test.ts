// Permanent is permanent (issue 19.5): an object NATS cannot hold, or a name the stores cannot key,
// is refused when it is applied, naming it, or by the store as an error that says not to retry;
// "try again" is said only where trying again can help.
import test, { type ExecutionContext } from 'ava';
import { OBJECT_LAYOUTS } from '../../src/adapters/store/kv-layouts.ts';
import { besideObjects } from '../support/object-buckets.ts';
import { connect } from '@nats-io/transport-node';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { openKvStore } from '../../src/adapters/store/kv-store.ts';
import { OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import type { BareMetalHost } from '../../src/api/index.ts';
import { KvUnavailable, StoreError, type KvBucket } from '../../src/ports/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { hostManifest } from '../support/host-manifest.ts';

const host = hostManifest;

function status(): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state: 'available', ID: 'node-1' } };
}

async function natsBuckets(t: ExecutionContext): Promise<{ specs: KvBucket; status: KvBucket; objects: KvBucket }> {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const nc = await connect({ servers: server.url });
  t.teardown(() => nc.close());
  return { specs: await openNatsKv(nc, NATS_HOSTS_BUCKET), status: await openNatsKv(nc, NATS_STATUS_BUCKET), objects: await openNatsKv(nc, OBJECTS_BUCKET) };
}

async function settle<T>(work: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown; timedOut?: true }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ timedOut: true }>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), ms)));
  try {
    return await Promise.race([work.then((value) => ({ value }), (error: unknown) => ({ error })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

test('store limits - a host too big for a NATS message is refused at apply, naming it; nothing is written', async (t) => {
  const { specs, status: statusBucket } = await natsBuckets(t);
  const store = await openNatsStore({ specs, status: statusBucket });
  t.teardown(() => store.close());
  // 1.1 MB of description: over NATS's 1 MiB max_payload.
  const result = await settle(store.apply([host('small'), host('big', { description: 'x'.repeat(1_100_000) })], 'hosts.yaml'), 20_000);
  t.falsy(result.timedOut, 'apply answered');
  t.falsy(result.error, `apply threw ${String(result.error)}`);
  t.false(result.value?.ok);
  t.deepEqual(result.value?.issues.map((i) => [i.key, i.path]), [['metal3/big', '(root)']]);
  t.regex(result.value?.issues[0]?.message ?? '', /^Too long: the object is 1 MiB as JSON/);
  t.deepEqual(await specs.keys(), []);
});

test('store limits - a 5,000-character name is refused at apply, on metadata.name, without reaching NATS', async (t) => {
  const { specs, status: statusBucket } = await natsBuckets(t);
  const store = await openNatsStore({ specs, status: statusBucket });
  t.teardown(() => store.close());
  const result = await settle(store.apply([host('n'.repeat(5000))], 'hosts.yaml'), 20_000);
  t.falsy(result.timedOut, 'apply answered');
  t.falsy(result.error, `apply threw ${String(result.error)}`);
  t.false(result.value?.ok);
  t.deepEqual(result.value?.issues.map((i) => i.path), ['metadata.name']);
  t.regex(result.value?.issues[0]?.message ?? '', /must be no more than 253 characters/);
});

test('store limits - a status too big for NATS is a permanent error naming the host, never "try again"', async (t) => {
  const { specs, status: statusBucket } = await natsBuckets(t);
  const store: NatsStore = await openNatsStore({ specs, status: statusBucket });
  t.teardown(() => store.close());
  t.true((await store.apply([host('h1')])).ok);
  const huge = { ...status(), errorMessage: 'e'.repeat(1_100_000) };
  const result = await settle(store.writeStatus('metal3/h1', huge), 20_000);
  t.falsy(result.timedOut, 'the write answered');
  t.true(result.error instanceof StoreError, String(result.error));
  const error = result.error as StoreError;
  t.false(error.retryable);
  t.regex(error.message, /metal3\/h1/);
  t.notRegex(error.message, /try again/);
  // The store is still usable for what fits.
  await store.writeStatus('metal3/h1', status());
  t.is((await store.get('metal3/h1'))?.status?.provisioning.state, 'available');
});

test('store limits - a key the stores cannot hold is a permanent error, not a crash or a retry', async (t) => {
  const { specs, status: statusBucket, objects } = await natsBuckets(t);
  const store = await openNatsStore({ specs, status: statusBucket });
  t.teardown(() => store.close());
  const hostResult = await settle(store.writeStatus(`metal3/${'n'.repeat(5000)}`, status()), 20_000);
  t.falsy(hostResult.timedOut);
  t.true(hostResult.error instanceof StoreError, String(hostResult.error));
  t.false((hostResult.error as StoreError).retryable);
  t.notRegex((hostResult.error as StoreError).message, /try again/);

  const objectStore = await openKvStore({ layouts: OBJECT_LAYOUTS, bucket: besideObjects(objects )});
  t.teardown(() => objectStore.close());
  // A Cluster API Machine has no validator of its own: the store's checks still hold.
  const machine = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm'.repeat(5000), namespace: 'default' }, spec: {} };
  const applied = await settle(objectStore.apply([machine]), 20_000);
  t.falsy(applied.timedOut);
  t.falsy(applied.error, String(applied.error));
  t.false(applied.value?.ok);
  t.deepEqual(applied.value?.issues.map((i) => i.path), ['metadata.name']);
  const big = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm', namespace: 'default' }, spec: { blob: 'x'.repeat(1_100_000) } };
  const bigApplied = await settle(objectStore.apply([big]), 20_000);
  t.false(bigApplied.value?.ok);
  t.deepEqual(bigApplied.value?.issues.map((i) => i.path), ['(root)']);
  t.deepEqual(await objects.keys(), []);
});

test('store limits - an unavailable bucket stays retryable; a payload the server refuses is permanent', async (t) => {
  const kv = new MemoryKvStore();
  const specs = kv.bucket(NATS_HOSTS_BUCKET);
  const statusBucket = kv.bucket(NATS_STATUS_BUCKET);
  let failure: Error | null = null;
  const failing: KvBucket = new Proxy(statusBucket, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if ((prop === 'create' || prop === 'update') && failure) return () => Promise.reject(failure);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const store = await openNatsStore({ specs, status: failing });
  t.teardown(() => store.close());
  t.true((await store.apply([host('h1')])).ok);

  failure = new KvUnavailable(NATS_STATUS_BUCKET, 'metal3.h1: TIMEOUT');
  const timedOut = await store.writeStatus('metal3/h1', status()).catch((e: unknown) => e);
  t.true(timedOut instanceof StoreError);
  t.true((timedOut as StoreError).retryable);
  t.regex((timedOut as StoreError).message, /try again/);

  const payload = Object.assign(new Error('payload: max_payload size exceeded'), { name: 'InvalidArgumentError' });
  failure = new KvUnavailable(NATS_STATUS_BUCKET, 'metal3.h1: payload: max_payload size exceeded', { cause: payload });
  const refused = await store.writeStatus('metal3/h1', status()).catch((e: unknown) => e);
  t.true(refused instanceof StoreError);
  t.false((refused as StoreError).retryable);
  t.notRegex((refused as StoreError).message, /try again/);
  t.regex((refused as StoreError).message, /metal3\/h1/);
});

test('store limits - a value that contains itself is refused at apply, never "unavailable; try again" at the store', async (t) => {
  const kv = new MemoryKvStore();
  const store = await openNatsStore({ specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) });
  t.teardown(() => store.close());
  // The alias makes metadata.x an array that holds itself; metadata keeps unknown fields.
  const text = 'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata: {name: h, namespace: lab, x: &a [*a]}\nspec: {online: true, bootMACAddress: "00:11:22:33:44:55", bmc: {address: "redfish://10.0.0.1/redfish/v1/Systems/1", credentialsName: c}}\n';
  const result = await store.applyManifests(text, 'self.yaml').catch((e: unknown) => e);
  t.false(result instanceof Error, String(result));
  const applied = result as Awaited<ReturnType<NatsStore['applyManifests']>>;
  t.false(applied.ok);
  t.regex(applied.issues[0]?.message ?? '', /alias \*a refers to the value it is in/);
  // Handed over as objects (no YAML), the same value is refused by validation.
  const object: Record<string, unknown> = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h', namespace: 'lab' }, spec: { online: true, bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'c' } } };
  const loop: unknown[] = [];
  loop.push(loop);
  (object.metadata as Record<string, unknown>).x = loop;
  const direct = await store.apply([object]).catch((e: unknown) => e);
  t.false(direct instanceof Error, String(direct));
  t.regex((direct as typeof applied).issues[0]?.message ?? '', /cannot be written as JSON/);
});
