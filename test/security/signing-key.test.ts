// A signing key shows only its public key: in JSON, util.inspect, and in the error for a seed
// file that is not a good seed (a typo in one character is still mostly the secret).
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { createUser } from '@nats-io/nkeys';
import { KeyFileError, loadSigningKey } from '../../src/security/index.ts';

test('signing key - JSON and inspect show the public key, never the seed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const pair = createUser();
  const seed = new TextDecoder().decode(pair.getSeed());
  const file = join(dir, 'k.seed');
  await writeFile(file, `${seed}\n`, { mode: 0o600 });
  const key = await loadSigningKey(file);
  t.is(key.publicKey, pair.getPublicKey());
  for (const shown of [JSON.stringify(key), inspect(key), inspect({ key }, { depth: 5, showHidden: true }), String(Object.values(key))]) {
    t.false(shown.includes(seed.slice(2, 20)), shown);
  }
  t.true(JSON.stringify(key).includes(pair.getPublicKey()));
});

test('signing key - a damaged seed, a missing file and an account seed are errors that name the file and not the content', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const seed = new TextDecoder().decode(createUser().getSeed());
  const damaged = `${seed.slice(0, 30)}${seed[30] === 'A' ? 'B' : 'A'}${seed.slice(31)}`;
  const cases = [
    ['damaged', damaged, /damaged\.seed: is not a valid nkey user seed/],
    ['account', `SA${seed.slice(2)}`, /account\.seed: is not an nkey user seed/],
    ['garbage', 'hello', /garbage\.seed: is not an nkey user seed/],
  ] as const;
  for (const [name, content, message] of cases) {
    const file = join(dir, `${name}.seed`);
    await writeFile(file, content);
    const error = await t.throwsAsync(loadSigningKey(file), { instanceOf: KeyFileError });
    t.regex(error?.message ?? '', message);
    t.false(error?.message.includes(content.slice(2, 20)), name);
  }
  const missing = await t.throwsAsync(loadSigningKey(join(dir, 'nope.seed')), { instanceOf: KeyFileError });
  t.regex(missing?.message ?? '', /nope\.seed: cannot read the signing key: ENOENT/);
});

// "cannot read the signing key: EISDIR" told a user an errno, not that they gave a folder.
test('signing key - a missing file or a folder is said in words, naming the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const missing = await t.throwsAsync(loadSigningKey(join(dir, 'nope.seed')), { instanceOf: KeyFileError });
  t.is(missing?.message, `${join(dir, 'nope.seed')}: cannot read the signing key: ENOENT (it does not exist)`);
  const folder = await t.throwsAsync(loadSigningKey(dir), { instanceOf: KeyFileError });
  t.is(folder?.message, `${dir}: cannot read the signing key: EISDIR (it is a folder, not a file)`);
});
