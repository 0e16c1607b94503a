// The files and values an operator hands `metalfleet node` (the StatefulSet of deploy/controller
// passes most of them): a missing or unreadable one, or a folder where a file belongs, is refused
// before anything dials, in one line that names the flag (or variable) and what is wrong, exit 2.
// These used to exit 1 with a bare path, or dial NATS first and blame the server ("TLS setup
// failed (server does not support 'tls')" for a CA file that does not exist).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';
import { checkNatsTlsFiles } from '../../src/cli/nats-tls-flags.ts';
import { metalfleet } from './run.ts';

// Port 1 refuses: a command that dialled before checking would say "cannot connect" instead.
const NO_NATS = ['--nats', 'nats://127.0.0.1:1', '--allow-unsigned-commands'];

async function scratch(t: { teardown(fn: () => Promise<void>): void }): Promise<{ dir: string; missing: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-node-files-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'plain.pem');
  await writeFile(file, 'not used\n');
  return { dir, missing: join(dir, 'absent.pem'), file };
}

test('node files - a missing --secrets file or folder is refused naming the flag, before any connection', async (t) => {
  const { missing } = await scratch(t);
  const r = await metalfleet('node', ...NO_NATS, '--secrets', missing);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: --secrets: cannot read the secrets file .*absent\.pem: no such file or directory$/m);
  t.notRegex(r.stderr, /cannot connect|\n\s+at /);
});

test('node files - NATS credential and TLS files that are missing or folders are refused naming the flag, before dialling', async (t) => {
  const { dir, missing, file } = await scratch(t);
  const cases: Array<[string[], RegExp]> = [
    [['--nats-token-file', dir], /^metalfleet: --nats-token-file .*mf-node-files-[^/]*: is a folder, not a file$/m],
    [['--nats-nkey-file', missing], /^metalfleet: --nats-nkey-file .*absent\.pem: does not exist$/m],
    [['--nats-creds', missing], /^metalfleet: --nats-creds .*absent\.pem: does not exist$/m],
    [['--nats-creds', dir], /^metalfleet: --nats-creds .*: is a folder, not a file$/m],
    [['--nats-ca', missing], /^metalfleet: --nats-ca .*absent\.pem: does not exist$/m],
    [['--nats-ca', dir], /^metalfleet: --nats-ca .*: is a folder, not a file$/m],
    [['--nats-cert', missing, '--nats-key', file], /^metalfleet: --nats-cert .*absent\.pem: does not exist$/m],
    [['--nats-cert', file, '--nats-key', dir], /^metalfleet: --nats-key .*: is a folder, not a file$/m],
  ];
  for (const [flags, message] of cases) {
    const r = await metalfleet('node', ...NO_NATS, ...flags);
    t.is(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, message, flags.join(' '));
    t.notRegex(r.stderr, /cannot connect|TLS setup failed|\n\s+at /, flags.join(' '));
  }
});

test('node files - the introspection commands name a missing TLS file by its flag too, instead of asking whether a server runs there', async (t) => {
  const { dir, missing, file } = await scratch(t);
  const cases: Array<[string[], RegExp]> = [
    [['hosts', '--nats-cert', missing, '--nats-key', file], /^metalfleet: --nats-cert .*absent\.pem: does not exist$/m],
    [['shards', '--nats-ca', dir], /^metalfleet: --nats-ca .*: is a folder, not a file$/m],
  ];
  for (const [args, message] of cases) {
    const r = await metalfleet(...args, '--nats', 'nats://127.0.0.1:1');
    t.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, message, args.join(' '));
    t.notRegex(r.stderr, /cannot (connect|reach)|server running there/, args.join(' '));
  }
});

test('node files - a NATS TLS or creds file from the environment is named by its variable', async (t) => {
  const { dir, missing } = await scratch(t);
  await t.throwsAsync(checkNatsTlsFiles({}, { NATS_CA: missing }), { instanceOf: CliError, message: /^NATS_CA .*absent\.pem: does not exist$/ });
  await t.throwsAsync(checkNatsTlsFiles({}, { NATS_CERT: dir, NATS_KEY: dir }), { message: /^NATS_CERT .*: is a folder, not a file$/ });
  await t.throwsAsync(natsOptionsFrom({ nats: 'nats://127.0.0.1:1' }, { NATS_CREDS: missing }, 'x'), { instanceOf: CliError, message: /^NATS_CREDS .*absent\.pem: does not exist$/ });
  // Files that are there pass, and none given is nothing to check.
  await t.notThrowsAsync(checkNatsTlsFiles({}, {}));
});

test('node flags - --replicas above 5 (the most JetStream keeps) is refused before any connection', async (t) => {
  const r = await metalfleet('node', ...NO_NATS, '--replicas', '7');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: --replicas: expected a whole number from 1 to 5, got "7"$/m);
  t.notRegex(r.stderr, /cannot connect/);
});

test('node flags - a --fixture-url that is not a URL is a usage error (exit 2) naming the flag', async (t) => {
  const r = await metalfleet('node', ...NO_NATS, '--fixture-url', 'fixture:7070');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: --fixture-url fixture:7070: /m);
  t.notRegex(r.stderr, /cannot connect/);
});

// An --ironic that is not a URL (a manifest whose $(IRONIC_ENDPOINT) Kubernetes left unexpanded
// because the variable was missing) was reported as "--provisioner provisioner plugin ironic:
// create() failed: ...", naming a flag the command was never given.
test('node flags - an --ironic that is not a URL is refused naming --ironic, not --provisioner', async (t) => {
  const r = await metalfleet('node', ...NO_NATS, '--ironic', '$(IRONIC_ENDPOINT)');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: --ironic \$\(IRONIC_ENDPOINT\): .*not a URL/m);
  t.notRegex(r.stderr, /--provisioner|create\(\) failed/);
});
