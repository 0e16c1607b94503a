// A manifest file with no object in it (empty, or only comments and "---") is a wrong file, not
// an empty fleet: demo -f and apply -f refuse it as kubectl apply does ("no objects passed to
// apply"), instead of running nothing and exiting 0.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

test('empty manifest - demo -f and apply -f refuse a file with no objects, naming it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-empty-'));
  try {
    const empty = join(dir, 'empty.yaml');
    const comments = join(dir, 'comments.yaml');
    await writeFile(empty, '');
    await writeFile(comments, '# hosts go here\n---\n# none yet\n');
    for (const file of [empty, comments]) {
      const demo = await metalfleet('demo', '-f', file, '--json', '--timeout', '5');
      t.is(demo.code, 1, demo.stderr);
      t.regex(demo.stderr, new RegExp(`^metalfleet: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: no objects in it \\(empty, only comments, or an empty List\\); nothing to run$`, 'm'));
      t.is(demo.stdout, '');
      // Refused before any connection: the NATS URL below answers nothing.
      const apply = await metalfleet('apply', '-f', file, '--nats', 'nats://127.0.0.1:1');
      t.is(apply.code, 1, apply.stderr);
      t.regex(apply.stderr, /no objects in it \(empty, only comments, or an empty List\); nothing was applied/);
      t.notRegex(apply.stderr, /cannot connect/);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
