// The KV store builds the object of one version of both records once (issue 30): a host's actor,
// its companions and the store's events each read the same version several times between writes,
// and every read built a fresh object and metadata. Readers never mutate what the store gives them,
// so they share it; any write (spec or status, here or on another node) or a deletion gives a new one.
import test from 'ava';
import { initialStatus, type BareMetalHostStatus } from '../../src/api/index.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore } from '../../src/adapters/store/nats-store.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { hostManifest } from '../support/host-manifest.ts';
import { waitUntil } from '../support/wait.ts';

const KEY = 'metal3/h1';
const FENCE = { shard: 1, epoch: 1, holder: 'node-a' };

function status(state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus {
  const s = initialStatus();
  return { ...s, provisioning: { ...s.provisioning, state } };
}

async function opened(t: import('ava').ExecutionContext, kv = new MemoryKvStore()) {
  const store = await openNatsStore({ specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) });
  t.teardown(() => store.close());
  return store;
}

test('store shared objects - two gets of an unchanged object give the same object, and a list gives it too', async (t) => {
  const store = await opened(t);
  t.true((await store.apply([hostManifest('h1')])).ok);
  await store.writeStatus(KEY, status('registering'), FENCE);
  const first = await store.get(KEY);
  t.truthy(first);
  t.is(await store.get(KEY), first);
  t.is((await store.list()).find((h) => h.metadata.name === 'h1'), first);
});

test('store shared objects - a status write, a spec write and a deletion each give a new object with what changed', async (t) => {
  const store = await opened(t);
  t.true((await store.apply([hostManifest('h1')])).ok);
  await store.writeStatus(KEY, status('registering'), FENCE);
  const before = await store.get(KEY);

  await store.writeStatus(KEY, status('inspecting'), FENCE);
  const afterStatus = await store.get(KEY);
  t.not(afterStatus, before);
  t.is(afterStatus?.status?.provisioning.state, 'inspecting');
  t.is(before?.status?.provisioning.state, 'registering', 'an object handed out earlier keeps its version');
  t.is(afterStatus?.metadata.resourceVersion, before?.metadata.resourceVersion, 'a status write leaves the spec record alone');

  await store.addFinalizer(KEY, 'baremetalhost.metal3.io', FENCE);
  const afterSpec = await store.get(KEY);
  t.not(afterSpec, afterStatus);
  t.deepEqual(afterSpec?.metadata.finalizers, ['baremetalhost.metal3.io']);
  t.is(afterStatus?.metadata.finalizers, undefined);
  t.not(afterSpec?.metadata.resourceVersion, afterStatus?.metadata.resourceVersion);
  t.is(await store.get(KEY), afterSpec);

  await store.removeFinalizer(KEY, 'baremetalhost.metal3.io', FENCE);
  t.is(await store.requestDelete(KEY), 'deleted');
  t.is(await store.get(KEY), undefined);
  t.true((await store.apply([hostManifest('h1')])).ok);
  const again = await store.get(KEY);
  t.truthy(again);
  t.not(again, afterSpec);
  t.not(again?.metadata.uid, afterSpec?.metadata.uid);
});

test('store shared objects - another node\'s write gives this node a new object, told to its watchers as the one a get returns', async (t) => {
  const kv = new MemoryKvStore();
  const a = await opened(t, kv);
  const b = await opened(t, kv);
  t.true((await a.apply([hostManifest('h1')])).ok);
  await waitUntil(async () => (await b.get(KEY)) !== undefined, 2_000, 'b has h1');
  const seen = await b.get(KEY);
  const events: HostEvent[] = [];
  b.watch((e) => events.push(e));
  await a.applyIntent(KEY, { online: false });
  await waitUntil(async () => events.length === 1, 2_000, 'b is told of a\'s change');
  const told = events[0] as Extract<HostEvent, { type: 'upsert' }>;
  const now = await b.get(KEY);
  t.not(now, seen);
  t.is(now?.spec.online, false);
  t.is(told.host as unknown, now as unknown);
});
