// Strict (cluster-like) mode over plain HTTP: system namespaces, NamespaceLifecycle, namespace
// deletion, CRDs installed through the API, protobuf bodies, OpenAPI and Tables.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startKubeApi } from '../support/kube-api/index.ts';
import type { KubeApiServer } from '../support/kube-api/index.ts';
import { CRD_DIR, GROUP, VERSION, raw } from './helpers.ts';

async function strict(t: ExecutionContext, crdDir?: string): Promise<KubeApiServer> {
  const server = await startKubeApi({ namespaces: 'strict', ...(crdDir ? { crdDir } : {}) });
  t.teardown(() => server.close());
  return server;
}

const secret = (name: string, namespace: string): object => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData: { a: 'b' } });

test('cluster - system namespaces exist; a missing namespace is 404, a terminating one 403; delete waits for finalizers', async (t) => {
  const server = await strict(t);
  const names = ((await raw(server, 'GET', '/api/v1/namespaces')).json().items as { metadata: { name: string } }[]).map((n) => n.metadata.name);
  t.deepEqual(names, ['default', 'kube-public', 'kube-system']);

  const missing = await raw(server, 'POST', '/api/v1/namespaces/x/secrets', secret('s', 'x'));
  t.is(missing.status, 404);
  t.deepEqual(missing.json(), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'namespaces "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'namespaces' }, code: 404,
  });

  t.is((await raw(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } })).status, 201);
  server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'held', namespace: 'x', finalizers: ['example.com/hold'] } });
  server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'free', namespace: 'x' } });
  const deleted = await raw(server, 'DELETE', '/api/v1/namespaces/x');
  t.is(deleted.status, 200);
  t.like(deleted.json(), { kind: 'Namespace', status: { phase: 'Terminating' } });
  await server.waitForRequests({ method: 'DELETE' }, 1);
  await new Promise((ok) => setImmediate(ok));
  t.is(server.get({ resource: 'secrets', namespace: 'x', name: 'free' }), undefined);
  t.truthy(server.get({ resource: 'secrets', namespace: 'x', name: 'held' })?.metadata?.deletionTimestamp);
  t.truthy(server.get({ resource: 'namespaces', name: 'x' }), 'the namespace waits for the finalizer');

  const refused = await raw(server, 'POST', '/api/v1/namespaces/x/secrets', secret('late', 'x'));
  t.is(refused.status, 403);
  t.like(refused.json(), { reason: 'Forbidden', message: 'secrets "late" is forbidden: unable to create new content in namespace x because it is being terminated' });

  server.patch({ resource: 'secrets', namespace: 'x', name: 'held' }, { metadata: { finalizers: null } });
  await new Promise((ok) => setImmediate(ok));
  t.is(server.get({ resource: 'namespaces', name: 'x' }), undefined);
});

test('cluster - a CRD created through the API is served at once and its objects go with it', async (t) => {
  const server = await strict(t);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', description: 'What a thing is.', properties: { size: { type: 'integer' } } } } } },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      }],
    },
  };
  t.is((await raw(server, 'GET', '/apis/example.com/v1')).status, 404);
  const created = await raw(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  t.is(created.status, 201);
  t.like(created.json(), { status: { acceptedNames: { kind: 'Thing', plural: 'things' }, storedVersions: ['v1'] } });
  t.like((await raw(server, 'GET', '/apis/example.com/v1')).json(), { resources: [{ name: 'things', kind: 'Thing', namespaced: true }] });

  const thing = await raw(server, 'POST', '/apis/example.com/v1/namespaces/default/things', { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a' }, spec: { size: 3 } });
  t.is(thing.status, 201);
  const table = await fetch(`${server.url}/apis/example.com/v1/namespaces/default/things`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  t.like(await table.json(), { kind: 'Table', columnDefinitions: [{ name: 'Name', format: 'name' }, { name: 'Size', type: 'integer' }], rows: [{ cells: ['a', 3] }] });

  const index = (await raw(server, 'GET', '/openapi/v3')).json() as { paths: Record<string, { serverRelativeURL: string }> };
  const doc = (await raw(server, 'GET', index.paths['apis/example.com/v1']?.serverRelativeURL ?? '')).json() as { components: { schemas: Record<string, { properties: { spec: { description: string } } }> } };
  t.is(doc.components.schemas['com.example.v1.Thing']?.properties.spec.description, 'What a thing is.');

  const badName = await raw(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { ...crd, metadata: { name: 'wrong' } });
  t.is(badName.status, 422);
  t.regex(badName.json().message as string, /metadata\.name: Invalid value: "wrong": must be spec\.names\.plural\+"\."\+spec\.group/);

  t.is((await raw(server, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com')).status, 200);
  t.is((await raw(server, 'GET', '/apis/example.com/v1')).status, 404);
  await new Promise((ok) => setImmediate(ok));
  t.is((await raw(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  t.is(((await raw(server, 'GET', '/apis/example.com/v1/namespaces/default/things')).json().items as unknown[]).length, 0, 'the old objects went with the CRD');
});

test('cluster - a protobuf Namespace body (as kubectl 1.32 sends it) is decoded; CRDs from crdDir are stored objects', async (t) => {
  const server = await strict(t, CRD_DIR);
  // `kubectl create ns foo`, captured with -v=8.
  const body = Buffer.from('6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a00320038004200120' + '01a020a001a002200', 'hex');
  const res = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, body });
  t.is(res.status, 201);
  t.like(await res.json(), { kind: 'Namespace', metadata: { name: 'foo' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  const garbage = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, body: 'nope' });
  t.is(garbage.status, 400);

  const crds = (await raw(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).json().items as { metadata: { name: string } }[];
  t.true(crds.some((c) => c.metadata.name === `widgets.${GROUP}`));
  t.is((await raw(server, 'GET', `/apis/${GROUP}/${VERSION}`)).status, 200);
});

test('cluster - a repeated JSON key: Strict refuses it with the unknown fields, Warn warns, Ignore is silent', async (t) => {
  const server = await strict(t, CRD_DIR);
  const path = `/apis/${GROUP}/${VERSION}/namespaces/default/widgets`;
  const body = (name: string): string => `{"apiVersion":"${GROUP}/${VERSION}","kind":"Widget","metadata":{"name":"${name}"},"spec":{"size":1,"size":2,"foo":1}}`;
  const refused = await raw(server, 'POST', `${path}?fieldValidation=Strict`, body('a'));
  t.is(refused.status, 400);
  t.is(refused.json().message, `Widget in version "${VERSION}" cannot be handled as a Widget: strict decoding error: duplicate field "spec.size", unknown field "spec.foo"`);
  const warned = await raw(server, 'POST', `${path}?fieldValidation=Warn`, body('b'));
  t.is(warned.status, 201);
  t.is(warned.headers.get('warning'), '299 - "duplicate field \\"spec.size\\"", 299 - "unknown field \\"spec.foo\\""');
  t.like(warned.json(), { spec: { size: 2 } });
  const ignored = await raw(server, 'POST', `${path}?fieldValidation=Ignore`, body('c'));
  t.is(ignored.status, 201);
  t.is(ignored.headers.get('warning'), null);
});
