// `metalfleet node --maas URL --maas-key-file FILE`: the MAAS API key from a file (a mounted Secret),
// not from a flag every user of the machine sees in ps. The file is judged as ssh judges a private
// key, and no error ever shows its content.
import test from 'ava';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metalfleet } from './run.ts';

const KEY = 'cOnSuMeRkEy1:tOkEnKeY22:sEcReTvAlUe333';
const MAAS = ['--maas', 'http://127.0.0.1:9/MAAS'];
// A NATS nobody answers: a node that got past its flags fails there, not on them.
const DEAD_NATS = ['--nats', 'nats://127.0.0.1:9'];

async function keyFile(t: { teardown: (f: () => Promise<void>) => void }, content: string, mode: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-maas-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'maas.key');
  await writeFile(file, content);
  await chmod(file, mode);
  return file;
}

test('maas key file - a private file with a key is taken: the node goes on to connect', async (t) => {
  const file = await keyFile(t, `${KEY}\n`, 0o600);
  const run = await metalfleet('node', ...MAAS, '--maas-key-file', file, ...DEAD_NATS);
  t.not(run.code, 0);
  t.notRegex(run.stderr, /maas-key|MAAS API key/, run.stderr);
  t.regex(run.stderr, /nats|NATS|127\.0\.0\.1:9/);
  t.false(run.stderr.includes('sEcReTvAlUe333'));
});

test('maas key file - missing, open to others, or not a key: exit 2 naming the file and what to do, never its content', async (t) => {
  const missing = await metalfleet('node', ...MAAS, '--maas-key-file', '/nonexistent/maas.key', ...DEAD_NATS);
  t.is(missing.code, 2, missing.stderr);
  t.regex(missing.stderr, /\/nonexistent\/maas\.key: cannot read the MAAS API key: ENOENT/);

  const open = await keyFile(t, KEY, 0o644);
  const exposed = await metalfleet('node', ...MAAS, '--maas-key-file', open, ...DEAD_NATS);
  t.is(exposed.code, 2, exposed.stderr);
  t.regex(exposed.stderr, /permissions 0644 are too open.*chmod 600/);
  t.false(exposed.stderr.includes('sEcReTvAlUe333'));

  const notKey = await keyFile(t, 'just-one-secret-word\n', 0o600);
  const bad = await metalfleet('node', ...MAAS, '--maas-key-file', notKey, ...DEAD_NATS);
  t.is(bad.code, 2, bad.stderr);
  t.regex(bad.stderr, /not a MAAS API key: MAAS gives it as consumer:token:secret/);
  t.false(bad.stderr.includes('just-one-secret-word'));
});

test('maas key file - with --maas-key too, or without --maas, it is a usage error', async (t) => {
  const file = await keyFile(t, KEY, 0o600);
  const both = await metalfleet('node', ...MAAS, '--maas-key', KEY, '--maas-key-file', file, ...DEAD_NATS);
  t.is(both.code, 2);
  t.regex(both.stderr, /--maas-key and --maas-key-file: choose one/);
  t.false(both.stderr.includes('sEcReTvAlUe333'));
  const alone = await metalfleet('node', '--maas-key-file', file, ...DEAD_NATS);
  t.is(alone.code, 2);
  t.regex(alone.stderr, /--maas-key-file applies with --maas/);
});
