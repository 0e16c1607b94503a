// Every write of a shard's owner carries its fence, not only status: finalizers and the
// annotations the controller removes too. A write at an epoch older than one that has written
// the object is refused (StaleFence) and counted; the newer owner's writes pass; writes without a
// fence (one owner: the embedded node, user intent) are never checked.
import test from 'ava';
import type { BareMetalHost } from '../../src/api/index.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET, openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import { createMemoryBus, type MemoryBus } from '../../src/bus/index.ts';
import { StaleFence, type Fence } from '../../src/ports/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { waitUntil } from '../support/wait.ts';
import { kvRecord } from '../support/local-store.ts';

const KEY = 'metal3/h1';
const REBOOT = 'reboot.metal3.io';
const INSPECT = 'inspect.metal3.io';
const OLD: Fence = { shard: 2, epoch: 5, holder: 'node-a' };
const NEW: Fence = { shard: 2, epoch: 9, holder: 'node-b' };

function host(name: string): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'metal3', annotations: { [REBOOT]: '{"mode":"soft"}', [INSPECT]: '' } },
    spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` } },
  };
}

function status(state: 'registering' | 'available' | 'provisioned'): NonNullable<BareMetalHost['status']> {
  return { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state, ID: 'node-1' } };
}

interface Pair {
  readonly bus: MemoryBus;
  /** The old owner's node, with every refusal it was told of. */
  readonly a: NatsStore;
  readonly refusedA: StaleFence[];
  /** The new owner's node. */
  readonly b: NatsStore;
}

/** Two nodes' stores over one in-memory KV, as nodes of a cluster have them, with h1 applied. */
async function pair(t: { teardown(fn: () => Promise<void>): void }): Promise<Pair> {
  const bus = createMemoryBus();
  const refusedA: StaleFence[] = [];
  const a = await openNatsStoreOn(bus.connect('a'), { onStaleFence: (e) => refusedA.push(e) });
  const b = await openNatsStoreOn(bus.connect('b'));
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const applied = await a.apply([host('h1')]);
  if (!applied.ok) throw new Error(JSON.stringify(applied.issues));
  await waitUntil(async () => (await b.get(KEY)) !== undefined, 2_000, 'b has h1');
  return { bus, a, refusedA, b };
}

async function specRecord(bus: MemoryBus): Promise<Record<string, unknown> & { fence?: Fence; metadata: { finalizers?: string[]; annotations?: Record<string, string> } }> {
  const entry = await (await bus.connect('reader').kv(NATS_HOSTS_BUCKET)).get(hostKvKey(KEY));
  return kvRecord(entry!.value) as Awaited<ReturnType<typeof specRecord>>;
}

test('nats store fencing - finalizer and annotation writes: an older epoch after a newer one is refused and counted', async (t) => {
  const { bus, a, refusedA, b } = await pair(t);
  await a.addFinalizer(KEY, 'old.metalfleet.io', OLD);
  t.deepEqual((await specRecord(bus)).fence, OLD, 'the first owner\'s fence is recorded with its write');
  // The shard moves to b, whose first write is a finalizer.
  await b.addFinalizer(KEY, 'new.metalfleet.io', NEW);
  t.deepEqual((await specRecord(bus)).fence, NEW);

  // a may not have seen b's write yet: the compare-and-set makes it look, and it is refused.
  const removing = await t.throwsAsync(a.removeFinalizer(KEY, 'old.metalfleet.io', OLD), { instanceOf: StaleFence });
  t.is(removing.current, 9);
  t.false(removing.retryable);
  t.is(removing.message, 'removing finalizer old.metalfleet.io from BareMetalHost metal3/h1 refused: shard 2 epoch 5 of node-a is older than epoch 9, which has written since (this node no longer owns the shard)');
  await t.throwsAsync(a.removeAnnotation(KEY, REBOOT, OLD), { instanceOf: StaleFence, message: /^removing annotation reboot\.metal3\.io from BareMetalHost metal3\/h1 refused/ });
  await t.throwsAsync(a.addFinalizer(KEY, 'late.metalfleet.io', OLD), { instanceOf: StaleFence });
  // b's finalizer write counts for status too: one highest epoch per host.
  await t.throwsAsync(a.writeStatus(KEY, status('available'), OLD), { instanceOf: StaleFence });
  t.is(a.staleFenceRefusals(), 4);
  t.is(refusedA.length, 4, 'onStaleFence told of each');
  t.true(refusedA.every((e) => e.fence.epoch === 5 && e.current === 9));

  // Nothing a wrote after losing the shard is in the store.
  const after = await specRecord(bus);
  t.deepEqual(after.metadata.finalizers, ['old.metalfleet.io', 'new.metalfleet.io']);
  t.is(after.metadata.annotations?.[REBOOT], '{"mode":"soft"}');
  t.is((await (await bus.connect('reader').kv(NATS_STATUS_BUCKET)).get(hostKvKey(KEY))), null);

  // The newer owner's writes pass.
  await b.removeAnnotation(KEY, REBOOT, NEW);
  await b.removeFinalizer(KEY, 'old.metalfleet.io', NEW);
  await b.writeStatus(KEY, status('available'), NEW);
  const now = await b.get(KEY);
  t.deepEqual(now?.metadata.finalizers, ['new.metalfleet.io']);
  t.is(now?.metadata.annotations?.[REBOOT], undefined);
  t.is(b.staleFenceRefusals(), 0);

  // Without a fence (a single owner) writes are not checked, and the recorded fence stays.
  await a.removeAnnotation(KEY, INSPECT);
  await a.addFinalizer(KEY, 'plain.metalfleet.io');
  const last = await specRecord(bus);
  t.deepEqual(last.metadata.finalizers, ['new.metalfleet.io', 'plain.metalfleet.io']);
  t.is(last.metadata.annotations, undefined);
  t.deepEqual(last.fence, NEW);
  t.is(a.staleFenceRefusals(), 4);
});

test('nats store fencing - a newer owner\'s status write refuses the older owner\'s finalizer and annotation writes', async (t) => {
  const { a, b } = await pair(t);
  await b.writeStatus(KEY, status('registering'), NEW);
  await t.throwsAsync(a.addFinalizer(KEY, 'old.metalfleet.io', OLD), { instanceOf: StaleFence, message: /older than epoch 9/ });
  await t.throwsAsync(a.removeAnnotation(KEY, INSPECT, OLD), { instanceOf: StaleFence });
  t.is(a.staleFenceRefusals(), 2);
  t.is((await b.get(KEY))?.metadata.finalizers, undefined);
  // The same epoch is the same owner: it writes as often as it likes.
  await b.addFinalizer(KEY, 'new.metalfleet.io', NEW);
  await b.removeAnnotation(KEY, INSPECT, NEW);
  await b.writeStatus(KEY, status('available'), NEW);
  t.deepEqual((await b.get(KEY))?.metadata.finalizers, ['new.metalfleet.io']);
});

test('nats store fencing - the fence is the store\'s bookkeeping: never on a host read or watched, kept across apply', async (t) => {
  const { bus, a, b } = await pair(t);
  const events: HostEvent[] = [];
  a.watch((e) => events.push(e));
  await b.addFinalizer(KEY, 'new.metalfleet.io', NEW);
  await waitUntil(() => events.length > 0, 2_000, 'a sees b\'s write');
  const seen = events[0]!;
  t.true(seen.type === 'upsert' && !('fence' in seen.host));
  t.false('fence' in (await a.get(KEY))!);
  t.false((await a.list()).some((h) => 'fence' in h));

  // A user re-applies the host with another spec: the owner's fence stays on the record.
  const changed = { ...host('h1'), spec: { ...(host('h1')['spec'] as object), online: false } };
  const applied = await a.apply([changed]);
  t.true(applied.ok, JSON.stringify(applied));
  t.deepEqual((await specRecord(bus)).fence, NEW);
  await t.throwsAsync(a.removeAnnotation(KEY, INSPECT, OLD), { instanceOf: StaleFence });
});

test('kv object store fencing - status, spec and finalizer writes of an older epoch are refused and counted', async (t) => {
  const refused: StaleFence[] = [];
  const transport = createMemoryBus().connect('a');
  const store = await openKvStoreOn(transport, { hosts: false, onStaleFence: (e) => refused.push(e) });
  t.teardown(async () => {
    await store.close();
    await transport.close();
  });
  const mm = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm1', namespace: 'capi' }, spec: { image: 'ubuntu/jammy' } };
  t.true((await store.apply([mm])).ok);
  const key = 'capi/m1';
  await store.writeStatus('MaasMachine', key, { ready: false }, OLD);
  await store.addFinalizer('MaasMachine', key, 'maas.metalfleet.io', NEW);
  await t.throwsAsync(store.writeStatus('MaasMachine', key, { ready: true }, OLD), { instanceOf: StaleFence, message: /^writing the status of MaasMachine capi\/m1 refused: shard 2 epoch 5 of node-a is older than epoch 9/ });
  await t.throwsAsync(store.patchSpec('MaasMachine', key, { systemID: 'abc' }, OLD), { instanceOf: StaleFence });
  await t.throwsAsync(store.removeFinalizer('MaasMachine', key, 'maas.metalfleet.io', OLD), { instanceOf: StaleFence });
  await t.throwsAsync(store.addFinalizer('MaasMachine', key, 'other', OLD), { instanceOf: StaleFence });
  t.is(store.staleFenceRefusals(), 4);
  t.is(refused.length, 4);
  const stored = await store.get('MaasMachine', key);
  t.deepEqual(stored?.status, { ready: false });
  t.deepEqual(stored?.spec, { image: 'ubuntu/jammy' });
  t.deepEqual(stored?.metadata.finalizers, ['maas.metalfleet.io']);

  // The newer owner, and writers without a fence, go through.
  await store.patchSpec('MaasMachine', key, { systemID: 'abc' }, NEW);
  await store.writeStatus('MaasMachine', key, { ready: true }, NEW);
  await store.writeStatus('MaasMachine', key, { ready: true, note: 'unfenced' });
  t.deepEqual((await store.get('MaasMachine', key))?.status, { ready: true, note: 'unfenced' });

  // A deleted object takes its epochs with it: a new one of the same name starts over.
  await store.removeFinalizer('MaasMachine', key, 'maas.metalfleet.io', NEW);
  t.is(await store.requestDelete('MaasMachine', key), 'deleted');
  t.true((await store.apply([mm])).ok);
  await store.writeStatus('MaasMachine', key, { ready: false }, OLD);
  t.is(store.staleFenceRefusals(), 4);
});
