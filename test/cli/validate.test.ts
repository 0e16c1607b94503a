import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { FIXTURES, lines, metalfleet } from './run.ts';

const SECRETS = ['fixture-secret-password', 'fixture-url-password'];

function noSecrets(t: ExecutionContext, ...outputs: string[]) {
  for (const out of outputs) for (const secret of SECRETS) t.false(out.includes(secret), `output leaks ${secret}`);
}

test('cli validate - a multi-document file: errors on stdout, notes and summary on stderr, exit 1', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/hosts.yaml`);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stdout), [
    "test/fixtures/validate/hosts.yaml:39:5: BareMetalHost metal3/worker-1: spec.bmc.address: Unknown BMC type 'ilo4' for address ilo4://xxxxx@192.0.2.21 (supported: ipmi, libvirt, redfish, ilo5-redfish, idrac-redfish, redfish-virtualmedia, ilo5-virtualmedia, idrac-virtualmedia, redfish-uefihttp; all but ipmi and libvirt also as <type>+http or <type>+https)",
    // A field that is not written is named at its object's start.
    'test/fixtures/validate/hosts.yaml:30:1: BareMetalHost metal3/worker-1: spec.image.checksum: checksum is required for normal images',
    "test/fixtures/validate/hosts.yaml:37:3: BareMetalHost metal3/worker-1: spec.disablePowerOff: node can't simultaneously have online set to false and have power off disabled",
  ]);
  const err = lines(r.stderr);
  // The Secret is checked as the stores check it (manifest-secrets.test.ts), and is valid.
  t.deepEqual(err.slice(0, 1), [
    'note: Metal3Machine/worker-0: skipped (kind not managed by metalfleet)',
  ]);
  // At the error's own line and column, as a compiler names them.
  t.regex(err[1] ?? '', /^error: test\/fixtures\/validate\/hosts\.yaml:62:\d+: document 5: All mapping items must start at the same column$/);
  t.is(err[2], '3 objects checked, 1 invalid, 1 unreadable');
  t.is(err.length, 3);
  noSecrets(t, r.stdout, r.stderr);
});

test('cli validate - valid hosts exit 0 with only notes and the summary', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/valid.yaml`);
  t.is(r.code, 0);
  t.is(r.stdout, '');
  t.deepEqual(lines(r.stderr), ['2 objects checked, 0 invalid']);
});

test('cli validate - several files are checked together', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/valid.yaml`, `${FIXTURES}/hosts.yaml`);
  t.is(r.code, 1);
  t.is(lines(r.stdout).length, 3);
  t.is(lines(r.stderr).at(-1), '5 objects checked, 1 invalid, 1 unreadable');
});

test('cli validate - a YAML error in a Secret names file and line but not the value', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/broken-secret.yaml`);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.regex(lines(r.stderr)[0] ?? '', /^error: test\/fixtures\/validate\/broken-secret\.yaml:\d+:\d+: document 1: Missing closing "quote$/);
  noSecrets(t, r.stdout, r.stderr);
});

test('cli validate - a file that cannot be read exits 1 naming it', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/does-not-exist.yaml`);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stderr), [`error: ${FIXTURES}/does-not-exist.yaml: cannot read: no such file`, '0 objects checked, 0 invalid, 1 unreadable']);
});

test('cli validate - --old applies the update rules to the matching host', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/new.yaml`, '--old', `${FIXTURES}/old.yaml`);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stdout), [
    'test/fixtures/validate/new.yaml:10:5: BareMetalHost metal3/worker-0: spec.bmc.address: BMC address can not be changed if the BMH is not in the Registering state, or if the BMH is not detached',
    'test/fixtures/validate/new.yaml:8:3: BareMetalHost metal3/worker-0: spec.bootMACAddress: bootMACAddress can not be changed once it is set',
  ]);
  t.deepEqual(lines(r.stderr), ['1 object checked, 1 invalid']);
});

test('cli validate - without --old the same host is a valid create', async (t) => {
  const r = await metalfleet('validate', `${FIXTURES}/new.yaml`);
  t.is(r.code, 0);
  t.is(r.stdout, '');
});

test('cli validate - a file is required', async (t) => {
  const r = await metalfleet('validate');
  t.is(r.code, 1);
  t.regex(r.stderr, /missing required argument 'files'/);
});

