// The FieldsV1 of an Update (create, replace, non-apply patch) as structured-merge-diff writes it for
// a custom resource: an object the write added is owned itself too, a `.` entry next to its fields
// (`f:spec: {.: {}, f:online: {}}`); one that was there already is not. `metadata` itself never is.
import test from 'ava';
import { hostYaml, withKubectl } from './kubectl-support.ts';

interface Entry { manager: string; operation: string; fieldsV1: Record<string, unknown> }

test('kubectl managed fields update - objects a write adds carry a `.` entry, objects it only changes do not', async (t) => {
  const k = await withKubectl(t, { crdDir: new URL('../../deploy/crds', import.meta.url).pathname });
  await k.ok('create', '-f', await k.file('h1.yaml', hostYaml('h1', 'default', '  online: true\n').replace('  namespace: default\n', '  namespace: default\n  labels: {app: x}\n')));
  const managed = async (): Promise<Record<string, unknown>> => {
    const obj = JSON.parse(await k.ok('get', 'bmh', 'h1', '-o', 'json', '--show-managed-fields')) as { metadata: { managedFields: Entry[] } };
    return Object.fromEntries(obj.metadata.managedFields.map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
  };
  const created = (await managed())['kubectl-create/Update'] as Record<string, Record<string, unknown>>;
  t.deepEqual(created['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
  t.like(created['f:spec'], { '.': {}, 'f:bmc': { '.': {}, 'f:address': {}, 'f:credentialsName': {} }, 'f:online': {} });

  await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', '{"spec":{"bootMACAddress":"00:11:22:33:44:55"},"metadata":{"annotations":{"a":"1"}}}');
  t.deepEqual((await managed())['kubectl-patch/Update'], {
    'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } },
    'f:spec': { 'f:bootMACAddress': {} },
  });
});

// A built-in kind's Go zero value holds its plain structs (spec, strategy, template), so only the
// maps and pointer structs a write adds get a `.`: a ConfigMap's data, a Deployment's rollingUpdate.
test('kubectl managed fields update - built-in kinds: added maps and pointer structs carry a `.`, plain structs do not', async (t) => {
  const k = await withKubectl(t);
  await k.ok('create', 'configmap', 'c1', '--from-literal=a=1');
  await k.ok('create', 'deployment', 'web', '--image=nginx:1');
  const fields = async (...ref: string[]): Promise<Record<string, Record<string, unknown>>> => {
    const obj = JSON.parse(await k.ok('get', ...ref, '-o', 'json', '--show-managed-fields')) as { metadata: { managedFields: Entry[] } };
    return obj.metadata.managedFields[0]?.fieldsV1 as Record<string, Record<string, unknown>>;
  };
  t.deepEqual((await fields('configmap', 'c1'))['f:data'], { '.': {}, 'f:a': {} });
  const spec = (await fields('deployment', 'web'))['f:spec'] as Record<string, Record<string, unknown>>;
  t.false('.' in spec);
  t.deepEqual(spec['f:strategy'], { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} });
  t.deepEqual(spec['f:selector'], {});
});
