// kubectl reads manifests through sigs.k8s.io/yaml on go-yaml v2, which resolves plain scalars by
// YAML 1.1 rules (yes/on are true, 0777 is octal, 1_000 is 1000); metalfleet read them as YAML 1.2,
// so `online: yes` was the string "yes". The expectations here are what kubectl 1.32 sent
// (`kubectl annotate --local -o json`), and the last tests ask kubectl itself.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readManifests } from '../../src/api/manifest.ts';

function valueOf(plain: string): unknown {
  const docs = readManifests(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  v: ${plain}\n`, 'v.yaml');
  return (docs[0]?.object as { data?: { v?: unknown } } | undefined)?.data?.v;
}

const AS_KUBECTL: ReadonlyArray<readonly [string, unknown]> = [
  ['yes', true], ['Yes', true], ['YES', true], ['y', true], ['Y', true],
  ['on', true], ['On', true], ['ON', true], ['true', true], ['True', true], ['TRUE', true],
  ['no', false], ['No', false], ['NO', false], ['n', false], ['N', false],
  ['off', false], ['Off', false], ['OFF', false], ['false', false], ['False', false], ['FALSE', false],
  ['yEs', 'yEs'], ['oN', 'oN'], ['tRue', 'tRue'],
  ['0777', 511], ['+0777', 511], ['-0777', -511], ['0o777', 511], ['00', 0], ['08', 8], ['09', 9],
  ['0x1F', 31], ['0X1F', 31], ['-0x1F', -31], ['0b101', 5], ['-0b101', -5],
  ['1_000', 1000], ['+1_000', 1000], ['1__0', 10], ['1_', 1], ['0_7', 7], ['0x_1F', 31], ['0_x1F', 31], ['-_1', -1],
  ['1_0.5', 10.5], ['0.1_0', 0.1], ['1e1_0', 1e10], ['.5_0', 0.5], ['._5', '._5'],
  ['1.', 1], ['.5', 0.5], ['+.5', 0.5], ['1e3', 1000], ['1E3', 1000], ['.1E-1', 0.01],
  ['1:30', '1:30'], ['190:20:30', '190:20:30'], ['-1:30', '-1:30'], ['1:30.5', '1:30.5'],
  ['~', null], ['null', null], ['Null', null], ['NULL', null],
  ['2024-01-01', '2024-01-01'], ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'], ['2024-01-01 10:00:00', '2024-01-01 10:00:00'],
  ['1e400', '1e400'], ['0x', '0x'], ['0o', '0o'], ['0b', '0b'], ['0e', '0e'], ['0x1p3', '0x1p3'],
  ['0xFFFFFFFFFFFFFFFFF', '0xFFFFFFFFFFFFFFFFF'], ['-0x8000000000000000', -9223372036854775808], ['-0x8000000000000001', '-0x8000000000000001'],
  ['9223372036854775808', 9223372036854775808], ['012345678901234567890123', 1.2345678901234568e22],
  ['=', '='], ['<<', '<<'],
];

for (const [plain, expected] of AS_KUBECTL) {
  test(`manifest scalars - plain ${plain} reads as kubectl reads it`, (t) => {
    t.deepEqual(valueOf(plain), expected);
  });
}

test('manifest scalars - a BareMetalHost with online: yes is online, as kubectl sends it', (t) => {
  const [doc] = readManifests('apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: h\nspec:\n  online: yes\n', 'h.yaml');
  t.is(doc?.yamlError, undefined);
  t.like(doc?.object, { spec: { online: true } });
});

test('manifest scalars - quoted and !!str scalars stay strings', (t) => {
  for (const source of ['"yes"', "'on'", '!!str yes', '"0777"', "'1_000'", '"0x1F"']) {
    t.is(typeof valueOf(source), 'string', source);
  }
});

test('manifest scalars - yes/on as keys become "true", as kubectl makes them', (t) => {
  const [doc] = readManifests('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  on: a\n  n: b\n', 'k.yaml');
  t.deepEqual((doc?.object as { data?: unknown }).data, { true: 'a', false: 'b' });
  const [dup] = readManifests('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  yes: a\n  true: b\n', 'k.yaml');
  // One key to kubectl, which keeps the last (manifest-bool-keys.test.ts compares with it).
  t.is(dup?.yamlError, undefined);
  t.deepEqual((dup?.object as { data?: unknown }).data, { true: 'b' });
});

test('manifest scalars - << merges a mapping, as kubectl does', (t) => {
  const [doc] = readManifests('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\nbase: &b {a: "1", b: "2"}\ndata:\n  <<: *b\n  b: "3"\n', 'm.yaml');
  t.is(doc?.yamlError, undefined);
  t.deepEqual((doc?.object as { data?: unknown }).data, { a: '1', b: '3' });
});

test('manifest scalars - .inf and .nan are refused where they are, as kubectl refuses them', (t) => {
  for (const plain of ['.inf', '-.inf', '.Inf', '.nan', '.NaN']) {
    const [doc] = readManifests(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  v: ${plain}\n`, 'v.yaml');
    t.is(doc?.yamlError, `${plain} is not a number JSON can carry (kubectl refuses it too; quote it for a string) at line 6, column 6`, plain);
  }
  t.is(valueOf('".inf"'), '.inf');
});

function kubectlJson(file: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', ['annotate', '--local', '-f', file, 'metalfleet/probe=1', '-o', 'json'], { env: { ...process.env, KUBECONFIG: '/dev/null' } }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout));
    });
  });
}

const KUBECTL_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ['every plain scalar above', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n${AS_KUBECTL.map(([plain], i) => `  k${i}: ${plain}\n`).join('')}`],
  ['keys and merge keys', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\nbase: &b {x: "1", y: "2", 0x10: a}\ndata:\n  <<: *b\n  y: "3"\n  off: [yes, "no", 0o17]\n  1_0: b\n'],
];

for (const [what, source] of KUBECTL_SOURCES) {
  test(`manifest scalars - ${what} read as kubectl itself sends them`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'mf-scalars-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'all.yaml');
    await writeFile(file, source);
    // A missing kubectl is a failure, never a skip (ENOENT rejects): scripts/kubectl-install.sh puts it there.
    const sent = await kubectlJson(file);
    const [doc] = readManifests(source, 'all.yaml');
    t.is(doc?.yamlError, undefined);
    // Both are compared as JSON: numbers past 2^53 as kubectl's JSON reads in JavaScript.
    t.deepEqual(JSON.parse(JSON.stringify((doc?.object as { data?: unknown }).data)), (sent as { data?: unknown }).data);
  });
}
