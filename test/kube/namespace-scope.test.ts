// An adapter configured for one namespace (BMO's WATCH_NAMESPACE) neither reads nor writes
// objects of another: a write aimed at one is refused before any request, and the object never
// enters the node's caches (no watch would ever tell it changed or went).
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { initialStatus } from '../../src/api/index.ts';
import { silentLogger, StoreError } from '../../src/ports/index.ts';
import { bmh } from '../support/node.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi } from './support/kube-node.ts';

test('kube namespace - a node watching one namespace refuses to write a host of another, and never caches it', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  api.create(bmh('h1', { namespace: 'lab' }) as KubeObject);
  api.create(bmh('h9', { namespace: 'other' }) as KubeObject);
  const system = startSystem({ name: 'kube-namespace', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a', namespace: 'lab' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  const seen: string[] = [];
  adapter.store.watch((e) => seen.push(e.key));
  await adapter.start(system);
  t.deepEqual((await adapter.store.list('BareMetalHost')).map((h) => h.metadata.name), ['h1']);
  const before = api.requests({ resource: 'baremetalhosts' }).filter((r) => r.verb !== 'watch' && r.verb !== 'list').length;

  const intent = adapter.store.applyIntent('BareMetalHost', 'other/h9', { spec: { online: false } });
  const error = await t.throwsAsync(intent, { instanceOf: StoreError });
  t.false(error?.retryable);
  t.regex(error?.message ?? '', /other\/h9/);
  t.regex(error?.message ?? '', /namespace lab/);
  await t.throwsAsync(adapter.store.writeStatus('BareMetalHost', 'other/h9', initialStatus()), { instanceOf: StoreError });
  await t.throwsAsync(adapter.store.addFinalizer('BareMetalHost', 'other/h9', 'metal3.io/x'), { instanceOf: StoreError });

  // Nothing asked of the API server about it, nothing written, nothing cached or told.
  t.is(api.requests({ resource: 'baremetalhosts' }).filter((r) => r.verb !== 'watch' && r.verb !== 'list').length, before);
  const other = api.get({ resource: 'baremetalhosts', namespace: 'other', name: 'h9' }) as { spec: { online: boolean }; status?: unknown; metadata: { finalizers?: string[] } };
  t.true(other.spec.online);
  t.is(other.status, undefined);
  t.is(other.metadata.finalizers, undefined);
  t.is(await adapter.store.get('BareMetalHost', 'other/h9'), undefined);
  t.false(seen.includes('other/h9'));
  // The namespace it watches is written as before.
  t.true((await adapter.store.applyIntent('BareMetalHost', 'lab/h1', { spec: { online: false } })).changed);
});
