// Which NATS login a command uses when it is given more than one. Given both --nats-user and
// --nats-token-file, the user was taken and the token dropped without a word; NATS_USER left in
// the shell beat an explicit --nats-creds. Now two ways given the same way (two flags, two
// variables, or a flag beside credentials written into the server URL) are refused, naming
// both; a flag beats a variable of another kind, as flags beat the environment everywhere else.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { nkeys } from '@nats-io/nats-core';
import { CliError } from '../../src/cli/cli-error.ts';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';
import { metalfleet } from '../cli/run.ts';

const NATS = 'nats://127.0.0.1:1';
const TOKEN = 'tok-Jq47-never-print';
const PASSWORD = 'pw-Wc81-never-print';

async function files(t: ExecutionContext): Promise<{ token: string; seed: string; nkey: string; creds: string; empty: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-auth-choice-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const token = join(dir, 'token');
  await writeFile(token, `${TOKEN}\n`, { mode: 0o600 });
  const seed = new TextDecoder().decode(nkeys.createUser().getSeed());
  const nkey = join(dir, 'user.nk');
  await writeFile(nkey, `${seed}\n`, { mode: 0o600 });
  const creds = join(dir, 'user.creds');
  await writeFile(creds, 'not read before the choice\n', { mode: 0o600 });
  const empty = join(dir, 'empty-token');
  await writeFile(empty, '\n', { mode: 0o600 });
  await chmod(empty, 0o600);
  return { token, seed, nkey, creds, empty };
}

test('nats auth choice - two login flags are refused naming both, exit 2, without a secret', async (t) => {
  const f = await files(t);
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ natsUser: 'alice', natsTokenFile: f.token }, /^--nats-user and --nats-token-file: give one way to log in to NATS/],
    [{ natsTokenFile: f.token, natsNkeyFile: f.nkey }, /^--nats-token-file and --nats-nkey-file: give one way to log in to NATS/],
    [{ natsNkeyFile: f.nkey, natsCreds: f.creds }, /^--nats-nkey-file and --nats-creds: give one way to log in to NATS/],
    [{ natsUser: 'alice', natsTokenFile: f.token, natsCreds: f.creds }, /^--nats-user, --nats-token-file and --nats-creds: give one way/],
  ];
  for (const [flags, message] of cases) {
    const error = await t.throwsAsync(natsOptionsFrom({ nats: NATS, ...flags }, { NATS_PASSWORD: PASSWORD }, 'x'), { instanceOf: CliError });
    t.regex(error?.message ?? '', message, JSON.stringify(flags));
    t.is(error?.exitCode, 2);
    for (const secret of [TOKEN, PASSWORD, f.seed]) t.false(error?.message.includes(secret));
  }
});

test('nats auth choice - two login variables are refused naming both; a flag beats a variable of another kind', async (t) => {
  const f = await files(t);
  const both = await t.throwsAsync(natsOptionsFrom({ nats: NATS }, { NATS_USER: 'alice', NATS_PASSWORD: PASSWORD, NATS_TOKEN: TOKEN }, 'x'), { instanceOf: CliError });
  t.regex(both?.message ?? '', /^NATS_USER and NATS_TOKEN are both set: give one way to log in to NATS/);
  t.is(both?.exitCode, 2);
  t.false(both?.message.includes(TOKEN) || both?.message.includes(PASSWORD));

  // NATS_USER left in the shell used to win over the creds file the command named.
  const creds = await natsOptionsFrom({ nats: NATS, natsCreds: f.creds }, { NATS_USER: 'alice', NATS_PASSWORD: PASSWORD }, 'x');
  t.deepEqual(creds.auth, { credsFile: f.creds });
  const nkey = await natsOptionsFrom({ nats: NATS, natsNkeyFile: f.nkey }, { NATS_TOKEN: TOKEN }, 'x');
  t.like(nkey.auth, { nkeySeed: f.seed, from: `--nats-nkey-file ${f.nkey}` });
  const user = await natsOptionsFrom({ nats: NATS, natsUser: 'bob' }, { NATS_USER: 'alice', NATS_PASSWORD: PASSWORD, NATS_CREDS: f.creds }, 'x');
  t.like(user.auth, { user: 'bob', pass: PASSWORD });
  // One way, however given, is taken as before.
  t.like((await natsOptionsFrom({ nats: NATS }, { NATS_TOKEN: TOKEN }, 'x')).auth, { token: TOKEN });
  t.like((await natsOptionsFrom({ nats: NATS, natsTokenFile: f.token }, { NATS_TOKEN: 'other' }, 'x')).auth, { token: TOKEN });
  t.is((await natsOptionsFrom({ nats: NATS }, {}, 'x')).auth, undefined);
});

