// validate checks a Secret with the rules demo -f and a node's --secrets apply to it (base64
// data, string stringData, a valid name): it passed one they refuse ("skipped"), so a bad
// password encoding was found only when the demo or the node read it. kubectl's client does not
// check base64 either; the API server refuses it ("illegal base64 data").
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { lines, metalfleet } from './run.ts';

const SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: bmc
  namespace: lab
data:
  username: "bm90IGJhc2U2NCEh!!"
stringData:
  password: never-echo-me
`;

test('manifest secrets - validate refuses a Secret whose data is not base64, at the field, never echoing values', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-secret-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'secret.yaml');
  await writeFile(file, SECRET);
  const r = await metalfleet('validate', file);
  t.is(r.code, 1, r.stderr);
  t.deepEqual(lines(r.stdout), [`${file}:7:3: Secret lab/bmc: data.username: data values must be base64`]);
  t.is(lines(r.stderr).at(-1), '1 object checked, 1 invalid');
  const demo = await metalfleet('demo', '-f', file, '--json', '--timeout', '5');
  t.is(demo.code, 1, demo.stderr);
  t.true(lines(demo.stderr).includes(`${file}:7:3: Secret lab/bmc: data.username: data values must be base64`), demo.stderr);
  for (const out of [r.stdout, r.stderr, demo.stderr]) t.false(out.includes('never-echo-me') || out.includes('bm90IGJhc2U2NCEh'));

  // The same Secret with its data encoded is valid: checked, not skipped.
  await writeFile(file, SECRET.replace('"bm90IGJhc2U2NCEh!!"', 'YWRtaW4='));
  const ok = await metalfleet('validate', file);
  t.is(ok.code, 0, ok.stderr);
  t.deepEqual(lines(ok.stderr), ['1 object checked, 0 invalid']);
});
