// A key written twice in one map, and `<<` merges, read as kubectl reads them. kubectl turns YAML
// into JSON on the client (sigs.k8s.io/yaml on go-yaml v2, not strict): a repeated key keeps its
// last value, with the same value or another, and a merge writes its keys over what is already
// there, in order. metalfleet refused every repeated key ("Map keys must be unique"), so `validate`
// failed a file kubectl applies; and a `<<` written after a key kept the key's value where kubectl
// takes the merged one. Each case here is compared with what the kubectl of this machine reads.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { readManifests } from '../../src/api/manifest.ts';
import { ROOT } from '../cli/run.ts';

// kubectl's own reading, without a cluster: annotate --local prints the object it read.
function kubectlReads(file: string): unknown {
  const out = execFileSync('kubectl', ['annotate', '--local', '-o', 'json', '-f', file, 'probe=x'], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  const object = JSON.parse(out) as { metadata: { annotations?: Record<string, string> } };
  delete object.metadata.annotations;
  return object;
}

async function fileOf(t: ExecutionContext, name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-dup-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

function validate(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', 'validate', '-f', file], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

const HEAD = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\n  namespace: default\n';

const CASES: ReadonlyArray<readonly [string, string, string, unknown]> = [
  ['the same key with the same value', 'same.yaml', `${HEAD}data:\n  a: "1"\n  a: "1"\n`, { data: { a: '1' } }],
  ['the same key with another value: the last', 'other.yaml', `${HEAD}data:\n  a: "1"\n  a: "2"\n`, { data: { a: '2' } }],
  ['metadata.name twice', 'name.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: second\ndata:\n  a: "1"\n', { metadata: { name: 'second' } }],
  ['a map written twice is the last map, not the two merged', 'labels.yaml', `${HEAD.replace('  namespace: default\n', '  labels:\n    app: "1"\n  labels:\n    tier: "2"\n')}data:\n  a: b\n`, { metadata: { labels: { tier: '2' } } }],
  ['a quoted and a plain spelling of one key', 'quoted.yaml', `${HEAD}data:\n  "a": "1"\n  a: "2"\n`, { data: { a: '2' } }],
  ['a flow map', 'flow.yaml', `${HEAD}data: {a: "1", a: "2"}\n`, { data: { a: '2' } }],
  ['JSON', 'dup.json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"},"data":{"a":"1","a":"2"}}\n', { data: { a: '2' } }],
  ['a << after a key writes over it', 'merge-after.yaml', `${HEAD}base: &b\n  a: merged\ndata:\n  a: explicit\n  <<: *b\n`, { data: { a: 'merged' } }],
  ['a key after a << writes over the merge', 'merge-before.yaml', `${HEAD}base: &b\n  a: merged\ndata:\n  <<: *b\n  a: explicit\n`, { data: { a: 'explicit' } }],
  ['two << keys: the later merge wins', 'merge-twice.yaml', `${HEAD}b1: &b1\n  a: one\nb2: &b2\n  a: two\ndata:\n  <<: *b1\n  <<: *b2\n`, { data: { a: 'two' } }],
  [
    'a << of a list: the first map wins among them, over the keys before it',
    'merge-list.yaml',
    `${HEAD}b1: &b1\n  a: one\n  c: c1\nb2: &b2\n  a: two\n  d: d2\ndata:\n  a: explicit\n  c: explicit\n  <<: [*b1, *b2]\n  d: late\n`,
    { data: { a: 'one', c: 'c1', d: 'late' } },
  ],
  ['a merged map with its own <<', 'merge-chain.yaml', `${HEAD}b1: &b1\n  a: one\nb2: &b2\n  <<: *b1\n  a: two\n  z: z\ndata:\n  a: explicit\n  <<: *b2\n`, { data: { a: 'two', z: 'z' } }],
  // The merged pairs are written into the map: an anchor among them must not shadow a later one of its name.
  ['an anchor name given twice, one of them merged', 'merge-anchor-again.yaml', `${HEAD}b1: &b1\n  k: &x one\nc: &x two\ndata:\n  <<: *b1\n  z: *x\n`, { data: { k: 'one', z: 'two' } }],
  ['a quoted "<<" is a key, not a merge', 'merge-quoted.yaml', `${HEAD}b1: &b1\n  a: one\ndata:\n  "<<": *b1\n`, { data: { '<<': { a: 'one' } } }],
];

for (const [what, name, text, expected] of CASES) {
  test(`manifest duplicate keys - ${what}: read as kubectl reads it`, async (t) => {
    const file = await fileOf(t, name, text);
    const [doc] = readManifests(text, file);
    t.is(doc?.yamlError, undefined);
    t.deepEqual(doc?.object, kubectlReads(file));
    t.like(doc?.object, expected as Record<string, unknown>);
  });
}

// 99 maps each merging one of `keys` keys: go-yaml's alias bound (its share of nodes decoded
// inside an alias) falls between 2,021 and 2,022 keys here, as kubectl on this machine found.
const fan = (keys: number): string => `${HEAD}base: &b\n${Array.from({ length: keys }, (_, i) => `  k${i}: v\n`).join('')}${Array.from({ length: 99 }, (_, m) => `m${m}:\n  <<: *b\n  own: x\n`).join('')}`;

test('manifest duplicate keys - merges past go-yaml\'s alias bound are refused where kubectl refuses them, and read as kubectl reads them just under it', async (t) => {
  const under = await fileOf(t, 'under.yaml', fan(2_021));
  const [read] = readManifests(fan(2_021), under);
  t.is(read?.yamlError, undefined);
  t.true(isDeepStrictEqual(read?.object, kubectlReads(under)));

  const over = await fileOf(t, 'over.yaml', fan(2_022));
  t.throws(() => kubectlReads(over), { message: /document contains excessive aliasing/ });
  const [refused] = readManifests(fan(2_022), over);
  t.regex(refused?.yamlError ?? '', /^aliases expand the document too far \(kubectl refuses it too: "document contains excessive aliasing"\) at line \d+, column 7$/);
  t.is(refused?.object, null);
});

test('manifest duplicate keys - a chain of merges is refused as kubectl refuses it, not written out', async (t) => {
  let text = HEAD;
  for (let m = 0; m < 99; m += 1) text += `m${m}: &m${m}\n${m > 0 ? `  <<: *m${m - 1}\n` : ''}${Array.from({ length: 500 }, (_, i) => `  k${m}_${i}: v\n`).join('')}`;
  const file = await fileOf(t, 'chain.yaml', text);
  t.throws(() => kubectlReads(file), { message: /document contains excessive aliasing/ });
  t.regex(readManifests(text, file)[0]?.yamlError ?? '', /document contains excessive aliasing/);
});

test('manifest duplicate keys - validate -f takes the ConfigMap kubectl takes', async (t) => {
  const file = await fileOf(t, 'same.yaml', `${HEAD}data:\n  a: "1"\n  a: "1"\n`);
  t.like(kubectlReads(file), { data: { a: '1' } });
  const r = await validate(file);
  t.is(r.code, 0, r.stderr);
  t.notRegex(r.stderr, /unique/);
});

const HOST = (bootModes: readonly string[]): string => [
  'apiVersion: metal3.io/v1alpha1',
  'kind: BareMetalHost',
  'metadata:',
  '  name: h-0',
  '  namespace: metal3',
  'spec:',
  '  online: true',
  ...bootModes.map((m) => `  bootMode: ${m}`),
  '  bmc:',
  '    address: redfish://192.0.2.1/redfish/v1/Systems/1',
  '    credentialsName: h-0-bmc',
  '',
].join('\n');

test('manifest duplicate keys - validate checks the value kept, the last, and points at it', async (t) => {
  const fixed = await fileOf(t, 'fixed.yaml', HOST(['Bogus', 'UEFI']));
  const ok = await validate(fixed);
  t.is(ok.code, 0, ok.stderr);

  const broken = await fileOf(t, 'broken.yaml', HOST(['UEFI', 'Bogus']));
  const bad = await validate(broken);
  t.is(bad.code, 1, bad.stderr);
  t.true(bad.stdout.includes(`${broken}:9:3: BareMetalHost metal3/h-0: spec.bootMode: `), bad.stdout);
});
