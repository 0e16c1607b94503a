// demo --persist FILE where FILE can never be written: refused before the demo starts, naming the
// flag and what is wrong, instead of running every host and failing at the end on a temporary
// file's name ("ENOENT ... st.json.1234.1.tmp") with nothing saved; an empty path was no --persist.
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
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

// The save writes a temporary file and renames it over the path: over a symlink that replaced the
// link with a plain file and left the file it pointed to as it was, so the next run through the
// link's target (or another link to it) resumed from an old state.
test('demo persist - a path that is a symlink saves into the file it points to and stays a link', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-persist-link-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'runs'));
  const target = join(dir, 'runs', 'st.json');
  await writeFile(target, '{"version":2,"buckets":{}}\n');
  const link = join(dir, 'current.json');
  await symlink(join('runs', 'st.json'), link);
  const r = await metalfleet('demo', '--hosts', '3', '--no-maas', '--latency', '0', '--json', '--persist', link);
  t.is(r.code, 0, r.stderr);
  t.true((await lstat(link)).isSymbolicLink(), 'the link is still a link');
  const saved = JSON.parse(await readFile(target, 'utf8')) as { buckets: Record<string, Record<string, unknown>> };
  t.is(Object.keys(saved.buckets['mf-hosts'] ?? {}).length, 3, 'the run was saved into the file the link names');
});
