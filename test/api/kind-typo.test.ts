// A mistyped kind is an error naming the kind it was probably meant to be; an unrelated kind is
// still skipped (issue 19.6: `apply` of a misspelled kind exited 0 with nothing applied).
import test from 'ava';
import { misspelledKind } from '../../src/api/index.ts';
import { validateDocuments } from '../../src/adapters/store/validate.ts';
import { metalfleet } from '../cli/run.ts';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('kind typo - near misses of known kinds are named; exact and unrelated kinds are not', (t) => {
  t.is(misspelledKind('BareMetalHots'), 'BareMetalHost');
  t.is(misspelledKind('baremetalhost'), 'BareMetalHost');
  t.is(misspelledKind('MaasMachnie'), 'MaasMachine');
  t.is(misspelledKind('Secrets'), 'Secret');
  t.is(misspelledKind('BareMetalHost'), null);
  t.is(misspelledKind('ConfigMap'), null);
  t.is(misspelledKind('MachineDeployment'), null);
  t.is(misspelledKind('KubeadmControlPlane'), null);
});

test('kind typo - the apply pipeline refuses a misspelled kind with the suggestion and skips an unrelated one', (t) => {
  const docs = [
    { file: 'a.yaml', index: 0, object: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHots', metadata: { name: 'x', namespace: 'lab' } } },
    { file: 'a.yaml', index: 1, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'lab' } } },
  ];
  const { valid, issues } = validateDocuments(docs);
  t.deepEqual(issues.map((i) => [i.index, i.path, i.message]), [[0, 'kind', 'kind BareMetalHots is not one metalfleet knows; did you mean BareMetalHost?']]);
  t.deepEqual(valid.map((v) => v.type), ['skipped']);
});

test('kind typo - metalfleet validate exits 1 on a misspelled kind', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-typo-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'typo.yaml');
  await writeFile(file, 'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHots\nmetadata: {name: x, namespace: lab}\nspec: {online: true}\n');
  const run = await metalfleet('validate', file);
  t.is(run.code, 1);
  t.true(run.stdout.startsWith(`${file}:2:1: BareMetalHots lab/x: kind: BareMetalHots is not one metalfleet knows; did you mean BareMetalHost?`), run.stdout);
});
