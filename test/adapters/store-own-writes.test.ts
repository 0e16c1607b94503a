// The store does not tell its node back the writes that node's host actors made themselves
// (issue 29.5): a finalizer or annotation the actor wrote is in its state already, and a status
// write wakes nobody. The same writes by another node's store, or a user's change, still wake it.
import test from 'ava';
import { initialStatus, type BareMetalHostStatus } from '../../src/api/index.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStore } from '../../src/adapters/store/nats-store.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { hostManifest } from '../support/host-manifest.ts';
import { waitUntil } from '../support/wait.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';

const KEY = 'metal3/h1';
const FINALIZER = 'baremetalhost.metal3.io';

function status(state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus {
  const s = initialStatus();
  return { ...s, provisioning: { ...s.provisioning, state } };
}

// A bucket that counts the reads made through it.
function counting(bucket: KvBucket): { bucket: KvBucket; reads: () => number } {
  let reads = 0;
  const wrapped = wrappedBucket(bucket, {
    get: (key) => {
      reads += 1;
      return bucket.get(key);
    },
  });
  return { bucket: wrapped, reads: () => reads };
}

function upserts(events: HostEvent[]): number {
  return events.filter((e) => e.type === 'upsert').length;
}

test('store own writes - the node\'s own finalizer, annotation and status writes wake none of its watchers, nor read the KV; another node\'s do wake it', async (t) => {
  const kv = new MemoryKvStore();
  const specs = counting(kv.bucket(NATS_HOSTS_BUCKET));
  const statusBucket = counting(kv.bucket(NATS_STATUS_BUCKET));
  const a = await openNatsStore({ specs: specs.bucket, status: statusBucket.bucket });
  const b = await openNatsStore({ specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) });
  t.teardown(() => Promise.all([a.close(), b.close()]));
  t.true((await a.apply([hostManifest('h1', {}, { annotations: { 'reboot.metal3.io': '' } })])).ok);
  await waitUntil(async () => (await b.get(KEY)) !== undefined, 2_000, 'b has h1');
  const seenByA: HostEvent[] = [];
  const seenByB: HostEvent[] = [];
  a.watch((e) => seenByA.push(e));
  b.watch((e) => seenByB.push(e));
  const readsBefore = specs.reads() + statusBucket.reads();
  const fence = { shard: 1, epoch: 2, holder: 'node-a' };
  await a.addFinalizer(KEY, FINALIZER, fence);
  await a.writeStatus(KEY, status('registering'), fence);
  await a.removeAnnotation(KEY, 'reboot.metal3.io', fence);
  await a.writeStatus(KEY, status('inspecting'), fence);
  // The echoes of those writes have come back through a's watch by the time b has seen them.
  await waitUntil(async () => upserts(seenByB) === 2, 2_000, 'b sees both spec writes of a');
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.is(upserts(seenByA), 0, 'a woke its own watchers');
  t.is(specs.reads() + statusBucket.reads(), readsBefore, 'a read the KV for its own writes');
  const own = await a.get(KEY);
  t.deepEqual(own?.metadata.finalizers, [FINALIZER]);
  t.is(own?.metadata.annotations?.['reboot.metal3.io'], undefined);
  t.is(own?.status?.provisioning.state, 'inspecting');

  // Another node (b, the shard's next owner) writes: a is told.
  await b.removeFinalizer(KEY, FINALIZER, { shard: 1, epoch: 3, holder: 'node-b' });
  await waitUntil(async () => upserts(seenByA) === 1, 2_000, 'a sees b\'s write');
  t.is((seenByA[0] as Extract<HostEvent, { type: 'upsert' }>).host.metadata.finalizers, undefined);
  // A user's change through a's own store (apply, a command) is not the actor's: it is told.
  await a.applyIntent(KEY, { online: false });
  t.is(upserts(seenByA), 2);
});

test('store own writes - the host\'s actor removing the last finalizer of a deleted host still tells its node the host is gone', async (t) => {
  const kv = new MemoryKvStore();
  const store = await openNatsStore({ specs: kv.bucket(NATS_HOSTS_BUCKET), status: kv.bucket(NATS_STATUS_BUCKET) });
  t.teardown(() => store.close());
  await store.apply([hostManifest('h1')]);
  await store.addFinalizer(KEY, FINALIZER, { shard: 1, epoch: 1, holder: 'n' });
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  t.is(await store.requestDelete(KEY), 'terminating');
  await store.removeFinalizer(KEY, FINALIZER, { shard: 1, epoch: 1, holder: 'n' });
  t.deepEqual(events.map((e) => e.type), ['upsert', 'deleted']);
});
