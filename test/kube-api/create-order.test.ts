// Where create's checks happen on a real server: validation in rest.BeforeCreate, the namespace's
// `kubernetes` finalizer in the Namespace strategy's PrepareForCreate (after the handler tracked
// field ownership), and the "resourceVersion should not be set" refusal only in etcd3's
// store.Create, which a dry run never reaches (DryRunnableStorage checks existence only).
import test from 'ava';
import { startKubeApi } from '../support/kube-api/index.ts';
import { meta, raw, widget, widgetsPath, withApi } from './helpers.ts';
import { withKubectl } from './kubectl-support.ts';

test('create order - an invalid object with a resourceVersion is a 422, not the storage layer\'s 500', async (t) => {
  const { server } = await withApi(t);
  const body = widget('a', { size: 100 });
  body.metadata = { name: 'a', resourceVersion: '5' };
  const res = await raw(server, 'POST', widgetsPath, body);
  t.is(res.status, 422);
  t.is(res.json().reason, 'Invalid');
  t.is(res.json().message, 'Widget.test.metalfleet.io "a" is invalid: spec.size: Invalid value: 100: spec.size in body should be less than or equal to 10');
});

test('create order - a valid object with a resourceVersion is still the 500; a dry run never reaches that check', async (t) => {
  const { server } = await withApi(t);
  const body = widget('a');
  body.metadata = { name: 'a', resourceVersion: '5' };
  const stored = await raw(server, 'POST', widgetsPath, body);
  t.deepEqual([stored.status, stored.json().message], [500, 'resourceVersion should not be set on objects to be created']);

  const rv = server.resourceVersion();
  const dry = await raw(server, 'POST', `${widgetsPath}?dryRun=All`, body);
  t.is(dry.status, 201);
  t.is(meta(dry.json()).name, 'a');
  t.is(server.resourceVersion(), rv, 'a dry run stores nothing');
  t.is(server.get({ resource: 'widgets', namespace: 'ns1', name: 'a' }), undefined);

  server.create(widget('b'));
  const taken = { ...widget('b'), metadata: { name: 'b', resourceVersion: '5' } };
  const dryTaken = await raw(server, 'POST', `${widgetsPath}?dryRun=All`, taken);
  t.deepEqual([dryTaken.status, dryTaken.json().reason], [409, 'AlreadyExists']);
});

test('create order - a Namespace\'s kubernetes finalizer comes from PrepareForCreate: not owned by the creator, appended to given ones', async (t) => {
  const server = await startKubeApi({ namespaces: 'strict' });
  t.teardown(() => server.close());
  const plain = await raw(server, 'POST', '/api/v1/namespaces?fieldManager=m', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
  t.is(plain.status, 201);
  const obj = plain.json() as { spec: { finalizers: string[] }; metadata: { managedFields: { manager: string; fieldsV1: unknown }[] } };
  t.deepEqual(obj.spec.finalizers, ['kubernetes']);
  t.deepEqual(obj.metadata.managedFields.map((e) => [e.manager, e.fieldsV1]), [
    ['m', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }],
  ]);

  const given = await raw(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' }, spec: { finalizers: ['example.com/hold'] } });
  t.is(given.status, 201);
  t.deepEqual((given.json() as { spec: { finalizers: string[] } }).spec.finalizers, ['example.com/hold', 'kubernetes']);
});

test('create order - kubectl create ns: managedFields name only the metadata.name label, as on a cluster', async (t) => {
  const k = await withKubectl(t);
  await k.ok('create', 'ns', 'team-a');
  const out = JSON.parse(await k.ok('get', 'ns', 'team-a', '-o', 'json', '--show-managed-fields')) as {
    spec: { finalizers: string[] };
    metadata: { managedFields: { manager: string; operation: string; fieldsV1: unknown }[] };
  };
  t.deepEqual(out.spec.finalizers, ['kubernetes']);
  t.deepEqual(out.metadata.managedFields.map((e) => [e.manager, e.operation, e.fieldsV1]), [
    ['kubectl-create', 'Update', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }],
  ]);
});

test('create order - PUT or PATCH on a custom resource collection is a 400 naming the missing name, before the body is read', async (t) => {
  const { server } = await withApi(t);
  const put = await raw(server, 'PUT', widgetsPath, widget('a'));
  t.deepEqual([put.status, put.json().reason, put.json().message], [400, 'BadRequest', 'name must be provided']);
  const patch = await raw(server, 'PATCH', widgetsPath, { spec: { size: 2 } }, 'application/merge-patch+json');
  t.deepEqual([patch.status, patch.json().reason, patch.json().message], [400, 'BadRequest', 'name must be provided']);
});
