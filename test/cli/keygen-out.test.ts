// `metalfleet keygen --out FILE` where FILE cannot be written: the line says why in words (a
// folder that does not exist, a folder given as the file), never a bare errno, and writes nothing.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

test('keygen - --out in a folder that does not exist, or naming a folder, is refused in words (exit 2)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-keygen-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const missing = join(dir, 'nowhere', 'operator.seed');
  const r = await metalfleet('keygen', '--out', missing);
  t.is(r.code, 2, r.stderr);
  t.is(r.stderr, `metalfleet: --out ${missing}: the folder ${join(dir, 'nowhere')} does not exist; create it or give another path\n`);
  t.is(r.stdout, '');
  const folder = await metalfleet('keygen', '--out', dir);
  t.is(folder.code, 2, folder.stderr);
  t.is(folder.stderr, `metalfleet: --out ${dir}: is a folder; give a file in it\n`);
  t.deepEqual(await readdir(dir), [], 'nothing was written');
});
