import test from 'ava';
import { makeInformer } from '@kubernetes/client-node';
import type { Informer, KubernetesObject, ListWatch } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import { NS, WIDGETS, meta, widget, widgetsPath, withApi } from './helpers.ts';
import type { Api } from './helpers.ts';

interface Seen {
  informer: Informer<KubernetesObject> & ListWatch<KubernetesObject>;
  events: string[];
  errors: unknown[];
  connects: number;
}

function informer(api: Api, labelSelector?: string): Seen {
  const kc = api.server.kubeConfig();
  const list = (): Promise<never> => api.custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS, labelSelector }) as Promise<never>;
  // makeInformer builds a ListWatch; its type hides latestResourceVersion().
  const inf = makeInformer(kc, widgetsPath, list, labelSelector) as Informer<KubernetesObject> & ListWatch<KubernetesObject>;
  const seen: Seen = { informer: inf, events: [], errors: [], connects: 0 };
  inf.on('add', (o) => seen.events.push(`add ${o.metadata?.name}`));
  inf.on('update', (o) => seen.events.push(`update ${o.metadata?.name}`));
  inf.on('delete', (o) => seen.events.push(`delete ${o.metadata?.name}`));
  inf.on('error', (e) => seen.errors.push(e));
  inf.on('connect', () => seen.connects++);
  return seen;
}

const has = (seen: Seen, event: string) => (): boolean => seen.events.includes(event);

test('informer - list then watch sees add, update and delete', async (t) => {
  const api = await withApi(t);
  api.server.create(widget('pre'));
  const seen = informer(api);
  await seen.informer.start();
  t.teardown(() => seen.informer.stop());
  await waitFor(has(seen, 'add pre'), 3_000, 'listed object');
  await api.server.waitForRequests({ verb: 'watch', resource: 'widgets' }, 1);

  await api.custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget('w1') });
  await waitFor(has(seen, 'add w1'), 3_000, 'added');
  await api.custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'w1', body: [{ op: 'replace', path: '/spec/size', value: 2 }] });
  await waitFor(has(seen, 'update w1'), 3_000, 'updated');
  await api.custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'w1' });
  await waitFor(has(seen, 'delete w1'), 3_000, 'deleted');

  t.deepEqual(seen.events, ['add pre', 'add w1', 'update w1', 'delete w1']);
  t.deepEqual(seen.errors, []);
  t.is(api.server.requests({ verb: 'list' }).length, 1);
  t.is(seen.informer.get('w1', NS), undefined);
  t.is((seen.informer.get('pre', NS) as KubernetesObject).metadata?.name, 'pre');
});

test('informer - a watch resumed from a compacted RV gets 410 and re-lists without losing a change', async (t) => {
  const api = await withApi(t);
  for (const name of ['keep', 'gone', 'changed']) api.server.create(widget(name));
  const seen = informer(api);
  await seen.informer.start();
  t.teardown(() => seen.informer.stop());
  await waitFor(() => seen.events.length === 3, 3_000, 'initial list');
  await api.server.waitForRequests({ verb: 'watch' }, 1);
  const rvBefore = seen.informer.latestResourceVersion();

  // The network drops; while the informer is down the objects change and history is compacted.
  t.is(api.server.dropWatches(), 1);
  await waitFor(() => seen.errors.length === 1, 3_000, 'error from the cut');
  api.server.delete({ resource: 'widgets', namespace: NS, name: 'gone' });
  api.server.patch({ resource: 'widgets', namespace: NS, name: 'changed' }, { spec: { size: 5 } });
  api.server.create(widget('new'));
  api.server.expireHistory();

  seen.events.length = 0;
  await seen.informer.start();
  await waitFor(() => seen.events.length === 3, 3_000, 're-list events');
  t.deepEqual([...seen.events].sort(), ['add new', 'delete gone', 'update changed']);

  const watches = api.server.requests({ verb: 'watch' });
  t.is(watches[1]?.query, `watch=true&resourceVersion=${rvBefore}`);
  t.is(watches[1]?.code, 200, 'the too-old RV is an ERROR event on an HTTP 200');
  await api.server.waitForRequests({ verb: 'list' }, 2);
  await api.server.waitForRequests({ verb: 'watch' }, 3);
  t.is(api.server.requests({ verb: 'watch' })[2]?.query, `watch=true&resourceVersion=${api.server.resourceVersion()}`);

  // And it keeps watching from the new list.
  api.server.patch({ resource: 'widgets', namespace: NS, name: 'keep' }, { spec: { size: 7 } });
  await waitFor(has(seen, 'update keep'), 3_000, 'update after re-list');
  t.is(seen.errors.length, 1);
});

test('informer - a dropped watch is an error and the informer stops until started again', async (t) => {
  const api = await withApi(t);
  const seen = informer(api);
  await seen.informer.start();
  t.teardown(() => seen.informer.stop());
  await api.server.waitForRequests({ verb: 'watch' }, 1);
  t.is(api.server.openWatches(), 1);

  api.server.dropWatches();
  await waitFor(() => seen.errors.length === 1, 3_000, 'error event');
  t.is(api.server.openWatches(), 0);
  // A write and its round trip later, still nobody watches: the informer stopped.
  await api.custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget('while-down') });
  t.is(api.server.requests({ verb: 'watch' }).length, 1);
  t.false(seen.events.includes('add while-down'));

  // Started again it resumes from its last RV: no list, and it catches up from the history.
  await seen.informer.start();
  await waitFor(has(seen, 'add while-down'), 3_000, 'caught up');
  t.is(api.server.requests({ verb: 'list' }).length, 1);
});

test('informer - a watch that ends at its timeout resumes from the last RV without a list', async (t) => {
  const api = await withApi(t, { watchTimeoutSeconds: 1 });
  api.server.create(widget('a'));
  const seen = informer(api);
  await seen.informer.start();
  t.teardown(() => seen.informer.stop());
  const [first] = await api.server.waitForRequests({ verb: 'watch' }, 1);
  const watches = await api.server.waitForRequests({ verb: 'watch' }, 2, 5_000);
  t.is(watches[1]?.query, first?.query);
  t.is(api.server.requests({ verb: 'list' }).length, 1);
  t.deepEqual(seen.errors, []);
  t.true(seen.connects >= 2);
});

test('informer - with a label selector an object leaving the selection is deleted and one entering is added', async (t) => {
  const api = await withApi(t);
  api.server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, labels: { team: 'x' } } }));
  api.server.create(widget('b', { size: 1 }, { metadata: { name: 'b', namespace: NS, labels: { team: 'y' } } }));
  const seen = informer(api, 'team=x');
  await seen.informer.start();
  t.teardown(() => seen.informer.stop());
  await waitFor(has(seen, 'add a'), 3_000, 'listed');
  await api.server.waitForRequests({ verb: 'watch' }, 1);
  t.regex(api.server.requests({ verb: 'watch' })[0]?.query ?? '', /labelSelector=team%3Dx/);

  api.server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { metadata: { labels: { team: 'y' } } });
  await waitFor(has(seen, 'delete a'), 3_000, 'left the selection');
  api.server.patch({ resource: 'widgets', namespace: NS, name: 'b' }, { metadata: { labels: { team: 'x' } } });
  await waitFor(has(seen, 'add b'), 3_000, 'entered the selection');
  t.deepEqual(seen.events, ['add a', 'delete a', 'add b']);
  t.is(meta(seen.informer.get('b', NS)).resourceVersion, api.server.resourceVersion());
});
