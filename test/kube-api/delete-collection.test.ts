// DELETE on a collection (registry Store.DeleteCollection): the server lists what matches, deletes
// each item with the request's DeleteOptions, and answers with the list it made before deleting —
// items as they were listed, under that list's resourceVersion.
import test from 'ava';
import { NS, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';

interface List {
  kind: string;
  metadata: { resourceVersion: string };
  items: Record<string, unknown>[];
}

test('delete collection - answers with the items as listed before the deletes, under that list\'s RV', async (t) => {
  const { server } = await withApi(t);
  const a = server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, labels: { batch: '1' } } }));
  const b = server.create(widget('b', { size: 1 }, { metadata: { name: 'b', namespace: NS, labels: { batch: '1' }, finalizers: ['test.metalfleet.io/x'] } }));
  const before = server.resourceVersion();
  const res = await raw(server, 'DELETE', `${widgetsPath}?labelSelector=batch%3D1`);
  t.is(res.status, 200);
  const body = res.json() as unknown as List;
  t.is(body.metadata.resourceVersion, before, 'the list RV, not the RV after the deletes');
  t.deepEqual(body.items.map((i) => [meta(i).name, meta(i).resourceVersion, meta(i).deletionTimestamp]), [
    ['a', meta(a).resourceVersion, undefined],
    ['b', meta(b).resourceVersion, undefined],
  ]);
  t.truthy(meta(server.get({ resource: 'widgets', namespace: NS, name: 'b' })).deletionTimestamp, 'b still waits for its finalizer');
  t.is(server.get({ resource: 'widgets', namespace: NS, name: 'a' }), undefined);
});

test('delete collection - the DeleteOptions preconditions apply to each item: a mismatch is the 409 of that delete', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  const res = await raw(server, 'DELETE', widgetsPath, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '999' } });
  t.is(res.status, 409);
  t.is(res.json().message, 'Operation cannot be fulfilled on Widget.test.metalfleet.io "a": the ResourceVersion in the precondition (999) does not match the ResourceVersion in record (1). The object might have been modified');
  t.truthy(server.get({ resource: 'widgets', namespace: NS, name: 'a' }), 'nothing deleted');
});
