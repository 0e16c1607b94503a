import test from 'ava';
import { kindOf, readManifests } from '../../src/api/manifest.ts';
import { Secret, bmcCredentialsFromSecret, secretValue } from '../../src/api/secret.ts';

const TEXT = `# hosts
apiVersion: v1
kind: Secret
metadata:
  name: bmc
  namespace: metal3
stringData:
  username: admin
---
---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: worker-0
spec:
  online: true
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata:
  name: m
  labels: [a, b
---
just a string
`;

test('manifest - multi-document YAML with kind, name, namespace and line', (t) => {
  const docs = readManifests(TEXT, 'hosts.yaml');
  t.deepEqual(docs.map((d) => [d.index, d.line, d.kind, d.name, d.namespace]), [
    [0, 2, 'Secret', 'bmc', 'metal3'],
    [2, 11, 'BareMetalHost', 'worker-0', 'default'],
    [3, 18, 'Machine', 'm', 'default'],
    [4, 24, undefined, undefined, 'default'],
  ]);
  t.is(docs[0]?.file, 'hosts.yaml');
  t.like(docs[1]?.object, { spec: { online: true } });
});

test('manifest - a YAML syntax error stays in its document, with the line', (t) => {
  const docs = readManifests(TEXT, 'hosts.yaml');
  t.is(docs[0]?.yamlError, undefined);
  t.is(docs[1]?.yamlError, undefined);
  t.regex(docs[2]?.yamlError ?? '', /at line \d+, column \d+$/);
  t.false((docs[2]?.yamlError ?? '').includes('\n'));
});

test('manifest - empty text and comment-only documents give nothing', (t) => {
  t.deepEqual(readManifests('', 'x.yaml'), []);
  t.deepEqual(readManifests('# nothing\n---\n# still nothing\n', 'x.yaml'), []);
});

test('manifest - a syntax error never echoes the source', (t) => {
  const docs = readManifests('apiVersion: v1\nkind: Secret\nstringData:\n  password: "hunter2-secret\n', 's.yaml');
  t.is(docs.length, 1);
  t.truthy(docs[0]?.yamlError);
  t.false(docs[0]?.yamlError?.includes('hunter2'));
});

test('manifest - kindOf', (t) => {
  t.is(kindOf({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' }), 'BareMetalHost');
  t.is(kindOf({ kind: 'BareMetalHost' }), 'BareMetalHost');
  t.is(kindOf({ apiVersion: 'v1', kind: 'Secret' }), 'Secret');
  t.is(kindOf({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine' }), 'other');
  t.is(kindOf({ apiVersion: 'example.com/v1', kind: 'BareMetalHost' }), 'other');
});

test('secret - data is base64, stringData is plain, both trimmed', (t) => {
  const secret = Secret.parse({
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc' },
    data: { username: Buffer.from('admin\n').toString('base64'), password: Buffer.from('old').toString('base64') },
    stringData: { password: ' new-pass ' },
  });
  t.is(secretValue(secret, 'username'), 'admin');
  t.is(secretValue(secret, 'password'), 'new-pass');
  t.is(secretValue(secret, 'missing'), undefined);
  t.is(secret.metadata.namespace, 'default');
});

test('secret - data that is not base64 is rejected without echoing it', (t) => {
  const r = Secret.safeParse({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc' }, data: { password: 'not base64!' } });
  t.false(r.success);
  if (!r.success) {
    t.deepEqual(r.error.issues[0]?.path, ['data', 'password']);
    t.false(JSON.stringify(r.error.issues).includes('not base64!'));
  }
});

test('secret - BMC credentials need both keys', (t) => {
  t.deepEqual(bmcCredentialsFromSecret({ stringData: { username: 'admin', password: 'pw' } }), { ok: true, credentials: { username: 'admin', password: 'pw' } });
  t.deepEqual(bmcCredentialsFromSecret({ stringData: { username: 'admin', password: '  ' } }), {
    ok: false, reason: "Validation error with BMC credentials: Missing BMC connection details 'password' in credentials",
  });
  t.deepEqual(bmcCredentialsFromSecret({}), {
    ok: false, reason: "Validation error with BMC credentials: Missing BMC connection detail 'username' in credentials",
  });
});
