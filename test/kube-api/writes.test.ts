import test from 'ava';
import { GADGETS, GROUP, NS, VERSION, WIDGETS, failure, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';

test('writes - create answers 201 with uid, creationTimestamp, generation 1 and the RV; status is dropped', async (t) => {
  const { server } = await withApi(t);
  const res = await raw(server, 'POST', widgetsPath, widget('a', { size: 2 }, { status: { phase: 'Ready' } }));
  t.is(res.status, 201);
  t.is(res.headers.get('content-type'), 'application/json');
  const obj = res.json();
  const m = meta(obj);
  t.regex(String(m.uid), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.regex(String(m.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.is(m.generation, 1);
  t.is(m.resourceVersion, server.resourceVersion());
  t.is(m.namespace, NS);
  t.is(obj.status, undefined);
  t.deepEqual(Object.keys(obj), ['apiVersion', 'kind', 'metadata', 'spec'], 'unstructured objects come out with sorted keys');
});

test('writes - generateName appends five random characters; the namespace comes from the URL', async (t) => {
  const { custom } = await withApi(t);
  const body = widget('');
  body.metadata = { generateName: 'gen-' };
  const a = await custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body });
  const b = await custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body });
  t.regex(String(meta(a).name), /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.not(meta(a).name, meta(b).name);
  t.is(meta(a).namespace, NS);
});

test('writes - the errors of create: AlreadyExists, namespace mismatch, RV set, name missing', async (t) => {
  const { server } = await withApi(t);
  server.create(widget('a'));
  const dup = await raw(server, 'POST', widgetsPath, widget('a'));
  t.is(dup.status, 409);
  t.is(dup.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.test.metalfleet.io \\"a\\" already exists","reason":"AlreadyExists","details":{"name":"a","group":"test.metalfleet.io","kind":"widgets"},"code":409}');

  const other = widget('b');
  other.metadata = { name: 'b', namespace: 'elsewhere' };
  const ns = await raw(server, 'POST', widgetsPath, other);
  t.deepEqual([ns.status, ns.json().message], [400, 'the namespace of the provided object does not match the namespace sent on the request']);

  const withRv = widget('c');
  withRv.metadata = { name: 'c', resourceVersion: '1' };
  const rv = await raw(server, 'POST', widgetsPath, withRv);
  t.is(rv.status, 500);
  t.is(rv.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion should not be set on objects to be created","code":500}');

  const noName = widget('');
  noName.metadata = {};
  const missing = await raw(server, 'POST', widgetsPath, noName);
  t.is(missing.status, 422);
  t.is(missing.json().message, 'Widget.test.metalfleet.io "" is invalid: metadata.name: Required value: name or generateName is required');
});

test('writes - a stale RV on PUT is a 409 Conflict; a missing one a 422 with the plural as kind', async (t) => {
  const { server, custom } = await withApi(t);
  const a = server.create(widget('a'));
  server.patch({ resource: 'widgets', namespace: NS, name: 'a' }, { spec: { size: 2 } });
  const stale = await failure(custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: a }));
  t.is(stale.code, 409);
  t.deepEqual(stale.status, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'Operation cannot be fulfilled on widgets.test.metalfleet.io "a": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict', details: { name: 'a', group: GROUP, kind: 'widgets' }, code: 409,
  });

  const noRv = widget('a', { size: 3 });
  const missing = await failure(custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: noRv }));
  t.is(missing.code, 422);
  t.deepEqual(missing.status, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'widgets.test.metalfleet.io "a" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    reason: 'Invalid',
    details: { name: 'a', group: GROUP, kind: 'widgets', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update', field: 'metadata.resourceVersion' }] },
    code: 422,
  });

  const current = server.get({ resource: 'widgets', namespace: NS, name: 'a' });
  const fresh = await custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { ...current, spec: { size: 4 } } });
  t.is(meta(fresh).generation, 3);
  t.not(meta(fresh).resourceVersion, meta(current).resourceVersion);
});

