// demo --persist FILE where FILE can never be written: refused before the demo starts, naming the
// flag and what is wrong, instead of running every host and failing at the end on a temporary
// file's name ("ENOENT ... st.json.1234.1.tmp") with nothing saved; an empty path was no --persist.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

test('demo persist - an empty path, a file in a missing folder or under a file, or a folder, is refused before the demo runs', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-persist-path-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const notAFolder = join(dir, 'plain');
  await writeFile(notAFolder, 'keep me');
  const cases: Array<[string, RegExp]> = [
    [join(dir, 'missing', 'st.json'), /^metalfleet: --persist .*missing\/st\.json: the folder .*missing does not exist; create it or give another path$/m],
    [join(notAFolder, 'st.json'), /^metalfleet: --persist .*plain\/st\.json: .*plain is not a folder$/m],
    [dir, /^metalfleet: --persist .*mf-persist-path-[^/]*: is a folder; give a file in it$/m],
    ['', /^metalfleet: --persist: expected a file path, got ""$/m],
  ];
  for (const [path, message] of cases) {
    const r = await metalfleet('demo', '--hosts', '3', '--no-maas', '--latency', '0', '--json', '--persist', path);
    t.is(r.code, 2, `${path}: ${r.stderr}`);
    t.regex(r.stderr, message, path);
    t.notRegex(r.stderr, /\.tmp/, path);
    t.is(r.stdout, '', `${path}: the demo did not run`);
  }
  t.true((await stat(notAFolder)).isFile());
});
