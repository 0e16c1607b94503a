import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { CrdLoadError, startKubeApi } from '../support/kube-api/index.ts';
import { GROUP, VERSION, meta, raw, withApi } from './helpers.ts';

function crd(overrides: { name?: string; versions?: unknown[]; spec?: Record<string, unknown> } = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: overrides.name ?? 'things.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' },
      versions: overrides.versions ?? [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: overrides.spec ?? { size: { type: 'integer' } } } } } } }],
    },
  };
}

test('crds - a folder of multi-document YAML is served, other documents skipped; discovery lists it all', async (t) => {
  const { server } = await withApi(t);
  const apis = await raw(server, 'GET', '/apis');
  t.deepEqual(apis.json(), {
    kind: 'APIGroupList', apiVersion: 'v1', groups: [
      { name: 'coordination.k8s.io', versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' } },
      { name: 'apiextensions.k8s.io', versions: [{ groupVersion: 'apiextensions.k8s.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apiextensions.k8s.io/v1', version: 'v1' } },
      // The stored-only kinds of a provider's components (builtin.ts).
      // Then the kinds kubectl apply --prune maps (kubectl-prune.test.ts), and EndpointSlices.
      ...['apps', 'rbac.authorization.k8s.io', 'policy', 'admissionregistration.k8s.io', 'batch', 'networking.k8s.io', 'discovery.k8s.io'].map((name) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } })),
      { name: GROUP, versions: [{ groupVersion: `${GROUP}/${VERSION}`, version: VERSION }], preferredVersion: { groupVersion: `${GROUP}/${VERSION}`, version: VERSION } },
    ],
  });
  const gv = (await raw(server, 'GET', `/apis/${GROUP}/${VERSION}`)).json() as { resources: Record<string, unknown>[] };
  t.deepEqual(gv.resources, [
    { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'], shortNames: ['wd'] },
    { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    { name: 'gadgets', singularName: 'gadget', namespaced: false, kind: 'Gadget', verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'] },
  ]);
  const core = (await raw(server, 'GET', '/api/v1')).json() as { groupVersion: string; resources: { name: string }[] };
  t.is(core.groupVersion, 'v1');
  t.deepEqual(core.resources.map((r) => r.name), ['secrets', 'events', 'namespaces', 'namespaces/status', 'serviceaccounts', 'configmaps', 'services', 'services/status',
    'pods', 'endpoints', 'persistentvolumeclaims', 'persistentvolumes', 'replicationcontrollers']);
  t.deepEqual((await raw(server, 'GET', '/api')).json(), { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${server.port}` }] });
  t.like((await raw(server, 'GET', '/version')).json(), { major: '1', minor: '34', gitVersion: 'v1.34.0' });
  t.is((await raw(server, 'GET', `/apis/${GROUP}`)).json().kind, 'APIGroup');
  t.is((await raw(server, 'GET', '/apis/ignored')).status, 404);
});

test('crds - objects work too; a multi-version CRD serves one stored object in each version', async (t) => {
  const server = await startKubeApi({ crds: [crd({ versions: [
    { name: 'v1alpha1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, old: { type: 'string' } } } } } } },
    { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } } } },
    { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
  ] })] });
  t.teardown(() => server.close());
  const api = server.kubeConfig().makeApiClient(CustomObjectsApi);
  await api.createNamespacedCustomObject({ group: 'example.com', version: 'v1alpha1', namespace: 'n', plural: 'things', body: { apiVersion: 'example.com/v1alpha1', kind: 'Thing', metadata: { name: 'x' }, spec: { old: 'o' } } });
  const v1 = await api.getNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'n', plural: 'things', name: 'x' });
  t.is((v1 as { apiVersion: string }).apiVersion, 'example.com/v1');
  t.deepEqual((v1 as { spec: unknown }).spec, { old: 'o', size: 1 }, 'no conversion: the object as stored, with the v1 defaults on read');
  const group = (await raw(server, 'GET', '/apis/example.com')).json() as { versions: { version: string }[]; preferredVersion: { version: string } };
  t.deepEqual(group.versions.map((v) => v.version), ['v1', 'v1alpha1']);
  t.is(group.preferredVersion.version, 'v1');
  t.is((await raw(server, 'GET', '/apis/example.com/v2/namespaces/n/things')).status, 404, 'an unserved version is not found');
});

test('crds - a CRD the real server refuses is refused with its message', async (t) => {
  const refused = async (c: unknown): Promise<string> => (await t.throwsAsync(startKubeApi({ crds: [c as object] }), { instanceOf: CrdLoadError }))?.message ?? '';
  t.is(await refused(crd({ name: 'wrong.example.com' })),
    'crds[0]: CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid: metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group');
  t.regex(await refused(crd({ spec: { size: { minimum: 1 } } })),
    /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[size\]\.type: Required value: must not be empty for specified object fields$/);
  t.regex(await refused(crd({ spec: { m: { type: 'object', additionalProperties: false } } })), /properties\[m\]\.additionalProperties: Forbidden: additionalProperties cannot be set to false/);
  t.regex(await refused(crd({ spec: { l: { type: 'array' } } })), /properties\[l\]\.items: Required value: must be specified/);
  t.regex(await refused(crd({ spec: { n: { type: 'integer', default: 'x' } } })), /properties\[n\]\.default: Invalid value: "string": default in body must be of type integer: "string"/);
  const twoStorage = crd({ versions: [
    { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
    { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
  ] });
  t.regex(await refused(twoStorage), /spec\.versions: Invalid value: \["v1","v2"\]: must have exactly one version marked as storage version/);
  t.regex(await refused({ kind: 'ConfigMap' }), /^crds\[0\]: not an apiextensions\.k8s\.io\/v1 CustomResourceDefinition: apiVersion: /);
  t.regex(await refused(crd({ versions: [{ name: 'v1', served: true, storage: true }] })), /spec\.versions\[0\]\.schema\.openAPIV3Schema: Required value: schemas are required/);
});

test('crds - a folder with a broken or repeated CRD fails to load and names the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kube-api-crds-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'a.yaml'), 'kind: CustomResourceDefinition\n  bad: [indent\n');
  const broken = await t.throwsAsync(startKubeApi({ crdDir: dir }), { instanceOf: CrdLoadError });
  t.regex(broken?.message ?? '', /a\.yaml: document 1 is not YAML/);
  await writeFile(join(dir, 'a.yaml'), `${JSON.stringify(crd())}\n`);
  await writeFile(join(dir, 'b.json'), JSON.stringify(crd()));
  const twice = await t.throwsAsync(startKubeApi({ crdDir: dir }), { instanceOf: CrdLoadError });
  t.is(twice?.message, 'things.example.com is defined twice');
  await rm(join(dir, 'b.json'));
  const ok = await startKubeApi({ crdDir: dir });
  t.teardown(() => ok.close());
  t.is(meta(ok.create({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' } })).generation, 1);
});
