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

// The yaml package puts the offending text in some of its messages: an alias's name, a tag, a
// bad escape's characters, a block scalar header's extra characters. In a Secret that text is
// the password (one that starts with "*" or "!", or "C:\Users..." in double quotes).
test('manifest - a YAML error in a Secret never echoes the password, and says where', (t) => {
  const values: Array<[string, RegExp]> = [
    ['*hunter2', /^Unresolved alias \(the anchor must be set before the alias\) at line 4, column 13$/],
    ['!h!hunter2 x', /^Could not resolve tag at line 4, column 13$/],
    ['"\\Uhunter2x"', /^Invalid escape sequence at line 4, column 14$/],
    ['"C:\\qhunter2"', /^Invalid escape sequence at line 4, column 16$/],
    ['|hunter2\n    x', /^Block scalar header includes extra characters at line 4, column 14$/],
    ['[a, *hunter2]', /^Unresolved alias \(the anchor must be set before the alias\) at line 4, column 17$/],
  ];
  for (const [value, where] of values) {
    const docs = readManifests(`apiVersion: v1\nkind: Secret\nstringData:\n  password: ${value}\n`, 's.yaml');
    t.is(docs.length, 1, value);
    const error = docs[0]?.yamlError ?? '';
    t.truthy(error, value);
    t.false(error.includes('hunter2'), `${value}: ${error}`);
    t.regex(error, where, value);
  }
});

// A tag the YAML parser does not know (`!hunter2 x`, `!!int x`) was only a warning, and the value
// was read without it: a Secret's password became "x" without a word. It is refused, saying where
// and never the tag (it may be the password's first characters).
test('manifest - a value with an unknown tag is refused, saying where, not read as the text after the tag', (t) => {
  const values: Array<[string, RegExp]> = [
    ['!hunter2 x', /^unknown YAML tag at line 4, column 13: remove the tag, or quote the whole value$/],
    ['!!int hunter2', /^unknown YAML tag at line 4, column 13: remove the tag, or quote the whole value$/],
  ];
  for (const [value, where] of values) {
    const docs = readManifests(`apiVersion: v1\nkind: Secret\nstringData:\n  password: ${value}\n`, 's.yaml');
    t.is(docs.length, 1, value);
    const error = docs[0]?.yamlError ?? '';
    t.false(error.includes('hunter2'), `${value}: ${error}`);
    t.regex(error, where, value);
  }
  // Tags YAML defines still read as before.
  const plain = readManifests('apiVersion: v1\nkind: Secret\nstringData:\n  password: !!str 1234\n', 's.yaml');
  t.is(plain[0]?.yamlError, undefined);
  t.deepEqual((plain[0]?.object as { stringData: unknown }).stringData, { password: '1234' });
});

// `kubectl get bmh -o yaml` prints a List: its hosts were skipped as a kind metalfleet does not
// manage, so validate said "0 objects checked" and exited 0 on an invalid host, and demo -f ran
// nothing and said ok. A List is refused, saying how to split it.
test('manifest - a List of objects is refused with what to do, not skipped as an unknown kind', (t) => {
  const list = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: w-0}\n';
  for (const text of [list, list.replace('kind: List', 'kind: BareMetalHostList').replace('apiVersion: v1', 'apiVersion: metal3.io/v1alpha1')]) {
    const docs = readManifests(text, 'l.yaml');
    t.is(docs.length, 1);
    t.regex(docs[0]?.yamlError ?? '', /^a List of 1 object \(as kubectl get -o yaml prints\): metalfleet reads one object per document; split its items into documents separated by "---"$/);
  }
  // A kind that only ends in "List" and has no items is left to the kinds' own checks.
  t.is(readManifests('apiVersion: example.io/v1\nkind: ShoppingList\nmetadata: {name: x}\n', 'x.yaml')[0]?.yamlError, undefined);
});
