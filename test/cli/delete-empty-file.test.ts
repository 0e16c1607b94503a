// `metalfleet delete -f empty.yaml`: kubectl refuses a file with no objects ("error: no objects
// passed to delete", exit 1), as our apply -f does. Ours said "nothing to delete" and exited 0, so
// a wrong or truncated file looked like a delete that worked.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

test('delete empty file - delete -f refuses a file with no objects, naming it, before connecting', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-delete-empty-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const empty = join(dir, 'empty.yaml');
  const comments = join(dir, 'comments.yaml');
  await writeFile(empty, '');
  await writeFile(comments, '# hosts go here\n---\n# none yet\n');
  for (const file of [empty, comments]) {
    // Nobody listens on port 1: refused before any connection, or it would say it cannot connect.
    const r = await metalfleet('delete', '-f', file, '--nats', 'nats://127.0.0.1:1');
    t.is(r.code, 1, r.stderr);
    t.is(r.stdout, '');
    t.regex(r.stderr, new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: no objects in it \\(empty, only comments, or an empty List\\); nothing was deleted$`, 'm'));
    t.notRegex(r.stderr, /cannot (connect|reach)/);
  }
});
