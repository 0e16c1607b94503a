import test from 'ava';
import { Watch } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import { GROUP, NS, VERSION, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';
import { openWatch } from './watch-stream.ts';

test('watch - chunked JSON lines: synthetic ADDED without an RV, then changes; DELETED carries the last stored object', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, finalizers: ['test.metalfleet.io/hold'] } }));
  const w = await openWatch(server, `${widgetsPath}?watch=true`);
  t.teardown(() => w.close());
  t.is(w.status, 200);
  t.is(w.headers.get('content-type'), 'application/json');
  t.is(w.headers.get('transfer-encoding'), 'chunked');

  const added = await w.next();
  t.is(added.type, 'ADDED');
  t.is(added.object.apiVersion, `${GROUP}/${VERSION}`);
  t.is(added.object.kind, 'Widget');

  server.delete({ resource: 'widgets', namespace: NS, name: 'a' });
  const marked = await w.next();
  t.is(marked.type, 'MODIFIED');
  t.truthy(meta(marked.object).deletionTimestamp);

  const removed = server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { metadata: { finalizers: null } });
  t.deepEqual(meta(removed).finalizers, undefined, 'the patch answers with the submitted object');
  const deleted = await w.next();
  t.is(deleted.type, 'DELETED');
  t.deepEqual(meta(deleted.object).finalizers, ['test.metalfleet.io/hold'], 'last stored state');
  t.is(meta(deleted.object).resourceVersion, server.resourceVersion(), 'with the delete revision');
  t.not(meta(deleted.object).resourceVersion, meta(marked.object).resourceVersion);
  for (const line of w.lines) t.notThrows(() => JSON.parse(line));
});

test('watch - from an RV only later changes arrive, without synthetic events', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  const rv = server.resourceVersion();
  server.create(widget('b'));
  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  const e = await w.next();
  t.is(e.type, 'ADDED');
  t.is(meta(e.object).name, 'b');
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { spec: { size: 2 } });
  const m = await w.next();
  t.deepEqual([m.type, meta(m.object).name], ['MODIFIED', 'a']);
});

test('watch - a too-old RV is HTTP 200 with one ERROR 410 event, then the stream ends', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  server.create(widget('b'));
  server.create(widget('c'));
  server.expireHistory();
  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=1`);
  t.is(w.status, 200);
  await w.ended;
  t.deepEqual(w.lines, [
    '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (3)","reason":"Expired","code":410}}',
  ]);
  // Resuming at the current RV is fine.
  const ok = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=3`);
  t.teardown(() => ok.close());
  server.create(widget('d'));
  t.is(meta((await ok.next()).object).name, 'd');
});

test('watch - the history is bounded by historyLimit', async (t) => {
  const { server } = await withApi(t, { historyLimit: 3 });
  for (const name of ['a', 'b', 'c', 'd', 'e']) server.create(widget(name));
  const old = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=1`);
  await old.ended;
  t.regex(old.lines[0] ?? '', /"message":"too old resource version: 1 \(2\)"/);
  const kept = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=2`);
  t.teardown(() => kept.close());
  const names = [];
  for (let i = 0; i < 3; i++) names.push(meta((await kept.next()).object).name);
  t.deepEqual(names, ['c', 'd', 'e']);
});

test('watch - an object leaving the label selection is DELETED with its previous content and the new RV', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, labels: { tier: 'gold' } } }));
  const w = await openWatch(server, `${widgetsPath}?watch=true&labelSelector=${encodeURIComponent('tier in (gold)')}`);
  t.teardown(() => w.close());
  t.is((await w.next()).type, 'ADDED');
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { metadata: { labels: { tier: 'bronze' } }, spec: { size: 4 } });
  const left = await w.next();
  t.is(left.type, 'DELETED');
  t.deepEqual(meta(left.object).labels, { tier: 'gold' });
  t.is((left.object.spec as { size: number }).size, 1);
  t.is(meta(left.object).resourceVersion, server.resourceVersion());
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { metadata: { labels: { tier: 'gold' } } });
  const back = await w.next();
  t.is(back.type, 'ADDED');
  t.is((back.object.spec as { size: number }).size, 4);
});