test('writes - PUT checks the name, the object and its UID', async (t) => {
  const { server, custom } = await withApi(t);
  const a = server.create(widget('a'));
  const wrongName = await failure(custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'b', body: a }));
  t.deepEqual([wrongName.code, wrongName.status.message], [400, 'the name of the object (a) does not match the name on the URL (b)']);
  const missing = await failure(custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'zz', body: widget('zz') }));
  t.deepEqual([missing.code, missing.status.message], [404, 'widgets.test.metalfleet.io "zz" not found']);
  const otherNs = await failure(custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { ...a, metadata: { ...meta(a), namespace: 'ns2' } } }));
  t.deepEqual([otherNs.code, otherNs.status.message], [400, 'the namespace of the provided object does not match the namespace sent on the request']);
  const noNs = await custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { ...a, metadata: { name: 'a', resourceVersion: meta(a).resourceVersion }, spec: { size: 2 } } });
  t.is(meta(noNs).namespace, NS, 'the namespace comes from the URL');
  t.deepEqual((await server.list('widgets', { namespace: NS })).map((o) => meta(o).name), ['a']);
  const uid = await failure(custom.replaceNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a', body: { ...a, metadata: { ...meta(noNs), uid: 'other' } } }));
  t.is(uid.code, 409);
  t.regex(String(uid.status.message), /^Operation cannot be fulfilled on widgets\.test\.metalfleet\.io "a": StorageError: invalid object, .*Precondition failed: UID in precondition: other, UID in object meta: [0-9a-f-]{36}$/);
});

test('writes - GET of a missing object is a NotFound Status; unknown paths and wrong scopes are plain-text 404s', async (t) => {
  const { server } = await withApi(t);
  const missing = await raw(server, 'GET', `${widgetsPath}/nope`);
  t.is(missing.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.test.metalfleet.io \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","group":"test.metalfleet.io","kind":"widgets"},"code":404}');
  const secret = await raw(server, 'GET', `/api/v1/namespaces/${NS}/secrets/nope`);
  t.is(secret.json().message, 'secrets "nope" not found');
  t.deepEqual(secret.json().details, { name: 'nope', kind: 'secrets' });
  for (const path of [
    `/apis/${GROUP}/${VERSION}/namespaces/${NS}/things`,
    `/apis/${GROUP}/v9/namespaces/${NS}/widgets`,
    `/apis/other.io/v1/widgets`,
    `/apis/${GROUP}/${VERSION}/widgets/a`,
    `/apis/${GROUP}/${VERSION}/namespaces/${NS}/gadgets`,
    '/nothing',
  ]) {
    const r = await raw(server, 'GET', path);
    t.deepEqual([r.status, r.text, r.headers.get('content-type')], [404, '404 page not found\n', 'text/plain; charset=utf-8'], path);
  }
  server.create({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Gadget', metadata: { name: 'g' } });
  const noStatus = await raw(server, 'GET', `/apis/${GROUP}/${VERSION}/gadgets/g/status`);
  t.deepEqual([noStatus.status, noStatus.json().reason], [404, 'NotFound'], 'a subresource that is not enabled is a NotFound Status');
  const del = await raw(server, 'DELETE', `${widgetsPath}/a/status`);
  t.deepEqual([del.status, del.json().message], [405, 'delete is not supported on resources of kind "widgets.test.metalfleet.io"']);
});

test('writes - one RV counter for every kind; lists carry the snapshot RV, across namespaces too', async (t) => {
  const { server, custom, core } = await withApi(t);
  const a = server.create(widget('a'));
  const s = await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 's' }, stringData: { k: 'v' } } });
  const g = await custom.createClusterCustomObject({ ...GADGETS, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Gadget', metadata: { name: 'g' }, spec: { any: { thing: 1 } } } });
  t.deepEqual([meta(a).resourceVersion, s.metadata?.resourceVersion, meta(g).resourceVersion], ['1', '2', '3']);
  server.create({ ...widget('b'), metadata: { name: 'b', namespace: 'ns2' } });
  const all = await custom.listClusterCustomObject({ ...WIDGETS }) as { metadata: { resourceVersion: string }; items: unknown[] };
  t.is(all.metadata.resourceVersion, '4');
  t.deepEqual(all.items.map((i) => `${meta(i).namespace}/${meta(i).name}`), [`${NS}/a`, 'ns2/b']);
  t.deepEqual((g as { spec: unknown }).spec, { any: { thing: 1 } }, 'preserve-unknown-fields keeps the subtree');
});

test('writes - dryRun=All validates and answers without storing', async (t) => {
  const { server } = await withApi(t);
  const res = await raw(server, 'POST', `${widgetsPath}?dryRun=All`, widget('a'));
  t.is(res.status, 201);
  t.is(server.get({ resource: 'widgets', namespace: NS, name: 'a' }), undefined);
  t.is(server.resourceVersion(), '0');
  const bad = await raw(server, 'POST', `${widgetsPath}?dryRun=Some`, widget('a'));
  t.deepEqual([bad.status, bad.json().message], [422, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"']);
});
