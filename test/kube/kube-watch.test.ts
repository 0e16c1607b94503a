// The adapter's informers against a flaky API server: expired history (410), watches cut
// mid-stream, failing lists. No change may be lost, writes made on a stale cache must resolve,
// and a node that lost its shard must not overwrite the new owner's status.
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import type { KubeAdapter } from '../../src/adapters/kube/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { initialStatus } from '../../src/api/index.ts';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { silentLogger, StaleFence } from '../../src/ports/index.ts';
import { bmh, secret } from '../support/node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';
import type { KubeApiServer, KubeObject } from '../support/kube-api/index.ts';
import { startApi } from './support/kube-node.ts';

const ref = (name: string) => ({ resource: 'baremetalhosts', namespace: 'lab', name });

interface Watched {
  readonly adapter: KubeAdapter;
  readonly events: string[];
  stop(): Promise<void>;
}

async function watchHosts(api: KubeApiServer, nodeName = 'a'): Promise<Watched> {
  const system = startSystem({ name: `kube-watch-${nodeName}`, onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName });
  const events: string[] = [];
  adapter.store.watch<'BareMetalHost'>((e) => events.push(e.type === 'deleted' ? `deleted ${e.key}` : `upsert ${e.object.metadata.name} online=${String(e.object.spec.online)}`), { kinds: ['BareMetalHost'] });
  await adapter.start(system);
  return {
    adapter, events,
    async stop() {
      await adapter.close();
      system.stop();
    },
  };
}

const status = (state: BareMetalHostStatus['provisioning']['state'], extra: Partial<BareMetalHostStatus> = {}): BareMetalHostStatus => ({ ...initialStatus(), provisioning: { state, ID: '' }, ...extra });

test('kube watch - a watch cut mid-stream resumes from its last resourceVersion and loses no change', async (t) => {
  const api = await startApi();
  api.create(bmh('h1') as KubeObject);
  api.create(bmh('h3') as KubeObject);
  const w = await watchHosts(api);
  try {
    await waitFor(() => w.events.length === 2, 5_000, 'initial list');
    // Cut the watch and keep it down for two attempts while things change.
    const down = api.failNext({ verb: 'watch', resource: 'baremetalhosts', status: 500, times: 2 });
    t.is(api.dropWatches({ resource: 'baremetalhosts' }), 1);
    api.create(bmh('h2') as KubeObject);
    api.patch(ref('h1'), { spec: { online: false } });
    api.delete(ref('h3'));
    await waitFor(() => w.events.length === 5, 10_000, 'every change delivered');
    t.deepEqual(w.events.slice(2).sort(), ['deleted lab/h3', 'upsert h1 online=false', 'upsert h2 online=true']);
    t.is(down.fired, 2);
    t.is(api.requests({ verb: 'list', resource: 'baremetalhosts' }).length, 1, 'resumed by watch, not re-listed');
    const bmhInformer = w.adapter.informers().find((i) => i.resource === 'BareMetalHost');
    t.like(bmhInformer, { phase: 'watching', synced: true, errors: 3, restarts: 3 });
  } finally {
    await w.stop();
    await api.close();
  }
});

test('kube watch - a watch whose history expired (410) re-lists: deletions and changes in between are delivered', async (t) => {
  const api = await startApi({ historyLimit: 5 });
  api.create(bmh('h1') as KubeObject);
  api.create(bmh('h3') as KubeObject);
  const w = await watchHosts(api);
  try {
    await waitFor(() => w.events.length === 2, 5_000, 'initial list');
    api.failNext({ verb: 'watch', resource: 'baremetalhosts', status: 500, times: 1 });
    api.dropWatches({ resource: 'baremetalhosts' });
    api.create(bmh('h2') as KubeObject);
    api.patch(ref('h1'), { spec: { online: false } });
    api.delete(ref('h3'));
    api.expireHistory();
    await waitFor(() => w.events.length === 5, 10_000, 'every change delivered');
    t.deepEqual(w.events.slice(2).sort(), ['deleted lab/h3', 'upsert h1 online=false', 'upsert h2 online=true']);
    t.is(api.requests({ verb: 'list', resource: 'baremetalhosts' }).length, 2, 'listed again after 410');
    t.deepEqual((await w.adapter.store.list('BareMetalHost')).map((h) => h.metadata.name).sort(), ['h1', 'h2']);
  } finally {
    await w.stop();
    await api.close();
  }
});

test('kube watch - failing lists at start: restarted with backoff, synced once they succeed', async (t) => {
  const api = await startApi();
  api.failNext({ verb: 'list', resource: 'secrets', status: 503, times: 3 });
  const w = await watchHosts(api);
  try {
    const secrets = w.adapter.informers().find((i) => i.resource === 'Secret');
    t.like(secrets, { synced: true, errors: 3, restarts: 3 });
    t.regex(secrets?.lastError ?? '', /503/);
    t.true(w.adapter.isSynced);
  } finally {
    await w.stop();
    await api.close();
  }
});

