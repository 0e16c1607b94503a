// After a watch's history expired (410) the informer lists again and reports as deleted only the
// objects it had itself seen. An object the node knows from its own write (a companion it
// created while the watch was down) and that was deleted before the re-list must go too: the
// list is the truth up to its resourceVersion (reference/kube-api.md §2, §3).
import test from 'ava';
import { startSystem } from '../../src/actors/runtime/index.ts';
import { createKubeAdapter } from '../../src/adapters/kube/index.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitFor, waitUntil } from '../support/wait.ts';
import { bmh } from '../support/node.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi } from './support/kube-node.ts';

test('kube relist - an object known only from our own write and deleted before a 410 re-list is dropped from the cache', async (t) => {
  const api = await startApi({ historyLimit: 5 });
  t.teardown(() => api.close());
  // Something written before the informers list, so that their lists' resourceVersion is not 0.
  api.create(bmh('h1') as KubeObject);
  const system = startSystem({ name: 'kube-relist', onError: () => undefined });
  const adapter = createKubeAdapter({ kubeConfig: api.kubeConfig(), log: silentLogger, nodeName: 'a' });
  t.teardown(async () => {
    await adapter.close();
    system.stop();
  });
  const deleted: string[] = [];
  adapter.store.watch((e) => {
    if (e.type === 'deleted') deleted.push(`${e.kind} ${e.key}`);
  }, { kinds: ['HardwareData'] });
  await adapter.start(system);
  const listsBefore = api.requests({ verb: 'list', resource: 'hardwaredata' }).length;

  // The watch goes down; meanwhile the node creates a HardwareData, someone deletes it, and the
  // history is compacted past both.
  const down = api.failNext({ verb: 'watch', resource: 'hardwaredata', status: 500, times: 1 });
  t.is(api.dropWatches({ resource: 'hardwaredata' }), 1);
  t.is(await adapter.store.createObject('HardwareData', { apiVersion: 'metal3.io/v1alpha1', kind: 'HardwareData', metadata: { name: 'h1', namespace: 'lab' }, spec: {} } as never), 'created');
  t.truthy(await adapter.store.get('HardwareData', 'lab/h1'));
  api.delete({ resource: 'hardwaredata', namespace: 'lab', name: 'h1' });
  api.expireHistory();

  await waitFor(() => down.fired === 1 && api.requests({ verb: 'list', resource: 'hardwaredata' }).length > listsBefore, 10_000, 'the informer listed again');
  await waitFor(() => adapter.informers().find((i) => i.resource === 'HardwareData')?.phase === 'watching', 10_000, 'watching again');
  await waitUntil(async () => (await adapter.store.get('HardwareData', 'lab/h1')) === undefined, 3_000, 'the deleted HardwareData left the cache');
  t.deepEqual(deleted, ['HardwareData lab/h1']);
});

test('resource cache - a list drops what it does not hold up to its resourceVersion, and keeps our later writes', (t) => {
  const c = new ResourceCache(RESOURCES.HardwareData, silentLogger);
  const gone: string[] = [];
  c.subscribe((ch) => {
    if (ch.type === 'deleted') gone.push(ch.key);
  });
  const hd = (name: string, rv: string) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HardwareData', metadata: { name, namespace: 'lab', resourceVersion: rv }, spec: {} });
  c.written(hd('old', '7'));
  c.written(hd('listed', '8'));
  c.written(hd('later', '12'));
  c.listed(['lab/listed'], '10');
  t.deepEqual(gone, ['lab/old']);
  t.truthy(c.get('lab/later'), 'written after the list\'s snapshot');
  t.truthy(c.get('lab/listed'));
});
