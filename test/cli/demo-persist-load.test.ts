// demo --persist FILE where FILE was written by a newer metalfleet: the demo says so, naming the
// file and both format versions (it said "corrupt"), runs nothing, and leaves the file as it was.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

test('demo persist - a file of a newer format is refused as such, not as corrupt, and left untouched', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-persist-load-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'state.json');
  const content = `${JSON.stringify({ version: 3, buckets: { 'mf-hosts': {} }, written: 'by a later build' })}\n`;
  await writeFile(path, content);
  const r = await metalfleet('demo', '--hosts', '3', '--no-maas', '--latency', '0', '--json', '--persist', path);
  t.is(r.code, 1, r.stderr);
  t.is(r.stderr, `metalfleet: the store file ${path} was written by a newer metalfleet: it is format version 3 and this build reads format version 2. Nothing was loaded and the file was left untouched; run that newer metalfleet, or move the file away to start from the manifests alone\n`);
  t.is(r.stdout, '', 'the demo did not run');
  t.is(await readFile(path, 'utf8'), content);
  t.deepEqual(await readdir(dir), ['state.json']);
});
