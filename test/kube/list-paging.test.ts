// The informers' lists are paged with limit/continue, as client-go's reflector pages them
// (reference/kube-api.md §2): a large fleet is not one response. A continue token that expired
// mid-list (410) starts a consistent list over, never a list stitched from two snapshots.
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { KubeCalls } from '../../src/adapters/kube/kube-calls.ts';
import { KubeClient } from '../../src/adapters/kube/kube-client.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { bmh, secret } from '../support/node.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi } from './support/kube-node.ts';

test('kube paging - the informers list hosts and Secrets in pages and see every object', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  for (let i = 0; i < 25; i++) api.create(bmh(`h-${String(i).padStart(2, '0')}`) as KubeObject);
  for (let i = 0; i < 7; i++) api.create(secret(`s-${i}`, 'lab') as KubeObject);
  const system = startSystem({ name: 'kube-paging', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a', listPageSize: 10 });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  await adapter.start(system);
  t.is((await adapter.store.list('BareMetalHost')).length, 25);
  t.true((await adapter.store.getSecret('lab', 's-6')) !== undefined);
  const hostLists = api.requests({ verb: 'list', resource: 'baremetalhosts' });
  t.is(hostLists.length, 3, 'three pages of at most 10');
  t.true(hostLists.every((r) => new URLSearchParams(r.query).get('limit') === '10'));
  t.is(hostLists.filter((r) => new URLSearchParams(r.query).has('continue')).length, 2);
  t.is(api.requests({ verb: 'list', resource: 'secrets' }).length, 1);
});

test('kube paging - a continue token that expired mid-list starts the list over from a fresh snapshot', async (t) => {
  const api = await startApi();
  t.teardown(() => api.close());
  for (let i = 0; i < 5; i++) api.create(bmh(`h-${i}`) as KubeObject);
  let expired = false;
  const off = api.onRequest((r) => {
    if (r.verb !== 'list' || expired) return;
    // After the first page: a host is deleted and the history compacted under the client.
    expired = true;
    api.delete({ resource: 'baremetalhosts', namespace: 'lab', name: 'h-4' });
    api.expireHistory();
  });
  t.teardown(off);
  const client = new KubeClient(api.kubeConfig(), new KubeCalls(), { listPageSize: 2 });
  const list = await client.list(RESOURCES.BareMetalHost);
  const names = list.items.map((o) => o.metadata?.name);
  t.deepEqual(names, ['h-0', 'h-1', 'h-2', 'h-3']);
  const codes = api.requests({ verb: 'list', resource: 'baremetalhosts' }).map((r) => r.code);
  t.true(codes.includes(410), 'the expired token was met');
  t.is(list.metadata?.resourceVersion, api.resourceVersion(), 'the snapshot of the list started over');
});
