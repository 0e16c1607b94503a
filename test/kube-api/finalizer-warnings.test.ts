// A custom resource's finalizer without a domain is accepted with a warning (kube-api.md §5;
// customResourceStrategy.WarningsOnCreate/WarningsOnUpdate), which kubectl prints: only for the
// finalizers a write adds, not for the standard ones, not on /status, not for built-in kinds.
import test from 'ava';
import { NS, raw, widget, widgetsPath, withApi } from './helpers.ts';
import { DEPLOY_CRDS, hostYaml, withKubectl } from './kubectl-support.ts';

const warned = (name: string): string =>
  `299 - "metadata.finalizers: \\"${name}\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"`;

test('finalizer warnings - each added finalizer without a domain is warned about once, in a Warning header', async (t) => {
  const { server } = await withApi(t);
  const body = widget('a', { size: 1 }, { metadata: { name: 'a', namespace: NS, finalizers: ['cleanup', 'test.metalfleet.io/ok', 'orphan', 'b-local'] } });
  const created = await raw(server, 'POST', widgetsPath, body);
  t.is(created.status, 201);
  t.is(created.headers.get('warning'), [warned('b-local'), warned('cleanup')].join(', '));

  const stored = created.json() as { metadata: Record<string, unknown> };
  const same = await raw(server, 'PUT', `${widgetsPath}/a`, stored);
  t.deepEqual([same.status, same.headers.get('warning')], [200, null], 'finalizers already there are not warned about again');

  const patched = await raw(server, 'PATCH', `${widgetsPath}/a`, { metadata: { finalizers: ['cleanup', 'later'] } }, 'application/merge-patch+json');
  t.deepEqual([patched.status, patched.headers.get('warning')], [200, warned('later')]);

  const dryRun = await raw(server, 'POST', `${widgetsPath}?dryRun=All`, widget('b', { size: 1 }, { metadata: { name: 'b', namespace: NS, finalizers: ['x'] } }));
  t.deepEqual([dryRun.status, dryRun.headers.get('warning')], [201, warned('x')]);

  const status = await raw(server, 'PATCH', `${widgetsPath}/a/status`, { status: { phase: 'Ready' }, metadata: { finalizers: ['ignored'] } }, 'application/merge-patch+json');
  t.deepEqual([status.status, status.headers.get('warning')], [200, null], '/status changes no finalizer and warns about none');

  const secret = await raw(server, 'POST', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', finalizers: ['plain'] } });
  t.deepEqual([secret.status, secret.headers.get('warning')], [201, null], 'built-in kinds are not warned about');

  const applied = await raw(server, 'PATCH', `${widgetsPath}/c?fieldManager=m`,
    JSON.stringify(widget('c', { size: 1 }, { metadata: { name: 'c', namespace: NS, finalizers: ['mine'] } })), 'application/apply-patch+yaml');
  t.deepEqual([applied.status, applied.headers.get('warning')], [201, warned('mine')]);
});

test('finalizer warnings - kubectl apply prints the warning and creates the host', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  const host = await k.file('host.yaml', hostYaml('h1', 'default', '  online: true\n').replace('  namespace: default\n', '  namespace: default\n  finalizers: [baremetalhost.metal3.io]\n'));
  const r = await k.run('apply', '-f', host);
  t.is(r.code, 0, r.stderr);
  t.is(r.stderr, 'Warning: metadata.finalizers: "baremetalhost.metal3.io": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers\n');
  t.is(await k.ok('get', 'bmh', 'h1', '-n', 'default', '-o', 'jsonpath={.metadata.finalizers}'), '["baremetalhost.metal3.io"]');
});
