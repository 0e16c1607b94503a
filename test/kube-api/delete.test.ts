import test from 'ava';
import { GROUP, NS, WIDGETS, failure, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';
import { openWatch } from './watch-stream.ts';

const held = (name: string, finalizers = ['test.metalfleet.io/a', 'test.metalfleet.io/b']) => widget(name, { size: 1 }, { metadata: { name, namespace: NS, finalizers } });
const ref = (name: string) => ({ resource: 'widgets', namespace: NS, name });

test('delete - without finalizers the object goes at once: 200 with a Success Status, watchers see DELETED', async (t) => {
  const { server } = await withApi(t);
  const a = server.create(widget('a'));
  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=${server.resourceVersion()}`);
  t.teardown(() => w.close());
  const res = await raw(server, 'DELETE', `${widgetsPath}/a`);
  t.is(res.status, 200);
  t.is(res.text, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","group":"${GROUP}","kind":"widgets","uid":"${meta(a).uid as string}"}}`);
  const e = await w.next();
  t.deepEqual([e.type, meta(e.object).resourceVersion], ['DELETED', server.resourceVersion()]);
  t.is(server.get(ref('a')), undefined);
  t.is((await raw(server, 'DELETE', `${widgetsPath}/a`)).status, 404);
});

test('delete - with finalizers: deletionTimestamp, grace 0 and generation+1 once; a repeated DELETE changes nothing', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(held('a'));
  const w = await openWatch(server, `${widgetsPath}?watch=true&resourceVersion=${server.resourceVersion()}`);
  t.teardown(() => w.close());
  const first = await custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a' });
  const m = meta(first);
  t.regex(String(m.deletionTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.is(m.deletionGracePeriodSeconds, 0);
  t.is(m.generation, 2);
  t.is((await w.next()).type, 'MODIFIED');
  const again = await custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a' });
  t.deepEqual(again, first, 'same object, same RV');

  const res = await raw(server, 'POST', widgetsPath, widget('a'));
  t.is(res.json().message, 'object is being deleted: widgets.test.metalfleet.io "a" already exists');

  const grow = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: [{ op: 'add', path: '/metadata/finalizers/-', value: 'test.metalfleet.io/c' }] }));
  t.deepEqual([grow.code, grow.status.message], [422,
    'Widget.test.metalfleet.io "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"test.metalfleet.io/c"}']);

  // Other updates still work, and the deletion fields cannot be taken back.
  const cur = server.get(ref('a'));
  const updated = server.update({ ...cur, metadata: { ...meta(cur), deletionTimestamp: undefined, labels: { still: 'here' } }, spec: { size: 3 } });
  t.is(meta(updated).deletionTimestamp, m.deletionTimestamp);
  t.is(meta(updated).generation, 3);
  t.is((await w.next()).type, 'MODIFIED');

  server.patch(ref('a'), [{ op: 'remove', path: '/metadata/finalizers/0' }], { type: 'json' });
  const partial = await w.next();
  t.deepEqual([partial.type, meta(partial.object).finalizers], ['MODIFIED', ['test.metalfleet.io/b']]);
  const last = server.patch(ref('a'), { metadata: { finalizers: [] } });
  // The submitted object, decoded: its empty finalizers are omitted (ObjectMeta's omitempty).
  t.is(meta(last).finalizers, undefined, 'the update answers with the submitted object');
  t.deepEqual(meta(last).labels, { still: 'here' }, 'the update answers with the submitted object');
  const gone = await w.next();
  t.deepEqual([gone.type, meta(gone.object).finalizers], ['DELETED', ['test.metalfleet.io/b']]);
  t.is(server.get(ref('a')), undefined);
});

test('delete - preconditions are checked against the Kind', async (t) => {
  const { server, custom } = await withApi(t);
  const a = server.create(widget('a'));
  const rv = await failure(custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { preconditions: { resourceVersion: '99' } } }));
  t.is(rv.code, 409);
  t.deepEqual(rv.status.details, { name: 'a', group: GROUP, kind: 'Widget' });
  t.is(rv.status.message, 'Operation cannot be fulfilled on Widget.test.metalfleet.io "a": the ResourceVersion in the precondition (99) does not match the ResourceVersion in record (1). The object might have been modified');
  const uid = await failure(custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { preconditions: { uid: 'x' } } }));
  t.regex(String(uid.status.message), /the UID in the precondition \(x\) does not match the UID in record/);
  await custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { preconditions: { uid: meta(a).uid as string, resourceVersion: '1' } } });
  t.is(server.get(ref('a')), undefined);
  const both = await raw(server, 'DELETE', `${widgetsPath}/zz?propagationPolicy=Sideways`);
  t.is(both.json().message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
});

test('delete - a collection by label selector, finalizers honoured', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, labels: { batch: '1' } } }));
  server.create(widget('b', { size: 1 }, { metadata: { name: 'b', namespace: NS, labels: { batch: '1' }, finalizers: ['test.metalfleet.io/x'] } }));
  server.create(widget('c', { size: 1 }, { metadata: { name: 'c', namespace: NS, labels: { batch: '2' } } }));
  const res = await raw(server, 'DELETE', `${widgetsPath}?labelSelector=batch%3D1`);
  t.is(res.status, 200);
  const body = res.json() as { kind: string; items: unknown[] };
  t.is(body.kind, 'WidgetList');
  t.deepEqual(body.items.map((i) => meta(i).name), ['a', 'b']);
  t.deepEqual((await server.list('widgets')).map((o) => [meta(o).name, Boolean(meta(o).deletionTimestamp)]), [['b', true], ['c', false]]);
});
