// A private key that other users of the machine can read is no longer private. ssh refuses such
// a key file (when it is the user's own: a mounted Secret owned by root is not judged); a signing
// key was taken whatever its mode. Now a signing key open to group or others is refused, naming
// the file, its mode and the chmod that fixes it; a NATS credential file (token, nkey seed, creds,
// TLS key) open so is used, with a warning naming its flag (other NATS tools take them so too).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { nkeys } from '@nats-io/nats-core';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';
import { exposedKeyProblem, KeyFileError, loadSigningKey, writeNewSigningKey } from '../../src/security/index.ts';
import { metalfleet, metalfleetWithEnv } from '../cli/run.ts';

const owned = typeof process.getuid === 'function';

async function scratch(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-key-mode-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const seedText = (): string => new TextDecoder().decode(nkeys.createUser().getSeed());

test('key file mode - a signing key readable or writable by group or others is refused with its mode and the fix; 0600 and 0400 are taken', async (t) => {
  if (!owned) return t.pass('no POSIX owner on this platform');
  const dir = await scratch(t);
  const file = join(dir, 'alice.seed');
  const publicKey = await writeNewSigningKey(file);
  const seed = (await import('node:fs')).readFileSync(file, 'utf8').trim();
  for (const mode of [0o644, 0o640, 0o604, 0o620, 0o666]) {
    await chmod(file, mode);
    const error = await t.throwsAsync(loadSigningKey(file), { instanceOf: KeyFileError });
    t.is(error?.message, `${file}: permissions 0${mode.toString(8)} are too open: other users may read or change this signing key; run "chmod 600 ${file}" (a private key must be its owner's alone, as ssh requires)`);
    t.false(error?.message.includes(seed.slice(2, 20)));
  }
  for (const mode of [0o600, 0o400]) {
    await chmod(file, mode);
    t.is((await loadSigningKey(file)).publicKey, publicKey);
  }
});

test('key file mode - a damaged seed is named as damaged before its mode is judged', async (t) => {
  if (!owned) return t.pass('no POSIX owner on this platform');
  const dir = await scratch(t);
  const file = join(dir, 'keys.txt');
  await writeFile(file, 'operator UABC alice\n', { mode: 0o644 });
  await chmod(file, 0o644);
  const error = await t.throwsAsync(loadSigningKey(file), { instanceOf: KeyFileError });
  t.regex(error?.message ?? '', /is not an nkey user seed/);
});

test('key file mode - exposedKeyProblem judges only a file this user owns, as ssh does', async (t) => {
  if (!owned) return t.pass('no POSIX owner on this platform');
  const dir = await scratch(t);
  const file = join(dir, 'k');
  await writeFile(file, 'x', { mode: 0o600 });
  await chmod(file, 0o644);
  t.is(await exposedKeyProblem(file), 'permissions 0644 are too open');
  t.is(await exposedKeyProblem(file, 12345 === process.getuid!() ? 12346 : 12345), null, 'another user\'s file (a mounted Secret) is not judged');
  await chmod(file, 0o600);
  t.is(await exposedKeyProblem(file), null);
  t.is(await exposedKeyProblem(join(dir, 'absent')), null, 'a missing file is for the reader to report');
});

test('key file mode - the CLI refuses a group- or world-readable --signing-key (exit 2) before dialling', async (t) => {
  if (!owned) return t.pass('no POSIX owner on this platform');
  const dir = await scratch(t);
  const file = join(dir, 'op.seed');
  await writeNewSigningKey(file);
  await chmod(file, 0o644);
  const r = await metalfleet('host', 'power-off', 'metal3/a', '--nats', 'nats://127.0.0.1:1', '--signing-key', file);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: --signing-key: .*op\.seed: permissions 0644 are too open: .*chmod 600/m);
  t.notRegex(r.stderr, /cannot connect/);  // From the environment, the variable is named: no --signing-key was given.
  const env = await metalfleetWithEnv({ METALFLEET_SIGNING_KEY_FILE: file }, 'host', 'power-off', 'metal3/a', '--nats', 'nats://127.0.0.1:1');
  t.is(env.code, 2, env.stderr);
  t.regex(env.stderr, /^metalfleet: METALFLEET_SIGNING_KEY_FILE: .*op\.seed: permissions 0644 are too open/m);
});

test('key file mode - NATS token, nkey, creds and TLS key files open to others are used, with a warning naming the flag and the fix', async (t) => {
  if (!owned) return t.pass('no POSIX owner on this platform');
  const dir = await scratch(t);
  const write = async (name: string, text: string, mode: number): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, text);
    await chmod(file, mode);
    return file;
  };
  const token = await write('token', 'tok-Pz02-never-print\n', 0o644);
  const nkey = await write('user.nk', `${seedText()}\n`, 0o640);
  const creds = await write('user.creds', 'creds\n', 0o604);
  const cases: Array<[Record<string, string>, string, string]> = [
    [{ natsTokenFile: token }, '--nats-token-file', token],
    [{ natsNkeyFile: nkey }, '--nats-nkey-file', nkey],
    [{ natsCreds: creds }, '--nats-creds', creds],
  ];
  for (const [flags, flag, file] of cases) {
    const warnings: string[] = [];
    const options = await natsOptionsFrom({ nats: 'nats://127.0.0.1:1', ...flags }, {}, 'x', (w) => warnings.push(w));
    t.truthy(options.auth, flag);
    t.deepEqual(warnings, [`${flag} ${file}: permissions 0${(await import('node:fs')).statSync(file).mode.toString(8).slice(-3)} are too open: other users may read this NATS credential; run "chmod 600 ${file}"`], flag);
    t.false(warnings.join('').includes('tok-Pz02'));
  }
  await chmod(token, 0o600);
  const quiet: string[] = [];
  await natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsTokenFile: token }, {}, 'x', (w) => quiet.push(w));
  t.deepEqual(quiet, []);
});

// sshd refuses an authorized_keys file others may write (StrictModes): whoever can write the
// allow-list can add their own key and command the fleet. A world-writable one was taken.
test('key file mode - an allow-list every user may write is refused; one only its owner (or group) may write is taken', async (t) => {
  if (!owned) return t.pass('no POSIX owner on this platform');
  const { loadAuthorizedKeys } = await import('../../src/security/index.ts');
  const dir = await scratch(t);
  const file = join(dir, 'authorized-keys');
  await writeFile(file, `operator ${nkeys.createUser().getPublicKey()} alice\n`);
  for (const mode of [0o666, 0o646, 0o602]) {
    await chmod(file, mode);
    const error = await t.throwsAsync(loadAuthorizedKeys(file), { instanceOf: KeyFileError });
    t.is(error?.message, `${file}: permissions 0${mode.toString(8)} let every user of this machine change who may command the fleet; run "chmod go-w ${file}"`);
  }
  for (const mode of [0o644, 0o664, 0o600, 0o444]) {
    await chmod(file, mode);
    t.is((await loadAuthorizedKeys(file)).size, 1, mode.toString(8));
  }
  const cli = await (async () => {
    await chmod(file, 0o666);
    return metalfleet('node', '--nats', 'nats://127.0.0.1:1', '--authorized-keys', file);
  })();
  t.is(cli.code, 2, cli.stderr);
  t.regex(cli.stderr, /^metalfleet: --authorized-keys: .*authorized-keys: permissions 0666 let every user of this machine change who may command the fleet/m);
});
