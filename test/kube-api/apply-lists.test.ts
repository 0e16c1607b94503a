// Server-side apply on a custom resource whose schema declares list types: a `map` list merges and
// is owned per element, a `set` list per value, an undeclared list is atomic (kube-api.md §6).
import test from 'ava';
import { startKubeApi } from '../support/kube-api/index.ts';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'pools.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced', names: { plural: 'pools', singular: 'pool', kind: 'Pool', listKind: 'PoolList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {
        members: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['host', 'port'], items: { type: 'object', required: ['host', 'port'], properties: { host: { type: 'string' }, port: { type: 'integer' }, weight: { type: 'integer' } } } },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        notes: { type: 'array', items: { type: 'string' } },
      } } } } },
    }],
  },
};

test('apply lists - a custom resource\'s map and set lists merge across managers; an undeclared list conflicts whole', async (t) => {
  const api = await startKubeApi({ namespaces: 'strict', crds: [crd] });
  t.teardown(() => api.close());
  const path = '/apis/example.com/v1/namespaces/default/pools/p1';
  const apply = async (manager: string, spec: object): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${api.url}${path}?fieldManager=${manager}`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Pool', metadata: { name: 'p1', namespace: 'default' }, spec }),
    });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  t.is((await apply('a', { members: [{ host: 'h1', port: 1, weight: 1 }], tags: ['x'], notes: ['n1'] })).status, 201);
  const b = await apply('b', { members: [{ host: 'h2', port: 1 }], tags: ['y'] });
  t.is(b.status, 200);
  const obj = b.body as { spec: unknown; metadata: { managedFields: { manager: string; fieldsV1: unknown }[] } };
  t.deepEqual(obj.spec, { members: [{ host: 'h1', port: 1, weight: 1 }, { host: 'h2', port: 1 }], notes: ['n1'], tags: ['x', 'y'] });
  t.deepEqual(obj.metadata.managedFields.find((e) => e.manager === 'b')?.fieldsV1, {
    'f:spec': { 'f:members': { 'k:{"host":"h2","port":1}': { '.': {}, 'f:host': {}, 'f:port': {} } }, 'f:tags': { 'v:"y"': {} } },
  });
  const conflict = await apply('b', { members: [{ host: 'h1', port: 1, weight: 2 }], notes: ['n2'] });
  t.is(conflict.status, 409);
  t.is(conflict.body.message, 'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.members[host="h1",port=1].weight\n- .spec.notes');
});
