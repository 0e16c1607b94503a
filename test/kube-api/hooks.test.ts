import test from 'ava';
import { PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import { KubeApiError, startKubeApi } from '../support/kube-api/index.ts';
import type { RequestRecord } from '../support/kube-api/index.ts';
import { waitFor } from '../support/wait.ts';
import { CRD_DIR, NS, WIDGETS, failure, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';
import { openWatch } from './watch-stream.ts';

test('hooks - failNext answers the next matching requests with the status, then lets them through', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a'));
  const fault = server.failNext({ method: 'GET', resource: 'widgets', name: 'a', status: 500 });
  const e500 = await failure(custom.getNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a' }));
  t.deepEqual(e500.status, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Internal error occurred: injected fault', reason: 'InternalError',
    details: { causes: [{ message: 'injected fault' }] }, code: 500,
  });
  t.is(fault.fired, 1);
  t.truthy(await custom.getNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a' }));

  server.failNext({ method: 'PATCH', path: /\/widgets\/a\/status$/, status: 409, times: 2 });
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const patch = (): Promise<unknown> => custom.patchNamespacedCustomObjectStatus({ ...WIDGETS, namespace: NS, name: 'a', body: { status: { phase: 'Ready' } } }, merge);
  t.is((await failure(patch())).status.message,
    'Operation cannot be fulfilled on widgets.test.metalfleet.io "a": the object has been modified; please apply your changes to the latest version and try again');
  t.is((await failure(patch())).code, 409);
  await patch();
  t.deepEqual(server.statusWrites({ resource: 'widgets', namespace: NS, name: 'a' }), { changed: 1, attempts: 3 });
  t.deepEqual(server.requests({ subresource: 'status' }).map((r) => [r.code, r.injected]), [[409, true], [409, true], [200, false]]);

  server.failNext({ verb: 'list', status: 429, retryAfterSeconds: 2 });
  const throttled = await raw(server, 'GET', widgetsPath);
  t.deepEqual([throttled.status, throttled.headers.get('retry-after'), throttled.json().details], [429, '2', { retryAfterSeconds: 2 }]);
  const cancelled = server.failNext({ verb: 'list', status: 503 });
  cancelled.cancel();
  t.is((await raw(server, 'GET', widgetsPath)).status, 200);
});

test('hooks - an injected HTTP 410 on the watch makes the informer re-list; a 503 makes it stop with an error', async (t) => {
  const { server, custom } = await withApi(t);
  server.create(widget('a'));
  server.failNext({ verb: 'watch', status: 410 });
  const list = (): Promise<never> => custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS }) as Promise<never>;
  const inf = makeInformer(server.kubeConfig(), widgetsPath, list);
  const errors: { statusCode?: number }[] = [];
  inf.on('error', (e: { statusCode?: number }) => errors.push(e));
  await inf.start();
  t.teardown(() => inf.stop());
  await server.waitForRequests({ verb: 'list' }, 2);
  await server.waitForRequests({ verb: 'watch', code: 200 }, 1);
  t.deepEqual(errors, []);

  server.failNext({ verb: 'watch', status: 503 });
  server.endWatches();
  await waitFor(() => errors.length === 1, 3_000, 'informer error');
  t.is(errors[0]?.statusCode, 503);
  t.is(server.openWatches(), 0);
});

test('hooks - request records, counts by route, waiting for N requests, and listeners', async (t) => {
  const { server, custom } = await withApi(t);
  const seen: RequestRecord[] = [];
  const off = server.onRequest((r) => seen.push(r));
  const waiting = server.waitForRequests({ verb: 'create', resource: 'widgets' }, 2);
  await custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget('a') });
  await custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget('b') });
  t.deepEqual((await waiting).map((r) => r.code), [201, 201]);
  await custom.getNamespacedCustomObject({ ...WIDGETS, namespace: NS, name: 'a' });
  await raw(server, 'GET', '/nowhere');
  off();
  await raw(server, 'GET', '/apis');
  t.deepEqual(server.requestCounts(), {
    'POST /apis/test.metalfleet.io/v1alpha1/namespaces/{namespace}/widgets': 2,
    'GET /apis/test.metalfleet.io/v1alpha1/namespaces/{namespace}/widgets/{name}': 1,
    'GET /nowhere': 1,
    'GET /apis': 1,
  });
  t.deepEqual(seen.map((r) => `${r.seq} ${r.verb} ${r.name} ${r.code}`), ['1 create  201', '2 create  201', '3 get a 200', '4 unknown  404']);
  await t.throwsAsync(server.waitForRequests({ verb: 'delete' }, 1, 50), { message: /^kube-api: 0 of 1 requests matching \{"verb":"delete"\} after 50 ms$/ });
});

