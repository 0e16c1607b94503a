// `metalfleet validate` refuses one of metalfleet's kinds under a mistyped apiVersion, naming the
// version meant, as apply, demo -f and a node refuse it (it printed a note and exited 0), while
// another API's kind of the same name stays skipped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { lines, metalfleet } from './run.ts';

const MANIFEST = `apiVersion: metal3/v1alpha1
kind: BareMetalHost
metadata:
  name: h1
  namespace: lab
spec:
  online: true
  bmc:
    address: redfish://192.0.2.1/redfish/v1/Systems/1
    credentialsName: h1-bmc
---
apiVersion: example.com/v1
kind: BareMetalHost
metadata:
  name: other
  namespace: lab
`;

test('cli validate - a BareMetalHost under metal3/v1alpha1 is invalid at its apiVersion; example.com/v1 is skipped', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-validate-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'hosts.yaml');
  await writeFile(file, MANIFEST);
  const r = await metalfleet('validate', file);
  t.is(r.code, 1, r.stderr);
  t.deepEqual(lines(r.stdout), [`${file}:1:1: BareMetalHost lab/h1: apiVersion: Unsupported value: "metal3/v1alpha1": no kind BareMetalHost is served there (kubectl finds no match either); did you mean metal3.io/v1alpha1?`]);
  t.true(lines(r.stderr).includes('note: BareMetalHost/other: skipped (kind not managed by metalfleet)'), r.stderr);
  t.regex(r.stderr, /1 object checked, 1 invalid/);
});
