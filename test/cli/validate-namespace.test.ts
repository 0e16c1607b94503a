import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runValidate } from '../../src/cli/commands/validate.ts';
import { lines, metalfleet, ROOT } from './run.ts';

// `metalfleet validate -n NAMESPACE` checks objects that name no namespace as if applied there
// (kubectl -n); objects named only by generateName are checked as creates (issue 14.10).

function hostYaml(metadata: string, userDataNamespace?: string): string {
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
${metadata}
spec:
  online: true
  bootMACAddress: 52:54:00:aa:bb:cc
  bmc:
    address: redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1
    credentialsName: worker-bmc
  image:
    url: http://images.example.com/ubuntu.qcow2
    checksum: http://images.example.com/ubuntu.qcow2.sha256sum
  userData:
    name: worker-user-data
${userDataNamespace ? `    namespace: ${userDataNamespace}\n` : ''}`;
}

function files(t: ExecutionContext, contents: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'validate-ns-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries(contents)) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], text);
  }
  return paths;
}

async function validate(paths: string[], namespace?: string, old: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const summary = await runValidate(paths, old, { out: (l) => out.push(l), err: (l) => err.push(l) }, {}, namespace);
  return { out, err, summary };
}

test('validate -n - BMO rule 3: a host without a namespace is checked in the one given, so its Secret refs resolve there', async (t) => {
  const f = files(t, { 'h.yaml': hostYaml('  name: worker-0', 'prod') });
  const without = await validate([f['h.yaml']!]);
  t.deepEqual(without.out, [
    `${f['h.yaml']}:16:5: BareMetalHost default/worker-0: spec.userData.namespace: userData: cross-namespace Secret references are not allowed (Secret in "prod", host in "default")`,
  ]);
  const within = await validate([f['h.yaml']!], 'prod');
  t.deepEqual(within.out, []);
  t.is(within.summary.invalid, 0);
});

test('validate -n - an object that names its namespace keeps it; errors still name the object and path', async (t) => {
  const f = files(t, { 'h.yaml': hostYaml('  name: worker-0\n  namespace: staging', 'prod') });
  const r = await validate([f['h.yaml']!], 'prod');
  t.deepEqual(r.out, [
    `${f['h.yaml']}:17:5: BareMetalHost staging/worker-0: spec.userData.namespace: userData: cross-namespace Secret references are not allowed (Secret in "prod", host in "staging")`,
  ]);
});

test('validate -n - BMO update rules: --old versions without a namespace are placed in it too, and matched', async (t) => {
  const f = files(t, {
    'new.yaml': hostYaml('  name: worker-0\n  namespace: prod').replace('52:54:00:aa:bb:cc', '52:54:00:aa:bb:dd'),
    'old.yaml': hostYaml('  name: worker-0'),
  });
  const r = await validate([f['new.yaml']!], 'prod', [f['old.yaml']!]);
  t.deepEqual(r.out, [`${f['new.yaml']}:8:3: BareMetalHost prod/worker-0: spec.bootMACAddress: bootMACAddress can not be changed once it is set`]);
  t.deepEqual((await validate([f['new.yaml']!], undefined, [f['old.yaml']!])).out, [], 'without -n the old one is in default: another object');
});

test('validate - generateName: a host named only by generateName is a valid create, and its errors name file and line', async (t) => {
  const first = hostYaml('  generateName: worker-', 'prod');
  const f = files(t, { 'h.yaml': `${first}---\n${hostYaml('  generateName: Worker_\n  namespace: prod')}` });
  // The second document starts on the line after its '---'.
  const line = first.split('\n').length + 1;
  const r = await validate([f['h.yaml']!], 'prod');
  t.is(r.summary.checked, 2);
  t.is(r.summary.invalid, 1);
  t.is(r.out.length, 1);
  // At the generateName itself, two lines below the document's start.
  t.true(r.out[0]!.startsWith(`${f['h.yaml']}:${line + 3}:3: BareMetalHost prod/(generateName "Worker_"): metadata.generateName: Invalid value: "Worker_": a lowercase RFC 1123 subdomain`), r.out[0]);
});

test('validate -n - the namespace must be a DNS-1123 label; --namespace is the long form', async (t) => {
  const f = files(t, { 'h.yaml': hostYaml('  name: worker-0', 'prod') });
  const rel = relative(ROOT, f['h.yaml']!);
  const bad = await metalfleet('validate', '-n', 'Prod_', rel);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /--namespace "Prod_": a lowercase RFC 1123 label must consist of/);
  const good = await metalfleet('validate', '--namespace', 'prod', rel);
  t.is(good.code, 0, good.stdout + good.stderr);
  t.deepEqual(lines(good.stderr), ['1 object checked, 0 invalid']);
});

// ---- --old: generateName pairs, and an old object that matches nothing (issue 31.4) -----------

test('validate --old - objects named only by generateName pair by kind, namespace and generateName, in order, and get the update rules', async (t) => {
  const gen = (mac: string, address = 'redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1') => hostYaml('  generateName: worker-\n  namespace: prod').replace('52:54:00:aa:bb:cc', mac).replace('redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1', address);
  const f = files(t, {
    'new.yaml': `${gen('52:54:00:aa:bb:01')}---\n${gen('52:54:00:aa:bb:02', 'redfish-virtualmedia://192.0.2.99/redfish/v1/Systems/1')}`,
    'old.yaml': `${gen('52:54:00:aa:bb:01')}---\n${gen('52:54:00:aa:bb:02')}`,
  });
  const r = await validate([f['new.yaml']!], undefined, [f['old.yaml']!]);
  // The first pairs with the first (unchanged); the second with the second (its BMC address moved).
  t.is(r.out.length, 1, r.out.join('\n'));
  t.true(r.out[0]!.startsWith(`${f['new.yaml']}:27:5: BareMetalHost prod/(generateName "worker-"): spec.bmc.address: BMC address can not be changed`), r.out[0]);
  t.is(r.summary.unmatched, 0);
  t.is(r.summary.invalid, 1);
  // Another namespace or another generateName is another object: a create, and the old ones are left over.
  const other = files(t, { 'new.yaml': hostYaml('  generateName: worker-\n  namespace: staging').replace('52:54:00:aa:bb:cc', '52:54:00:aa:bb:09') });
  const apart = await validate([other['new.yaml']!], undefined, [f['old.yaml']!]);
  t.deepEqual(apart.out, []);
  t.is(apart.summary.unmatched, 2);
});

test('validate --old - an old object that matches nothing is reported by name, file and line and fails the run, not dropped', async (t) => {
  const f = files(t, {
    'new.yaml': hostYaml('  name: worker-0\n  namespace: prod'),
    'old.yaml': `${hostYaml('  name: worker-0\n  namespace: prod')}---\n${hostYaml('  name: wroker-1\n  namespace: prod')}`,
  });
  const secondLine = hostYaml('  name: worker-0\n  namespace: prod').split('\n').length + 1;
  const r = await validate([f['new.yaml']!], undefined, [f['old.yaml']!]);
  t.deepEqual(r.out, []);
  t.deepEqual(r.summary, { checked: 1, invalid: 0, unreadable: 0, unmatched: 1 });
  t.deepEqual(r.err, [
    `error: ${f['old.yaml']}:${secondLine}: --old BareMetalHost/wroker-1 in namespace prod matches no object checked (by kind, namespace and name, or generateName); its update rules were not applied`,
    '1 object checked, 0 invalid, 1 --old unmatched',
  ]);
  const rel = (p: string) => relative(ROOT, p);
  const cli = await metalfleet('validate', rel(f['new.yaml']!), '--old', rel(f['old.yaml']!));
  t.is(cli.code, 1, cli.stdout + cli.stderr);
  t.regex(cli.stderr, /--old BareMetalHost\/wroker-1 in namespace prod matches no object checked/);
});
