import test from 'ava';
import { ObjectWriter } from '../../src/adapters/kube/object-writer.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { WriteLanes } from '../../src/adapters/kube/write-lanes.ts';
import { silentLogger, StaleFence, StoreError } from '../../src/ports/index.ts';
import { FakeServer } from './support/fake-client.ts';

const KEY = 'lab/h1';

function setup(status?: Record<string, unknown>, annotations?: Record<string, string>) {
  const server = new FakeServer();
  const stored = server.put({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab', ...(annotations ? { annotations } : {}) }, spec: { online: true }, ...(status ? { status } : {}) });
  const cache = new ResourceCache(RESOURCES.BareMetalHost, silentLogger);
  cache.observe('add', stored);
  const writer = new ObjectWriter(RESOURCES.BareMetalHost, { client: server.client(), cache, lanes: new WriteLanes(), log: silentLogger, sleep: async () => undefined, random: () => 0.5 });
  return { server, cache, writer };
}

test('object writer - a status write sends only the difference, nulls for removed keys, with the RV it started from', async (t) => {
  const { server, writer } = setup({ state: 'registering', errorMessage: 'x', hardware: { ram: 1 } });
  await writer.writeStatus(KEY, { state: 'inspecting', hardware: { ram: 1 } });
  const [patch] = server.statusPatches(KEY);
  t.deepEqual(patch?.body, { metadata: { resourceVersion: '101' }, status: { state: 'inspecting', errorMessage: null } });
  t.deepEqual((server.objects.get(KEY) as { status?: unknown }).status, { state: 'inspecting', hardware: { ram: 1 } });
});

test('object writer - the next write starts from the RV our previous write returned (no conflict)', async (t) => {
  const { server, writer } = setup();
  await writer.writeStatus(KEY, { state: 'registering' });
  await writer.writeStatus(KEY, { state: 'inspecting' });
  t.deepEqual(server.statusPatches(KEY).map((r) => (r.body?.['metadata'] as { resourceVersion: string }).resourceVersion), ['101', '102']);
  t.false(server.requests.some((r) => r.verb === 'get'));
});

test('object writer - an unchanged status is not written at all', async (t) => {
  const { server, writer } = setup({ state: 'available' });
  await writer.writeStatus(KEY, { state: 'available' });
  t.is(server.requests.length, 0);
});

test('object writer - someone else wrote meanwhile: 409, read again, recompute from their status, write ours', async (t) => {
  const { server, writer } = setup({ state: 'registering' });
  server.touch(KEY, { status: { state: 'registering', foreign: 'theirs' } });
  await writer.writeStatus(KEY, { state: 'inspecting' });
  const patches = server.statusPatches(KEY);
  t.is(patches.length, 2);
  t.deepEqual(patches[1]?.body, { metadata: { resourceVersion: '102' }, status: { state: 'inspecting', foreign: null } });
  t.deepEqual(server.requests.filter((r) => r.verb === 'get').map((r) => r.sub), ['status']);
  t.deepEqual((server.objects.get(KEY) as { status?: unknown }).status, { state: 'inspecting' });
});

test('object writer - a writer that keeps losing gives up with a retryable error naming the object', async (t) => {
  const { server, writer } = setup({ state: 'registering' });
  server.before = (r) => {
    if (r.verb === 'patch') server.touch(KEY, { metadata: { labels: { bump: String(Math.random()) } } });
  };
  const error = await t.throwsAsync(writer.writeStatus(KEY, { state: 'inspecting' }), { instanceOf: StoreError });
  t.true(error.retryable);
  t.regex(error.message, /writing the status of BareMetalHost lab\/h1: 8 attempts all conflicted/);
});

test('object writer - a fenced write claims the host first, then writes with the claim\'s RV', async (t) => {
  const { server, writer } = setup({ state: 'registering' });
  await writer.writeStatus(KEY, { state: 'inspecting' }, { shard: 3, epoch: 12, holder: 'a' });
  const [claim, status] = server.requests;
  t.deepEqual(claim?.body, { metadata: { annotations: { 'metalfleet.io/owner': '3/12/a' }, resourceVersion: '101' } });
  t.deepEqual(status?.body, { metadata: { resourceVersion: '102' }, status: { state: 'inspecting' } });
  await writer.writeStatus(KEY, { state: 'preparing' }, { shard: 3, epoch: 12, holder: 'a' });
  t.is(server.requests.length, 3, 'claimed once');
});

test('object writer - a write with an epoch older than the claim on the host is refused (StaleFence)', async (t) => {
  const { server, writer } = setup({ state: 'registering' }, { 'metalfleet.io/owner': '3/20/b' });
  const error = await t.throwsAsync(writer.writeStatus(KEY, { state: 'inspecting' }, { shard: 3, epoch: 12, holder: 'a' }), { instanceOf: StaleFence });
  t.false(error.retryable);
  t.is(server.requests.length, 0);
});

test('object writer - a newer owner claims while we write: the 409 re-read shows it and the write is refused', async (t) => {
  const { server, writer } = setup({ state: 'registering' }, { 'metalfleet.io/owner': '3/12/a' });
  server.touch(KEY, { metadata: { annotations: { 'metalfleet.io/owner': '3/30/b' } }, status: { state: 'provisioned' } });
  await t.throwsAsync(writer.writeStatus(KEY, { state: 'inspecting' }, { shard: 3, epoch: 12, holder: 'a' }), { instanceOf: StaleFence });
  t.deepEqual((server.objects.get(KEY) as { status?: unknown }).status, { state: 'provisioned' });
});

test('object writer - finalizers are replaced whole, so they are written with the RV and recomputed on 409', async (t) => {
  const { server, cache, writer } = setup();
  server.touch(KEY, { metadata: { finalizers: ['theirs'] } });
  await writer.mutate(KEY, (cur) => ({ metadata: { finalizers: [...(cur.metadata.finalizers ?? []), 'ours'] } }), { what: 'adding finalizer ours', precondition: true });
  t.deepEqual(server.objects.get(KEY)?.metadata.finalizers, ['theirs', 'ours']);
  t.deepEqual(cache.get(KEY)?.metadata.finalizers, ['theirs', 'ours']);
});

test('object writer - a write on a host that is gone is a non-retryable not-found error', async (t) => {
  const { server, writer } = setup();
  server.objects.delete(KEY);
  const error = await t.throwsAsync(writer.writeStatus(KEY, { state: 'x' }), { instanceOf: StoreError });
  t.false(error.retryable);
  t.regex(error.message, /BareMetalHost lab\/h1 not found/);
});

test('object writer - removing the last finalizer of a deleted host removes it from the cache', async (t) => {
  const { server, cache, writer } = setup();
  server.touch(KEY, { metadata: { finalizers: ['f'], deletionTimestamp: '2026-01-01T00:00:00Z' } });
  await writer.mutate(KEY, () => ({ metadata: { finalizers: null } }), { what: 'removing finalizer f', precondition: true });
  t.false(server.objects.has(KEY));
  t.is(cache.get(KEY), undefined);
});
