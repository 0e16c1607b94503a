// "document N" counts from 1, as a reader counts, in every command: apply and demo -f said
// "document 0" for the first document where validate said "document 1".
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

// Document 2 is broken YAML; document 1 is a valid ConfigMap.
const BROKEN_SECOND = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n';

// A Secret is refused by apply (nodes read their own): its issue names where it is.
const SECRET_SECOND = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: never-echo-me\n';

async function inDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-docnum-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('manifest document numbers - validate, apply and demo -f all call the second document "document 2"', async (t) => {
  await inDir(async (dir) => {
    const file = join(dir, 'two.yaml');
    await writeFile(file, BROKEN_SECOND);
    const validate = await metalfleet('validate', file);
    t.regex(validate.stderr, /document 2: /);
    t.notRegex(validate.stderr, /document [01]\b/);
    const demo = await metalfleet('demo', '-f', file, '--json', '--timeout', '5');
    t.is(demo.code, 1, demo.stderr);
    t.regex(demo.stderr, /document 2\b/);
    t.notRegex(demo.stderr, /document [01]\b/);
    const apply = await metalfleet('apply', '-f', file, '--nats', 'nats://127.0.0.1:1');
    t.is(apply.code, 1, apply.stderr);
    t.regex(apply.stderr, /document 2\b/);
    t.notRegex(apply.stderr, /document [01]\b/);

    const secret = join(dir, 'secret.yaml');
    await writeFile(secret, SECRET_SECOND);
    const refused = await metalfleet('apply', '-f', secret, '--nats', 'nats://127.0.0.1:1');
    t.is(refused.code, 1, refused.stderr);
    // Named by its place and name (it was "secret.yaml document 0 (line 1)" for the second document).
    t.true(refused.stderr.includes(`error: ${secret}:6:1: Secret default/s: Secrets are never stored in NATS`), refused.stderr);
    t.notRegex(refused.stderr, /document [01]\b/);
    t.false(refused.stderr.includes('never-echo-me'));
  });
});
