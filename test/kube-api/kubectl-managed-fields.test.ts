// managedFields times as the API server keeps them (fieldmanager's managedFieldsUpdater): only the
// manager that wrote gets a new time, and it gets one whenever its write changed a field, even a
// field it already owned. A server-side apply conflict names the other manager with that time.
import test from 'ava';
import { DEPLOY_CRDS, hostYaml, withKubectl } from './kubectl-support.ts';

interface Entry { manager: string; time: string; fieldsV1: Record<string, unknown> }

test('kubectl managed fields - a write that takes a field leaves the other manager\'s time; the writer\'s time moves on every change', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  await k.ok('create', '-f', await k.file('h1.yaml', hostYaml('h1', 'default', '  online: true\n')));
  const entry = (manager: string, fields: object): object => ({
    manager, operation: 'Update', apiVersion: 'metal3.io/v1alpha1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: fields,
  });
  // managedFields sent with a write replace the stored ones (decodeLiveOrNew).
  await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', JSON.stringify({
    metadata: { managedFields: [entry('old-tool', { 'f:spec': { 'f:online': {}, 'f:bmc': { 'f:address': {}, 'f:credentialsName': {} } } })] },
  }));
  const managed = async (): Promise<Entry[]> => (JSON.parse(await k.ok('get', 'bmh', 'h1', '-o', 'json', '--show-managed-fields')) as { metadata: { managedFields: Entry[] } }).metadata.managedFields;
  t.deepEqual((await managed()).map((e) => [e.manager, e.time]), [['old-tool', '2020-01-01T00:00:00Z']]);

  await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', '{"spec":{"online":false}}');
  const [old, patcher] = await managed();
  t.deepEqual(old, { ...entry('old-tool', { 'f:spec': { 'f:bmc': { 'f:address': {}, 'f:credentialsName': {} } } }), time: '2020-01-01T00:00:00Z' } as unknown as Entry);
  t.is(patcher?.manager, 'kubectl-patch');

  const conflict = await k.run('apply', '--server-side', '-f', await k.file('other.yaml', hostYaml('h1', 'default', '  online: false\n').replace('ipmi://10.0.0.1', 'ipmi://10.0.0.2')));
  t.regex(conflict.stderr, /Apply failed with 1 conflict: conflict with "old-tool" using metal3\.io\/v1alpha1 at 2020-01-01T00:00:00Z: \.spec\.bmc\.address/);

  // The same manager changing a field it owns gets a new time.
  await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', JSON.stringify({
    metadata: { managedFields: [entry('old-tool', { 'f:spec': { 'f:bmc': { 'f:address': {}, 'f:credentialsName': {} } } }), entry('kubectl-patch', { 'f:spec': { 'f:online': {} } })] },
  }));
  await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', '{"spec":{"online":true}}');
  const times = Object.fromEntries((await managed()).map((e) => [e.manager, e.time]));
  t.is(times['old-tool'], '2020-01-01T00:00:00Z');
  t.not(times['kubectl-patch'], '2020-01-01T00:00:00Z');
});
