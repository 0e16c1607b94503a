// Server-side apply edges kubectl and controllers meet (kube-api.md §5, §6): the applied
// configuration must be of the endpoint's kind and version (fieldmanager's versionCheckManager), and
// an apply on /status ignores the configuration's spec (the status strategy's reset fields), so it
// neither conflicts with the spec's owner nor changes the spec.
import test from 'ava';
import { GROUP, VERSION, raw, widgetsPath, withApi } from './helpers.ts';

const APPLY = 'application/apply-patch+yaml';

test('apply edges - a configuration without the endpoint\'s apiVersion and kind is a 400 naming what it got', async (t) => {
  const { server } = await withApi(t);
  const body = (o: object): string => JSON.stringify({ metadata: { name: 'a' }, spec: { size: 1 }, ...o });

  const bare = await raw(server, 'PATCH', `${widgetsPath}/a?fieldManager=m`, body({ kind: 'Widget' }), APPLY);
  t.deepEqual([bare.status, bare.text], [400,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid object type: /, Kind=Widget","reason":"BadRequest","code":400}']);
  t.is((await raw(server, 'GET', `${widgetsPath}/a`)).status, 404, 'nothing was created');

  const created = await raw(server, 'PATCH', `${widgetsPath}/a?fieldManager=m`, body({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget' }), APPLY);
  t.is(created.status, 201);
  const rv = server.resourceVersion();

  const cases: [object, string][] = [
    [{ apiVersion: `${GROUP}/${VERSION}` }, `invalid object type: ${GROUP}/${VERSION}, Kind=`],
    [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'Gadget' }, `invalid object type: ${GROUP}/${VERSION}, Kind=Gadget`],
    [{ apiVersion: `${GROUP}/v1`, kind: 'Widget' }, `invalid object type: ${GROUP}/v1, Kind=Widget`],
    [{ apiVersion: 'a/b/c', kind: 'Widget' }, 'invalid object type: /, Kind='],
  ];
  for (const [typeMeta, message] of cases) {
    const r = await raw(server, 'PATCH', `${widgetsPath}/a?fieldManager=m`, body(typeMeta), APPLY);
    t.deepEqual([r.status, r.json().reason, r.json().message], [400, 'BadRequest', message], JSON.stringify(typeMeta));
  }
  // The status subresource runs the same field manager check.
  const status = await raw(server, 'PATCH', `${widgetsPath}/a/status?fieldManager=m`, JSON.stringify({ metadata: { name: 'a' }, status: { phase: 'Ready' } }), APPLY);
  t.deepEqual([status.status, status.json().message], [400, 'invalid object type: /, Kind=']);
  t.is(server.resourceVersion(), rv, 'no refused apply wrote anything');
  // /status creates nothing: a missing object is a 404 before the configuration is looked at.
  const missing = await raw(server, 'PATCH', `${widgetsPath}/zz/status?fieldManager=m`, JSON.stringify({ kind: 'Gadget' }), APPLY);
  t.deepEqual([missing.status, missing.json().message], [404, 'widgets.test.metalfleet.io "zz" not found']);
});

test('apply edges - an apply on /status ignores the spec it carries: no conflict with the spec\'s owner, the spec stays', async (t) => {
  const { server } = await withApi(t, { namespaces: 'strict' });
  const path = `/apis/${GROUP}/${VERSION}/namespaces/default/widgets/w1`;
  const doc = (o: object): string => JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, ...o });

  t.is((await raw(server, 'PATCH', `${path}?fieldManager=owner`, doc({ spec: { size: 1, color: 'green' } }), APPLY)).status, 201);
  // A controller applying its status with the whole object it read, spec changed or not.
  const r = await raw(server, 'PATCH', `${path}/status?fieldManager=ctrl`, doc({ spec: { size: 2, color: 'blue' }, status: { phase: 'Ready' } }), APPLY);
  t.is(r.status, 200, r.text);
  const out = r.json() as { spec: Record<string, unknown>; status: Record<string, unknown>; metadata: { generation: number; managedFields: { manager: string; subresource?: string; fieldsV1: Record<string, unknown> }[] } };
  t.deepEqual(out.spec, { size: 1, color: 'green', image: { checksumType: 'sha256' } });
  t.deepEqual(out.status, { phase: 'Ready' });
  t.is(out.metadata.generation, 1);
  const ctrl = out.metadata.managedFields.find((e) => e.manager === 'ctrl');
  t.is(ctrl?.subresource, 'status');
  t.deepEqual(Object.keys(ctrl?.fieldsV1 ?? {}), ['f:status'], 'the status manager owns no spec field');
  const owner = out.metadata.managedFields.find((e) => e.manager === 'owner');
  t.deepEqual(owner?.fieldsV1['f:spec'], { 'f:color': {}, 'f:size': {} }, 'the spec\'s owner keeps it');

  // Applying the status again without the spec is a no-op: the spec was never the status manager's.
  const rv = server.resourceVersion();
  const again = await raw(server, 'PATCH', `${path}/status?fieldManager=ctrl`, doc({ status: { phase: 'Ready' } }), APPLY);
  t.is(again.status, 200);
  t.is(server.resourceVersion(), rv);
});