test('hooks - direct writes use the same rules as HTTP and throw the Status a client would get', async (t) => {
  const { server } = await withApi(t);
  const error = t.throws(() => server.create(widget('a', { size: 99 })), { instanceOf: KubeApiError });
  t.is(error?.code, 422);
  t.is(error?.status.message, 'Widget.test.metalfleet.io "a" is invalid: spec.size: Invalid value: 99: spec.size in body should be less than or equal to 10');
  const a = server.create(widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, labels: { x: '1' } } }));
  server.create(widget('b'));
  const updated = server.update({ ...widget('a', { size: 2 }), metadata: { name: 'a', namespace: NS, labels: { x: '1' } } });
  t.is(meta(updated).generation, 2, 'no RV: unconditional');
  t.is(meta(updated).uid, meta(a).uid);
  const withStatus = server.updateStatus({ ...widget('a'), status: { phase: 'Ready' } });
  t.deepEqual([withStatus.status, (withStatus.spec as { size: number }).size], [{ phase: 'Ready' }, 2]);
  t.throws(() => server.update({ ...a, spec: { size: 3 } }), { message: /the object has been modified/ });
  t.deepEqual((await server.list('Widget', { labelSelector: 'x' })).map((o) => meta(o).name), ['a']);
  t.deepEqual((await server.list('widgets.test.metalfleet.io')).map((o) => meta(o).name), ['a', 'b']);
  t.is(server.get({ resource: 'widget', namespace: NS, name: 'zz' }), undefined);
  t.like(server.delete({ resource: 'widgets', namespace: NS, name: 'b' }), { removed: true });
  t.throws(() => server.get({ resource: 'nothing', name: 'x' }), { message: /^kube-api: no resource "nothing" \(known: secrets, events, namespaces, leases\.coordination\.k8s\.io, customresourcedefinitions\.apiextensions\.k8s\.io, serviceaccounts, configmaps, services, deployments\.apps, clusterroles\.rbac\.authorization\.k8s\.io, clusterrolebindings\.rbac\.authorization\.k8s\.io, poddisruptionbudgets\.policy, validatingwebhookconfigurations\.admissionregistration\.k8s\.io, mutatingwebhookconfigurations\.admissionregistration\.k8s\.io, pods, endpoints, persistentvolumeclaims, persistentvolumes, replicationcontrollers, jobs\.batch, cronjobs\.batch, ingresses\.networking\.k8s\.io, networkpolicies\.networking\.k8s\.io, daemonsets\.apps, replicasets\.apps, statefulsets\.apps, endpointslices\.discovery\.k8s\.io, controllerrevisions\.apps, widgets\.test\.metalfleet\.io, gadgets\.test\.metalfleet\.io\)$/ });
  t.throws(() => server.create({ apiVersion: 'v9', kind: 'Nope', metadata: { name: 'x' } }), { message: /no served resource for apiVersion "v9" kind "Nope"/ });
});

test('hooks - endWatches and openWatches by resource; close() ends open watches at once', async (t) => {
  const server = await startKubeApi({ crdDir: CRD_DIR });
  const widgets = await openWatch(server, `${widgetsPath}?watch=true`);
  const secrets = await openWatch(server, `/api/v1/namespaces/${NS}/secrets?watch=true`);
  t.is(server.openWatches(), 2);
  t.is(server.openWatches({ resource: 'Secret' }), 1);
  t.is(server.endWatches({ resource: 'secrets' }), 1);
  await secrets.ended;
  t.is(server.openWatches(), 1);
  const started = Date.now();
  await server.close();
  t.true(Date.now() - started < 1_000, 'close does not wait for the watch timeout');
  await t.throwsAsync(widgets.ended);
  await server.close();
});