// kubectl expands a List's items one by one; validate checks each as the object it is, and names
// an item that cannot be read by its line, its document and its place in the List.
test('cli validate - a List (kubectl get -o yaml) is checked item by item; a bad item is named by document and item', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-validate-list-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'list.yaml');
  await writeFile(file, 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: w-0, namespace: metal3}\n  spec: {online: "bad"}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n- {metadata: {name: nokind}}\n- {apiVersion: v1, kind: List, items: []}\n');
  const r = await metalfleet('validate', file);
  t.is(r.code, 1, r.stderr);
  // A flow mapping's field: its line and column inside the List.
  t.deepEqual(lines(r.stdout), [`${file}:7:10: BareMetalHost metal3/w-0: spec.online: Invalid input: expected boolean, received string`]);
  const err = lines(r.stderr);
  t.true(err.includes('note: ConfigMap/c: skipped (kind not managed by metalfleet)'), r.stderr);
  t.regex(r.stderr, /^error: .*list\.yaml:9: document 1 item 3: not a Kubernetes object \(no kind\)$/m);
  t.regex(r.stderr, /^error: .*list\.yaml:10: document 1 item 4: a List inside a List: kubectl does not expand nested Lists/m);
  t.is(err.at(-1), '1 object checked, 1 invalid, 2 unreadable');
});

test('cli validate - an empty List is valid: nothing to check, exit 0', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-validate-empty-list-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'list.yaml');
  await writeFile(file, 'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHostList\nitems: []\nmetadata: {resourceVersion: "1"}\n');
  const r = await metalfleet('validate', file);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stderr), ['0 objects checked, 0 invalid']);
});

// apply and delete take -f (as kubectl does); validate took files only as arguments, and
// `validate -f hosts.yaml` was "unknown option '-f'". Both forms, and both together, now work.
test('cli validate - files come as arguments, with -f/--filename, or both; none at all is an error', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-validate-f-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const good = join(dir, 'good.yaml');
  const bad = join(dir, 'bad.yaml');
  const host = (name: string, online: string) => `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata: {name: ${name}, namespace: lab}\nspec: {online: ${online}}\n`;
  await writeFile(good, host('w-0', 'true'));
  await writeFile(bad, host('w-1', '"yes"'));
  const viaF = await metalfleet('validate', '-f', good);
  t.is(viaF.code, 0, viaF.stderr);
  t.regex(viaF.stderr, /1 objects? checked, 0 invalid/);
  const both = await metalfleet('validate', good, '--filename', bad);
  t.is(both.code, 1, both.stderr);
  t.regex(both.stderr, /2 objects checked, 1 invalid/);
  t.true(lines(both.stdout).some((l) => l.startsWith(`${bad}:4:8: BareMetalHost lab/w-1: spec.online: `)), both.stdout);
  const none = await metalfleet('validate');
  t.is(none.code, 1);
  t.regex(none.stderr, /missing required argument 'files': give the manifests to check, as FILE\.\.\. or -f FILE/);
});

// apply keeps the later of two documents for one object and warns (for BareMetalHosts); validate
// said nothing, so a copy-paste that left two hosts of one name checked clean. It warns for every
// kind, naming both places, and the exit code stays what the checks say.
test('cli validate - the same object twice (kind, namespace, name) is warned about, naming both places', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-validate-twice-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const a = join(dir, 'a.yaml');
  const b = join(dir, 'b.yaml');
  const host = (name: string, ns: string) => `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata: {name: ${name}, namespace: ${ns}}\nspec: {online: true}\n`;
  await writeFile(a, `${host('h1', 'lab')}---\n${host('h1', 'other')}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: h1, namespace: lab}\n`);
  await writeFile(b, `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: h1, namespace: lab}\n- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: h1, namespace: lab}\n  spec: {online: true}\n`);
  const r = await metalfleet('validate', a, b);
  t.is(r.code, 0, r.stderr);
  const warnings = lines(r.stderr).filter((l) => l.startsWith('warning:'));
  t.deepEqual(warnings, [
    `warning: ConfigMap lab/h1 is given twice (${a}:11 document 3 and ${b}:4 document 1 item 1); the later one wins`,
    `warning: BareMetalHost lab/h1 is given twice (${a}:1 document 1 and ${b}:7 document 1 item 2); the later one wins`,
  ]);
  t.is(lines(r.stderr).at(-1), '3 objects checked, 0 invalid');
});
