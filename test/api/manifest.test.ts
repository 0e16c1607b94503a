import test from 'ava';
import { documentName, kindOf, readManifests } from '../../src/api/manifest.ts';
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
// manage, then refused with advice to split it. kubectl expands a List's items one by one; so does
// metalfleet: each item is its own object, at its own line, named by its document and item.
test('manifest - a List (v1 or typed) is expanded into its items, each at its own line', (t) => {
  const list = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: w-0, namespace: lab}\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: bmc\n';
  const typed = list.replace('kind: List', 'kind: BareMetalHostList').replace('apiVersion: v1\n', 'apiVersion: metal3.io/v1alpha1\n');
  for (const text of [list, typed]) {
    const docs = readManifests(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n${text}`, 'l.yaml');
    t.is(docs.length, 3);
    t.like(docs[0], { index: 0, line: 1, kind: 'ConfigMap' });
    t.is(docs[0]?.item, undefined);
    t.like(docs[1], { file: 'l.yaml', index: 1, item: 0, line: 8, kind: 'BareMetalHost', name: 'w-0', namespace: 'lab', apiVersion: 'metal3.io/v1alpha1' });
    t.like(docs[2], { file: 'l.yaml', index: 1, item: 1, line: 11, kind: 'Secret', name: 'bmc', namespace: 'default' });
    t.is(docs[1]?.yamlError, undefined);
    t.deepEqual(docs[2]?.object, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc' } });
    t.is(documentName(docs[2]!), 'document 2 item 2');
    // Counted from 1, as a reader counts: apply and demo -f said "document 0".
    t.is(documentName(docs[0]!), 'document 1');
  }
  // A kind that only ends in "List" and has no items is left to the kinds' own checks.
  const shopping = readManifests('apiVersion: example.io/v1\nkind: ShoppingList\nmetadata: {name: x}\n', 'x.yaml');
  t.is(shopping.length, 1);
  t.like(shopping[0], { kind: 'ShoppingList', yamlError: undefined, item: undefined });
});

test('manifest - an empty List holds no objects; the documents around it keep their numbers', (t) => {
  const docs = readManifests('apiVersion: v1\nkind: List\nitems: []\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n', 'e.yaml');
  t.is(docs.length, 1);
  t.like(docs[0], { index: 1, line: 5, kind: 'ConfigMap' });
  t.deepEqual(readManifests('apiVersion: v1\nkind: List\nitems: []\n', 'e.yaml'), []);
});

// kubectl does not expand a List inside a List: its items would be read as nothing.
test('manifest - a List inside a List is refused at its item, the other items kept', (t) => {
  const text = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: d}}\n';
  const docs = readManifests(text, 'n.yaml');
  t.is(docs.length, 2);
  t.like(docs[0], { index: 0, item: 0, line: 4, kind: 'List' });
  t.regex(docs[0]?.yamlError ?? '', /^a List inside a List: kubectl does not expand nested Lists; put its items in the outer List's items$/);
  t.like(docs[1], { index: 0, item: 1, line: 8, name: 'd', yamlError: undefined });
});

// An item that is not a mapping is still an object to check (and refuse), not dropped; a List
// that does not parse is one document's YAML error, whose text is never quoted.
test('manifest - a List\'s odd items are kept to be refused; its YAML errors are the document\'s', (t) => {
  const docs = readManifests('apiVersion: v1\nkind: List\nitems:\n- just a string\n- null\n', 'o.yaml');
  t.is(docs.length, 2);
  t.like(docs[0], { item: 0, line: 4, object: 'just a string', kind: undefined });
  t.like(docs[1], { item: 1, line: 5, object: null, kind: undefined });
  const broken = readManifests('apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  stringData: {password: "hunter2\\q"}\n', 'b.yaml');
  t.is(broken.length, 1);
  t.is(broken[0]?.item, undefined);
  t.regex(broken[0]?.yamlError ?? '', /^Invalid escape sequence at line 6/);
  t.false(broken[0]?.yamlError?.includes('hunter2'));
});