test('nats auth choice - credentials in the server URL beside a login flag or variable are refused, the URL\'s secret not shown', async (t) => {
  const f = await files(t);
  const url = `nats://alice:${PASSWORD}@127.0.0.1:1`;
  const flag = await t.throwsAsync(natsOptionsFrom({ nats: url, natsTokenFile: f.token }, {}, 'x'), { instanceOf: CliError });
  t.regex(flag?.message ?? '', /^--nats carries credentials \(user:password@ or token@\) and --nats-token-file gives others: give one way to log in to NATS/);
  t.is(flag?.exitCode, 2);
  const env = await t.throwsAsync(natsOptionsFrom({}, { NATS_URL: `nats://${TOKEN}@127.0.0.1:1`, NATS_USER: 'alice', NATS_PASSWORD: 'x' }, 'x'), { instanceOf: CliError });
  t.regex(env?.message ?? '', /^NATS_URL carries credentials .* and NATS_USER gives others/);
  for (const e of [flag, env]) t.false(e?.message.includes(PASSWORD) || e?.message.includes(TOKEN));
  // Alone, the URL's credentials are the login (the transport sends them).
  t.is((await natsOptionsFrom({ nats: url }, {}, 'x')).auth, undefined);
});

test('nats auth choice - an empty token file is refused naming it, not sent as an empty token', async (t) => {
  const f = await files(t);
  const error = await t.throwsAsync(natsOptionsFrom({ nats: NATS, natsTokenFile: f.empty }, {}, 'x'), { instanceOf: CliError });
  t.is(error?.message, `--nats-token-file ${f.empty}: is empty: it must hold the NATS token`);
  t.is(error?.exitCode, 2);
});

test('nats auth choice - the CLI refuses two login flags before dialling (exit 2, one line)', async (t) => {
  const f = await files(t);
  const r = await metalfleet('hosts', '--nats', NATS, '--nats-user', 'alice', '--nats-token-file', f.token);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: --nats-user and --nats-token-file: give one way to log in to NATS/m);
  t.notRegex(r.stderr, /cannot connect|authorization/);
  t.false(r.stderr.includes(TOKEN));
});

// A URL parser ends the host at the first "/", so nats://admin:pa/ss@HOST was no URL to the
// client ("Invalid URL") and the redaction, which looks for user:password@ before any "/", did
// not see a password: the whole URL, password and all, was printed with "is a NATS server
// running there?". Now refused before dialling, saying to percent-encode it, the password hidden.
test('nats auth choice - a "/" in the URL\'s password is refused before dialling, the password never shown', async (t) => {
  const secret = 'pa/ss-Hq62';
  for (const url of [`nats://admin:${secret}@127.0.0.1:1`, `admin:${secret}@127.0.0.1:1`, `tls://${secret}@127.0.0.1:1`]) {
    const error = await t.throwsAsync(natsOptionsFrom({ nats: url }, {}, 'x'), { instanceOf: CliError }, url);
    t.regex(error?.message ?? '', /^--nats: "(nats:\/\/|tls:\/\/)?\*\*\*@127\.0\.0\.1:1" is not a NATS server URL: its user:password@ \(or token@\) holds a "\/", where the host would end: write it as %2F/, url);
    t.is(error?.exitCode, 2);
    t.false(error?.message.includes('pa/ss') || error?.message.includes('Hq62'), url);
  }
  for (const command of [['hosts'], ['audit']]) {
    const r = await metalfleet(...command, '--nats', `nats://admin:${secret}@127.0.0.1:1`);
    t.is(r.code, 2, r.stderr);
    t.false(r.stderr.includes('Hq62'), r.stderr);
    t.notRegex(r.stderr, /Invalid URL|is a NATS server running there/);
  }
  // Percent-encoded, it is a URL (and the transport decodes it).
  t.deepEqual((await natsOptionsFrom({ nats: `nats://admin:${encodeURIComponent(secret)}@127.0.0.1:1` }, {}, 'x')).servers, [`nats://admin:pa%2Fss-Hq62@127.0.0.1:1`]);
});

// A creds file (user JWT and seed) given where a bare seed belongs said only "is not a valid
// nkey seed" / "is not an nkey user seed": it now says which flag takes such a file.
test('nats auth choice - a creds file given as --nats-nkey-file or as a signing key is named as a creds file, its seed not shown', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-auth-creds-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const seed = new TextDecoder().decode(nkeys.createUser().getSeed());
  const file = join(dir, 'user.creds');
  await writeFile(file, `-----BEGIN NATS USER JWT-----\neyJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.sig\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`, { mode: 0o600 });
  const nkey = await t.throwsAsync(natsOptionsFrom({ nats: NATS, natsNkeyFile: file }, {}, 'x'), { instanceOf: CliError });
  t.is(nkey?.message, `--nats-nkey-file ${file}: is a NATS creds file (a user JWT and its seed), not a bare nkey seed: give it with --nats-creds`);
  t.is(nkey?.exitCode, 2);
  const { loadSigningKey, KeyFileError } = await import('../../src/security/index.ts');
  const signing = await t.throwsAsync(loadSigningKey(file), { instanceOf: KeyFileError });
  t.is(signing?.message, `${file}: is a NATS creds file (a user JWT and its seed), not a signing key: give the seed file "metalfleet keygen --out FILE" wrote`);
  for (const e of [nkey, signing]) t.false(e?.message.includes(seed.slice(2, 20)));
});

test('nats auth choice - a user without NATS_PASSWORD is a usage error (exit 2), naming the variable', async (t) => {
  const error = await t.throwsAsync(natsOptionsFrom({ nats: NATS, natsUser: 'alice' }, {}, 'x'), { instanceOf: CliError });
  t.is(error?.message, 'NATS user alice given without a password: set NATS_PASSWORD');
  t.is(error?.exitCode, 2);
});