test('watch - bookmarks on request, and a clean end at timeoutSeconds', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=1`);
  t.is(server.sendBookmarks(), 1);
  t.deepEqual(await w.next(), { type: 'BOOKMARK', object: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { resourceVersion: '1' } } });
  server.create(widget('b'));
  t.is((await w.next()).type, 'ADDED');
  const last = await w.next(3_000);
  t.deepEqual(last.object.metadata, { resourceVersion: '2' });
  await w.ended;
  t.is(server.openWatches(), 0);

  const plain = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=2`);
  t.teardown(() => plain.close());
  t.is(server.sendBookmarks(), 0, 'no bookmarks unless asked for');
});

test('watch - sendInitialEvents ends the initial state with an annotated bookmark; its option rules are 422s', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  const w = await openWatch(server, `${widgetsPath}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
  t.teardown(() => w.close());
  t.is((await w.next()).type, 'ADDED');
  const end = await w.next();
  t.is(end.type, 'BOOKMARK');
  t.deepEqual(meta(end.object), { resourceVersion: '1', annotations: { 'k8s.io/initial-events-end': 'true' } });

  const bad = await raw(server, 'GET', `${widgetsPath}?watch=true&resourceVersionMatch=NotOlderThan`);
  t.is(bad.status, 422);
  t.is(bad.json().message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  const bad2 = await raw(server, 'GET', `${widgetsPath}?watch=true&sendInitialEvents=true`);
  t.is(bad2.json().message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
});

test('watch - one object through the legacy /watch/ path or a metadata.name field selector', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  server.create(widget('b'));
  const legacy = await openWatch(server, `/apis/${GROUP}/${VERSION}/watch/namespaces/${NS}/widgets/b`);
  const field = await openWatch(server, `${widgetsPath}?watch=1&fieldSelector=metadata.name%3Db`);
  t.teardown(() => {
    legacy.close();
    field.close();
  });
  for (const w of [legacy, field]) t.is(meta((await w.next()).object).name, 'b');
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { spec: { size: 2 } });
  server.patch({ resource: 'widgets', namespace: NS, name: 'b' }, { spec: { size: 3 } });
  for (const w of [legacy, field]) t.deepEqual([(await w.next()).type, w.lines.length], ['MODIFIED', 2]);
  t.deepEqual(server.requests({ verb: 'watch' }).map((r) => r.name), ['b', '']);
});

test('watch - a no-op update writes nothing and sends no event', async (t) => {
  const { server, custom } = await withApi(t);
  const a = server.create(widget('a'));
  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=${server.resourceVersion()}`);
  t.teardown(() => w.close());
  const same = await custom.replaceNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'widgets', namespace: NS, name: 'a', body: a });
  t.is(meta(same).resourceVersion, meta(a).resourceVersion);
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { spec: { size: 9 } });
  const e = await w.next();
  t.is((e.object.spec as { size: number }).size, 9, 'the first event is the real change');
});

test('watch - client-node Watch gets events, and a dropped connection ends it with an error', async (t) => {
  const { server } = await withApi(t);
  const events: string[] = [];
  let done: unknown = 'not yet';
  const watch = new Watch(server.kubeConfig());
  await watch.watch(widgetsPath, {}, (type, obj: { metadata: { name: string } }) => events.push(`${type} ${obj.metadata.name}`), (err) => {
    done = err;
  });
  await server.waitForRequests({ verb: 'watch' }, 1);
  server.create(widget('a'));
  await waitFor(() => events.length === 1, 3_000, 'event');
  server.dropWatches();
  await waitFor(() => done !== 'not yet', 3_000, 'done callback');
  t.deepEqual(events, ['ADDED a']);
  t.truthy(done, 'done with an error, not null');
  t.regex(String((done as Error).message ?? done), /premature close/i);
});
