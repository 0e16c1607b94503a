// Flag values a user can get wrong, refused before anything starts with a line that names the
// flag and the value (exit 2), never a library's message or a silently different setting.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { timeoutFrom } from '../../src/cli/introspect/index.ts';
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

test('flags - a millisecond value past what a timer holds (2^31-1) is refused naming the flag, not run as 1 ms', async (t) => {
  // Node runs a longer timer after 1 ms, with a TimeoutOverflowWarning per call: --latency 3000000000
  // made every fixture call instant and filled stderr with warnings.
  const commands: Array<[string[], string]> = [
    [['demo', '--hosts', '1', '--no-maas', '--json', '--latency', '3000000000'], '--latency'],
    [['node', ...NO_NATS, '--allow-unsigned-commands', '--heartbeat', '3000000000'], '--heartbeat'],
    [['fixture-server', '--latency', 'provision=3000000000'], '--latency provision'],
    [['top', '--once', ...NO_NATS, '--interval', '3000000000'], '--interval'],
  ];
  for (const [command, flag] of commands) {
    const r = await metalfleet(...command);
    t.is(r.code, 2, `${flag}: ${r.stderr}`);
    t.regex(r.stderr, new RegExp(`^metalfleet: ${flag}: expected a whole number from \\d+ to 2147483647 \\(milliseconds\\), got "3000000000"$`, 'm'), flag);
    t.notRegex(r.stderr, /TimeoutOverflowWarning|cannot connect/, flag);
    t.is(r.stdout, '', flag);
  }
  const option = await metalfleet('demo', '--hosts', '1', '--no-maas', '--json', '--provisioner-option', 'fixture.latencyMs=3000000000');
  t.is(option.code, 2, option.stderr);
  t.regex(option.stderr, /option latencyMs: must be at most 2147483647 milliseconds \(what a timer holds\), got "3000000000"/);
  t.notRegex(option.stderr, /TimeoutOverflowWarning/);
  const fault = await metalfleet('sim', 'redfish', '--fault', 'node-0=slow:3000000000');
  t.is(fault.code, 2, fault.stderr);
  t.is(fault.stderr, 'metalfleet: --fault node-0=slow:3000000000: slow takes at most 2147483647 ms\n');
  t.is(fault.stdout, '');
});

test('flags - demo refuses flags that contradict --no-maas, or that only mean something with --ui, by name', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['--maas', 'http://127.0.0.1:1', '--no-maas'], /^metalfleet: --no-maas cannot be used with --maas: give one$/m],
    [['--no-maas', '--maas', 'http://127.0.0.1:1'], /^metalfleet: --no-maas cannot be used with --maas: give one$/m],
    [['--no-maas', '--maas-key', 'ck:tk:SECRET-KEY-9'], /^metalfleet: --no-maas cannot be used with --maas-key: give one$/m],
    [['--no-maas', '--maas-workers', '2', '--maas-skip-swap'], /^metalfleet: --no-maas cannot be used with --maas-skip-swap, --maas-workers: give one$/m],
    [['--no-maas', '--ui-commands'], /^metalfleet: --ui-commands only applies with --ui: add --ui, or leave it out$/m],
    [['--no-maas', '--ui-port', '0', '--ui-bind', '127.0.0.1'], /^metalfleet: --ui-port, --ui-bind only apply with --ui: add --ui, or leave them out$/m],
  ];
  for (const [extra, message] of cases) {
    const r = await metalfleet('demo', '--hosts', '1', '--latency', '0', '--json', ...extra);
    t.is(r.code, 2, `${extra.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, message, extra.join(' '));
    t.is(r.stdout, '', extra.join(' '));
    t.false(r.stderr.includes('SECRET-KEY-9'), 'the key is never echoed');
  }
});

test('flags - an introspection --timeout too short to wait at all is refused, and the range named is the one taken', (t) => {
  // 0.0001 s rounded to 0 ms: every node "did not answer within 0s".
  for (const value of ['0.0001', '0', '-1', '301', 'soon']) {
    const error = t.throws(() => timeoutFrom({ timeout: value }), { instanceOf: CliError });
    t.is(error?.message, `--timeout: expected seconds from 0.001 to 300, got "${value}"`, value);
    t.is(error?.exitCode, 2);
  }
  t.is(timeoutFrom({ timeout: '0.001' }), 1);
  t.is(timeoutFrom({ timeout: '300' }), 300_000);
});

test('flags - top --once with --interval is refused by name: one frame has no refresh interval', async (t) => {
  const r = await metalfleet('top', '--once', '--interval', '500', ...NO_NATS);
  t.is(r.code, 2, r.stderr);
  t.is(r.stderr, 'metalfleet: --interval does nothing with --once (one frame, no refresh): give one\n');
  t.is(r.stdout, '');
});