test('kube watch - a status write on a stale cache meets a real 409, re-reads, and writes the node\'s status', async (t) => {
  const api = await startApi();
  api.create(bmh('h1') as KubeObject);
  const w = await watchHosts(api);
  try {
    await w.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('registering'));
    // The watch is down: the next foreign writes do not reach the cache.
    api.failNext({ verb: 'watch', resource: 'baremetalhosts', status: 500, times: 1_000 });
    api.dropWatches({ resource: 'baremetalhosts' });
    const current = api.get(ref('h1')) as { status: Record<string, unknown> };
    api.patch(ref('h1'), { status: { ...current.status, errorMessage: 'theirs', hardwareProfile: 'theirs' } }, { subresource: 'status' });
    api.patch(ref('h1'), { spec: { online: false } });
    const before = api.requests().length;
    await w.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('inspecting'));
    const mine = api.requests().slice(before).filter((r) => r.resource === 'baremetalhosts' && r.verb !== 'watch').map((r) => `${r.method} ${r.subresource || 'main'} ${r.code}`);
    t.deepEqual(mine, ['PATCH status 409', 'GET status 200', 'PATCH status 200']);
    const stored = api.get(ref('h1')) as { spec: { online: boolean }; status: { provisioning: { state: string }; errorMessage: string; hardwareProfile?: string } };
    t.is(stored.status.provisioning.state, 'inspecting');
    t.is(stored.status.errorMessage, '');
    t.is(stored.status.hardwareProfile, undefined);
    t.false(stored.spec.online, 'the spec change stays');
    api.clearFaults();
    await waitFor(() => w.events.includes('upsert h1 online=false'), 10_000, 'the spec change delivered once the watch is back');
  } finally {
    await w.stop();
    await api.close();
  }
});

test('kube watch - two fences on one host: the newer epoch claims it, the older one is refused (StaleFence)', async (t) => {
  const api = await startApi();
  api.create(bmh('h1') as KubeObject);
  const a = await watchHosts(api, 'node-a');
  const b = await watchHosts(api, 'node-b');
  try {
    const oldFence = { shard: 3, epoch: 5, holder: 'node-a' };
    const newFence = { shard: 3, epoch: 9, holder: 'node-b' };
    await a.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('provisioning'), oldFence);
    t.is((api.get(ref('h1')) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.['metalfleet.io/owner'], '3/5/node-a');
    // The shard moves: b claims the host with a newer epoch and writes.
    await b.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('provisioned'), newFence);
    t.is((api.get(ref('h1')) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.['metalfleet.io/owner'], '3/9/node-b');
    // a still has the old epoch: refused, whether its cache has seen b's claim yet or not.
    const error = await t.throwsAsync(a.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('deprovisioning'), oldFence), { instanceOf: StaleFence });
    t.regex(error.message, /epoch 5 of node-a is older than epoch 9/);
    await waitUntil(async () => (await a.adapter.store.get('BareMetalHost', 'lab/h1'))?.metadata.annotations?.['metalfleet.io/owner'] === '3/9/node-b', 5_000, 'a sees the claim');
    const before = api.requests({ method: 'PATCH' }).length;
    await t.throwsAsync(a.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('deprovisioning'), oldFence), { instanceOf: StaleFence });
    t.is(api.requests({ method: 'PATCH' }).length, before, 'refused from the cache, no request');
    t.is((api.get(ref('h1')) as { status: { provisioning: { state: string } } }).status.provisioning.state, 'provisioned');
    // The claim is metadata the host does not react to: no upsert for it.
    t.false(a.events.some((e) => e.startsWith('upsert h1') && e !== 'upsert h1 online=true'));
  } finally {
    await a.stop();
    await b.stop();
    await api.close();
  }
});

test('kube watch - a write failure names the object and the call, and never a Secret', async (t) => {
  const api = await startApi();
  api.create(secret('bmc', 'lab', { username: 'admin', password: 'Sup3rS3cret!' }) as KubeObject);
  api.create(bmh('h1') as KubeObject);
  const w = await watchHosts(api);
  try {
    api.failNext({ method: 'PATCH', resource: 'baremetalhosts', subresource: 'status', status: 503, times: 1, message: 'etcd is down' });
    const unavailable = await t.throwsAsync(w.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('registering')));
    t.true((unavailable as { retryable?: boolean }).retryable);
    t.regex(unavailable.message, /^writing the status of BareMetalHost lab\/h1: .*HTTP 503.*etcd is down/);
    api.delete(ref('h1'));
    const gone = await t.throwsAsync(w.adapter.store.writeStatus('BareMetalHost', 'lab/h1', status('registering')));
    t.false((gone as { retryable?: boolean }).retryable);
    t.regex(gone.message, /BareMetalHost lab\/h1 not found/);
    t.false(`${unavailable.message}${gone.message}`.includes('Sup3rS3cret'));
  } finally {
    await w.stop();
    await api.close();
  }
});

test('kube watch - requestDelete: a host without finalizers is gone at once, one with them is terminating', async (t) => {
  const api = await startApi();
  api.create(bmh('plain') as KubeObject);
  api.create({ ...(bmh('held') as KubeObject), metadata: { name: 'held', namespace: 'lab', finalizers: ['baremetalhost.metal3.io'] } });
  const w = await watchHosts(api);
  try {
    t.is(await w.adapter.store.requestDelete('BareMetalHost', 'lab/plain'), 'deleted');
    t.is(await w.adapter.store.requestDelete('BareMetalHost', 'lab/held'), 'terminating');
    t.is(await w.adapter.store.get('BareMetalHost', 'lab/plain'), undefined);
    t.truthy((await w.adapter.store.get('BareMetalHost', 'lab/held'))?.metadata.deletionTimestamp);
    await waitFor(() => w.events.filter((e) => e === 'deleted lab/plain').length === 1, 5_000, 'one deleted event');
    await t.throwsAsync(w.adapter.store.requestDelete('BareMetalHost', 'lab/none'), { message: /BareMetalHost lab\/none not found/ });
  } finally {
    await w.stop();
    await api.close();
  }
});
