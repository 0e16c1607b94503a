import test from 'ava';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { NS, WIDGETS, failure, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const spec = (o: unknown): Record<string, unknown> => (o as { spec: Record<string, unknown> }).spec;

test('patch - merge patch: objects merge, null deletes, arrays are replaced whole', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a', { size: 1, tags: ['x', 'y'], labels: { a: '1', b: '2' }, name: 'n' }, { metadata: { name: 'a', namespace: NS, finalizers: ['test.metalfleet.io/f'] } }));
  const out = await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: {
    spec: { tags: ['z'], labels: { b: null, c: '3' }, name: null }, metadata: { finalizers: null },
  } }, merge);
  t.deepEqual(spec(out).tags, ['z']);
  t.deepEqual(spec(out).labels, { a: '1', c: '3' });
  t.false('name' in spec(out));
  t.is(meta(out).finalizers, undefined);
  t.is(meta(out).generation, 2);
});

test('patch - JSON patch: add, remove, replace, move, copy and test; a failed operation is the generic 422', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a', { size: 1, tags: ['x'] }));
  const out = await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: [
    { op: 'test', path: '/spec/size', value: 1 },
    { op: 'add', path: '/spec/tags/-', value: 'y' },
    { op: 'add', path: '/spec/tags/0', value: 'w' },
    { op: 'replace', path: '/spec/size', value: 4 },
    { op: 'copy', from: '/spec/tags/1', path: '/spec/name' },
    { op: 'move', from: '/spec/color', path: '/spec/note' },
    { op: 'add', path: '/metadata/labels', value: { 'a~b/c': 'd' } },
    { op: 'remove', path: '/metadata/labels/a~0b~1c' },
  ] });
  t.deepEqual(spec(out), { size: 4, tags: ['w', 'x', 'y'], name: 'x', note: 'red', color: 'red', image: { checksumType: 'sha256' } }, 'color moved away, then defaulted again');
  // Removing the last label leaves no `labels: {}`: a CR's metadata is a typed ObjectMeta, omitempty.
  t.is(meta(out).labels, undefined);
  const rejected = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}';
  for (const op of [{ op: 'test', path: '/spec/size', value: 1 }, { op: 'replace', path: '/spec/missing', value: 1 }, { op: 'remove', path: '/spec/tags/9' }, { op: 'add', path: '/no/parent', value: 1 }]) {
    const r = await raw(server, 'PATCH', `${widgetsPath}/a`, [op], 'application/json-patch+json');
    t.deepEqual([r.status, r.text], [422, rejected], JSON.stringify(op));
  }
  const notArray = await raw(server, 'PATCH', `${widgetsPath}/a`, { op: 'add' }, 'application/json-patch+json');
  t.is(notArray.status, 400);
});

test('patch - strategic merge is 415 on custom resources and works on built-in kinds', async (t) => {
  const { server, core } = await withApi(t);
  server.create(widget('a'));
  const smp = await raw(server, 'PATCH', `${widgetsPath}/a`, { spec: { size: 2 } }, 'application/strategic-merge-patch+json');
  t.is(smp.status, 415);
  t.is(smp.json().message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  const odd = await raw(server, 'PATCH', `${widgetsPath}/a`, { spec: { size: 2 } }, 'text/plain');
  t.is(odd.status, 415);
  const charset = await raw(server, 'PATCH', `${widgetsPath}/a`, { spec: { size: 2 } }, 'application/merge-patch+json; charset=utf-8');
  t.is(charset.status, 200);

  await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 's', finalizers: ['test.metalfleet.io/a'] }, data: { a: 'YQ==' } } });
  const out = await core.patchNamespacedSecret({ namespace: NS, name: 's', body: { metadata: { finalizers: ['test.metalfleet.io/b'] }, stringData: { b: 'b' } } },
    setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
  t.deepEqual(out.metadata?.finalizers, ['test.metalfleet.io/a', 'test.metalfleet.io/b'], 'finalizers merge as a set');
  t.deepEqual(out.data, { a: 'YQ==', b: 'Yg==' });
});

test('patch - a resourceVersion in the patch is a precondition; the patch of a missing object is 404', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a'));
  const stale = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { metadata: { resourceVersion: '0' }, spec: { size: 3 } } }, merge));
  t.deepEqual([stale.code, stale.status.reason], [409, 'Conflict']);
  const ok = await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { metadata: { resourceVersion: '1' }, spec: { size: 3 } } }, merge);
  t.is(spec(ok).size, 3);
  const missing = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'zz', body: { spec: { size: 3 } } }, merge));
  t.deepEqual([missing.code, missing.status.message], [404, 'widgets.test.metalfleet.io "zz" not found']);
  const rename = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { metadata: { name: 'b' } } }, merge));
  t.deepEqual([rename.code, rename.status.message], [400, 'the name of the object (b) does not match the name on the URL (a)']);
  const invalid = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { spec: { size: 11 } } }, merge));
  t.is(invalid.status.message, 'Widget.test.metalfleet.io "a" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10');
});

test('patch - apply needs a field manager, creates what is missing and overlays what exists', async (t) => {
  const { server, custom } = await withApi(t);
  const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
  const body = widget('a', { size: 2, tags: ['x'] });
  const noManager = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body }, apply));
  t.deepEqual([noManager.code, noManager.status.message], [422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch']);
  const force = await failure(custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: {}, force: true }, merge));
  t.is(force.status.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');

  const created = await raw(server, 'PATCH', `${widgetsPath}/a?fieldManager=test`, JSON.stringify(body), 'application/apply-patch+yaml');
  t.is(created.status, 201);
  const again = await custom.patchNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', fieldManager: 'test', force: true, body: widget('a', { size: 3, tags: ['y'] }) }, apply);
  t.deepEqual([spec(again).size, spec(again).tags, meta(again).generation], [3, ['y'], 2]);
  const managed = await raw(server, 'PATCH', `${widgetsPath}/a?fieldManager=test`, 'metadata:\n  name: a\n  managedFields: []\n', 'application/apply-patch+yaml');
  t.deepEqual([managed.status, managed.json().message], [400, 'metadata.managedFields must be nil']);
});
