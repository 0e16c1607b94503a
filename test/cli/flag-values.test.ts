// Flag values a user can get wrong, refused before anything starts with a line that names the
// flag and the value (exit 2), never a library's message or a silently different setting.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

const NO_NATS = ['--nats', 'nats://127.0.0.1:1'];

test('flags - an unknown --log-level is refused naming the flag and the levels, on every command that has it', async (t) => {
  const commands: string[][] = [
    ['demo', '--hosts', '1', '--no-maas', '--json'],
    ['fixture-server', '--port', '0'],
    ['node', ...NO_NATS, '--allow-unsigned-commands'],
  ];
  for (const command of commands) {
    const r = await metalfleet(...command, '--log-level', 'loud');
    t.is(r.code, 2, `${command[0]}: ${r.stderr}`);
    t.regex(r.stderr, /^metalfleet: --log-level: expected one of trace, debug, info, warn, error, fatal, silent, got "loud"$/m, command[0]);
    t.notRegex(r.stderr, /custom levels/, command[0]);
  }
});

test('flags - an empty number is refused, not read as 0 (--limit "" is no unlimited capacity)', async (t) => {
  for (const [flag, value] of [['--limit', ''], ['--latency', ' '], ['--hosts', '']] as const) {
    const r = await metalfleet('demo', '--no-maas', '--json', flag, value);
    t.is(r.code, 2, `${flag}: ${r.stderr}`);
    t.regex(r.stderr, new RegExp(`^metalfleet: ${flag}: expected a whole number >= \\d, got "${value}"$`, 'm'), flag);
    t.is(r.stdout, '', flag);
  }
});

test('flags - --shards past 65536 is refused as METALFLEET_SHARDS is, before any connection', async (t) => {
  for (const command of [['host', 'power-on', 'metal3/worker-0', ...NO_NATS], ['node', ...NO_NATS, '--allow-unsigned-commands']]) {
    const r = await metalfleet(...command, '--shards', '1000000000');
    t.is(r.code, 2, `${command[0]}: ${r.stderr}`);
    t.regex(r.stderr, /^metalfleet: --shards: expected a whole number from 1 to 65536, got "1000000000"$/m, command[0]);
    t.notRegex(r.stderr, /cannot connect/, command[0]);
  }
});

test('flags - a port past 65535 is refused naming the flag, before any connection or listen', async (t) => {
  const commands: Array<[string[], string]> = [
    [['ui', '--port', '70000', ...NO_NATS], '--port'],
    [['demo', '--ui', '--hosts', '1', '--no-maas', '--ui-port', '99999'], '--ui-port'],
    [['node', ...NO_NATS, '--allow-unsigned-commands', '--health-port', '65536'], '--health-port'],
  ];
  for (const [command, flag] of commands) {
    const r = await metalfleet(...command);
    t.is(r.code, 2, `${flag}: ${r.stderr}`);
    t.regex(r.stderr, new RegExp(`^metalfleet: ${flag}: expected a port from 0 to 65535, got "\\d+"$`, 'm'), flag);
    t.notRegex(r.stderr, /cannot connect|options\.port/, flag);
  }
});

test('flags - an empty fixture.latencyMs provisioner option is refused, not read as 0', async (t) => {
  const r = await metalfleet('demo', '--hosts', '1', '--no-maas', '--json', '--provisioner-option', 'fixture.latencyMs=');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /option latencyMs: must be a whole number of milliseconds, got ""/);
  t.is(r.stdout, '');
});

test('flags - demo -f with --hosts or the MAAS counts is refused, not run with the files\' hosts alone', async (t) => {
  const cases: Array<[string[], string]> = [
    [['--hosts', '50'], '--hosts'],
    [['--maas-workers', '3', '--maas-control-plane', '1'], '--maas-control-plane, --maas-workers'],
  ];
  for (const [extra, named] of cases) {
    const r = await metalfleet('demo', '-f', 'test/fixtures/demo/lab.yaml', '--latency', '0', '--json', ...extra);
    t.is(r.code, 2, `${named}: ${r.stderr}`);
    t.regex(r.stderr, new RegExp(`^metalfleet: -f cannot be used with ${named}: the hosts are the files'`, 'm'), named);
    t.is(r.stdout, '', named);
  }
});

test('flags - a bad nkey seed names --nats-nkey-file and its path, or NATS_NKEY_SEED, never the seed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-nkey-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'seed.nk');
  await writeFile(file, 'hunter2-not-a-seed\n');
  const r = await metalfleet('host', 'power-on', 'metal3/worker-0', ...NO_NATS, '--nats-nkey-file', file);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, new RegExp(`the nkey seed in --nats-nkey-file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a valid nkey seed`));
  t.false(r.stderr.includes('hunter2'));
  t.notRegex(r.stderr, /auth\.nkeySeed/);
});
