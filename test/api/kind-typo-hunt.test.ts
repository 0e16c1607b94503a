// A kind metalfleet reads, written with an apiVersion of no group it is served in (or a Secret
// with none), is a typo, not another resource: it was skipped as "kind not managed" and apply and
// demo -f went on without it (exit 0, the host never created, its Secret never stored).
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { misgroupedKind } from '../../src/api/kind-typo.ts';
import { validateDocuments } from '../../src/adapters/store/validate.ts';
import { openLocalStore } from '../../src/adapters/store/local-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { readManifests } from '../../src/api/manifest.ts';
import { issueInDocuments } from '../../src/api/manifest-where.ts';
import { runApply } from '../../src/cli/commands/apply.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';

const HOST = (apiVersion: string) => [
  `apiVersion: ${apiVersion}`,
  'kind: BareMetalHost',
  'metadata:',
  '  name: h1',
  '  namespace: lab',
  'spec:',
  '  online: true',
  '  bmc:',
  '    address: redfish://192.0.2.1/redfish/v1/Systems/1',
  '    credentialsName: h1-bmc',
  '',
].join('\n');

const PASSWORD = 'hunt-never-in-a-message';
const SECRET_WITHOUT_API_VERSION = `kind: Secret\nmetadata:\n  name: h1-bmc\n  namespace: lab\nstringData:\n  username: admin\n  password: ${PASSWORD}\n`;

test('kind group - a known kind of another group, or a Secret of no v1, is named with the apiVersion meant', (t) => {
  t.is(misgroupedKind('metal3/v1alpha1', 'BareMetalHost'), 'Unsupported value: "metal3/v1alpha1": no kind BareMetalHost is served there (kubectl finds no match either); did you mean metal3.io/v1alpha1?');
  t.regex(misgroupedKind('metal3.io.v1alpha1', 'HostFirmwareSettings') ?? '', /metal3\.io\/v1alpha1/);
  t.regex(misgroupedKind('infrastructure.cluster.x-k8s.io.v1beta1', 'MaasMachine') ?? '', /infrastructure\.cluster\.x-k8s\.io\/v1beta1/);
  t.is(misgroupedKind(undefined, 'Secret'), 'Required value: a Secret is apiVersion v1');
  t.regex(misgroupedKind('v2', 'Secret') ?? '', /v1/);
  t.regex(misgroupedKind('v1', 'BareMetalHost') ?? '', /metal3\.io\/v1alpha1/);
  t.regex(misgroupedKind('metal3.io', 'BareMetalHost') ?? '', /metal3\.io\/v1alpha1/);
  t.regex(misgroupedKind('metal.io/v1alpha1', 'BareMetalHost') ?? '', /metal3\.io\/v1alpha1/);
  t.regex(misgroupedKind('cluster.x-k8s.io/v1beta1', 'MaasMachine') ?? '', /infrastructure\.cluster\.x-k8s\.io\/v1beta1/);
  // What metalfleet reads, or another API's kind of the same name: nothing to say.
  t.is(misgroupedKind('metal3.io/v1alpha1', 'BareMetalHost'), null);
  t.is(misgroupedKind('metal3.io/v1beta1', 'BareMetalHost'), null);
  t.is(misgroupedKind(undefined, 'BareMetalHost'), null);
  t.is(misgroupedKind('v1', 'Secret'), null);
  t.is(misgroupedKind('example.com/v1', 'BareMetalHost'), null);
  t.is(misgroupedKind('example.com/v1', 'HostFirmwareSettings'), null);
  t.is(misgroupedKind('example.com/v1', 'MaasMachine'), null);
  t.is(misgroupedKind('example.com/v1', 'Secret'), null);
  t.is(misgroupedKind('machine.openshift.io/v1beta1', 'Machine'), null);
  t.is(misgroupedKind('postgresql.cnpg.io/v1', 'Cluster'), null);
  t.is(misgroupedKind('v1', 'ConfigMap'), null);
});

test('kind group - the store refuses a host of a mistyped apiVersion and a Secret without one, naming the field', (t) => {
  const docs = [
    { file: 'a.yaml', index: 0, object: { apiVersion: 'metal3/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab' }, spec: { online: true } } },
    { file: 'a.yaml', index: 1, object: { kind: 'Secret', metadata: { name: 's', namespace: 'lab' }, stringData: { password: PASSWORD } } },
    { file: 'a.yaml', index: 2, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'lab' } } },
  ];
  const { valid, issues } = validateDocuments(docs);
  t.deepEqual(issues.map((i) => [i.index, i.path]), [[0, 'apiVersion'], [1, 'apiVersion']]);
  t.deepEqual(valid.map((v) => v.type), ['skipped']);
  for (const issue of issues) t.false(issue.message.includes(PASSWORD));
});

test('kind group - demo -f\'s store applies nothing, and says where, when a Secret has no apiVersion', async (t) => {
  const transport = createMemoryBus().connect('hunt');
  const store = await openLocalStore(transport);
  t.teardown(async () => {
    await store.close();
    await transport.close();
  });
  const text = `${SECRET_WITHOUT_API_VERSION}---\n${HOST('metal3.io/v1alpha1')}`;
  const result = await store.applyText(text, 'hosts.yaml');
  t.false(result.ok);
  const lines = result.issues.map((i) => issueInDocuments(i, readManifests(text, 'hosts.yaml')));
  t.deepEqual(lines.length, 1);
  t.regex(lines[0] ?? '', /^hosts\.yaml:1:1: Secret lab\/h1-bmc: apiVersion: /);
  t.false((lines[0] ?? '').includes(PASSWORD));
  t.is(await store.get('lab/h1'), undefined);
  t.is(store.secrets.peek('lab/h1-bmc'), undefined);
});

test('kind group - apply refuses a host of a mistyped apiVersion before any node is asked', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-group-hunt-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'hosts.yaml');
  await writeFile(file, `${HOST('metal3.io/v1alpha1').replace('name: h1', 'name: h0')}---\n${HOST('metal3/v1alpha1')}`);
  const err: string[] = [];
  // Nothing listens on port 9: a request to a node would fail with "no node", not name the field.
  const ok = await runApply([file], { nats: 'nats://127.0.0.1:9' }, { out: () => undefined, err: (line) => err.push(line) });
  t.false(ok);
  // Refused by validate's rules, which apply runs first, in validate's words.
  t.true(err.some((line) => line.startsWith(`${file}:12:1: BareMetalHost lab/h1: apiVersion: Unsupported value: "metal3/v1alpha1"`)), err.join('\n'));
  t.is(err.at(-1), 'nothing was applied: 1 invalid object, 0 unreadable');
});

test('kind group - a node\'s --secrets refuses a Secret without apiVersion, naming the file, not its values', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-group-secrets-hunt-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'bmc.yaml');
  await writeFile(file, SECRET_WITHOUT_API_VERSION);
  // It was skipped without a word: the node ran without the host's credentials.
  const error = await t.throwsAsync(loadSecretFiles([file]));
  t.regex(error?.message ?? '', /bmc\.yaml.*apiVersion/);
  t.false((error?.message ?? '').includes(PASSWORD));
});
