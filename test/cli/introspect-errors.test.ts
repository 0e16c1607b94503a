// What a user sees when an introspection command cannot do what was asked: one line on stderr,
// a non-zero exit (2 for a usage mistake, 1 for a cluster that is not there).
import test from 'ava';
import { Command } from 'commander';
import { CliError } from '../../src/cli/cli-error.ts';
import { registerAll } from '../../src/cli/commands/index.ts';
import { formatFrom, HOST_STATES, nodesFrom, oneOf, parseHostKey, timeoutFrom } from '../../src/cli/introspect/index.ts';
import { freePort } from '../support/ironic.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { lines, metalfleet, metalfleetWithEnv } from './run.ts';
import { frameSize } from '../../src/cli/commands/top.ts';

const COMMANDS = ['hosts', 'actors', 'shards', 'capacity', 'inspect', 'clusters', 'nodes', 'top'];

test('introspect cli - every command has --help with examples', async (t) => {
  // In-process (spawning seven CLIs is slow on a busy machine); addHelpText output comes with outputHelp.
  const program = new Command('metalfleet');
  await registerAll(program);
  for (const name of COMMANDS) {
    const cmd = program.commands.find((c) => c.name() === name);
    if (!cmd) {
      t.fail(`no command ${name}`);
      continue;
    }
    let text = '';
    cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
    cmd.outputHelp();
    t.regex(text, /Examples:\n {2}metalfleet /, name);
    t.regex(text, /--nats <urls>/, name);
  }
});

test('introspect cli - flag checks name the flag and the choices (exit 2)', (t) => {
  const usage = (f: () => unknown, message: RegExp): void => {
    const error = t.throws(f, { instanceOf: CliError, message });
    t.is(error?.exitCode, 2);
  };
  usage(() => oneOf('--state', 'bogus', HOST_STATES, (v) => v.toLowerCase()), /^--state: unknown value "bogus": use one of unmanaged, .*"match profile"/);
  t.is(oneOf('--state', 'Ready', HOST_STATES, (v) => v.toLowerCase()), 'Ready');
  t.is(oneOf('--state', 'ready', HOST_STATES, (v) => v.toLowerCase()), 'ready');
  t.is(oneOf('--state', 'Match Profile', HOST_STATES, (v) => v.toLowerCase()), 'match profile');
  usage(() => oneOf('--backend', 'vmware', ['ironic', 'maas', 'fixture']), /^--backend: unknown value "vmware": use one of ironic, maas, fixture$/);
  usage(() => formatFrom({ output: 'xml' }), /^-o: unknown format "xml": use table, json or yaml$/);
  usage(() => formatFrom({ json: true, output: 'yaml' }), /^--json and -o yaml ask for two formats/);
  t.is(formatFrom({ json: true, output: 'table' }), 'json');
  usage(() => timeoutFrom({ timeout: '0' }), /^--timeout: expected seconds/);
  t.is(timeoutFrom({ timeout: '0.5' }), 500);
  usage(() => nodesFrom(['a.b']), /^--node: "a\.b" is not a node name/);
  t.deepEqual(nodesFrom(['a,b', 'c', 'a']), ['a', 'b', 'c']);
  usage(() => parseHostKey('worker-0'), /^host "worker-0": must be "<namespace>\/<name>"/);
});

test('introspect cli - bad flags through the binary: one line on stderr, exit 2, before connecting', async (t) => {
  // No NATS is given: a flag check that waited for a connection would fail differently.
  const cases: Array<[string[], RegExp]> = [
    [['hosts', '--state', 'bogus'], /^metalfleet: --state: unknown value "bogus": use one of unmanaged, .*"match profile"/],
    [['hosts', '--bogus'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
    [['inspect'], /^metalfleet: missing required argument 'host' \(see --help\)$/],
    [['top', '--interval', '5'], /^metalfleet: --interval: expected a whole number >= 100, got "5"$/],
  ];
  for (const [args, message] of cases) {
    const r = await metalfleet(...args);
    t.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    t.is(lines(r.stderr).length, 1, `${args.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr.trim(), message, args.join(' '));
    t.is(r.stdout, '');
  }
});

test('introspect cli - NATS unreachable: one line naming the URL, exit 1', async (t) => {
  // A port nobody listens on.
  const port = await freePort();
  for (const command of [['hosts'], ['inspect', 'metal3/worker-0'], ['top', '--once']]) {
    const r = await metalfleet(...command, '--nats', `nats://127.0.0.1:${port}`);
    t.is(r.code, 1, `${command.join(' ')}: ${r.stderr}`);
    t.deepEqual(lines(r.stderr).length, 1, r.stderr);
    t.regex(r.stderr, new RegExp(`^metalfleet: cannot reach NATS at nats://127\\.0\\.0\\.1:${port}: cannot connect`));
    t.is(r.stdout, '');
  }
});

const withNats = natsServerInstalled() ? test : test.skip;

withNats('introspect cli - no node answering: one line saying where nodes were looked for, exit 1', async (t) => {
  const nats = await startNatsServer();
  try {
    for (const command of [['hosts'], ['nodes'], ['capacity', '-o', 'yaml']]) {
      const r = await metalfleet(...command, '--nats', nats.url, '--timeout', '0.5');
      t.is(r.code, 1, r.stderr);
      t.deepEqual(lines(r.stderr), [`metalfleet: no metalfleet node answered within 0.5s; is a node running with --nats ${nats.url}?`]);
    }
    // Asking for a node by name that is not there.
    const r = await metalfleet('shards', '--nats', nats.url, '--node', 'ghost', '--timeout', '0.5');
    t.is(r.code, 1);
    t.regex(r.stderr, /^metalfleet: node\(s\) ghost did not answer within 0\.5s/);
    const unknown = await metalfleet('inspect', 'metal3/worker-0', '--nats', nats.url, '--timeout', '0.5');
    t.is(unknown.code, 1);
    t.deepEqual(lines(unknown.stderr), [`metalfleet: no metalfleet node answered for host metal3/worker-0; is a node running with --nats ${nats.url}?`]);
  } finally {
    await nats.dispose();
  }
});

// `top --once` is the dashboard for scripts and logs: with no node answering it printed its frame
// ("! no metalfleet node answered") and exited 0, so a cron job could not tell a dead cluster from
// a healthy one, where every other view exits 1.
withNats('introspect cli - top --once with no node answering prints its frame, then the one line, exit 1', async (t) => {
  const nats = await startNatsServer();
  try {
    const r = await metalfleet('top', '--once', '--nats', nats.url, '--timeout', '0.5');
    t.is(r.code, 1, r.stderr);
    t.regex(r.stdout, /^metalfleet top {2}nodes 0 /);
    t.deepEqual(lines(r.stderr), [`metalfleet: no metalfleet node answered within 0.5s; is a node running with --nats ${nats.url}?`]);
    const plain = await metalfleetWithEnv({ COLUMNS: '', LINES: '' }, 'top', '--once', '--nats', nats.url, '--timeout', '0.5');
    t.is(plain.stdout.split('\n').length - 1, 24, 'piped with no $LINES: 24 lines');
    // Piped, the frame takes $COLUMNS x $LINES as ps and less do (it was 80x24 whatever they said).
    const sized = await metalfleetWithEnv({ COLUMNS: '120', LINES: '9' }, 'top', '--once', '--nats', nats.url, '--timeout', '0.5');
    t.is(sized.code, 1, sized.stderr);
    const frame = sized.stdout.split('\n').slice(0, -1);
    t.is(frame.length, 9);
    t.is(frame[0]?.length, 120, 'the header is laid out to the full width');
    t.true(frame.every((l) => l.length <= 120));
    const ghost = await metalfleet('top', '--once', '--nats', nats.url, '--node', 'ghost', '--timeout', '0.5');
    t.is(ghost.code, 1, ghost.stderr);
    t.regex(ghost.stderr, /^metalfleet: node\(s\) ghost did not answer within 0\.5s/);
  } finally {
    await nats.dispose();
  }
});

test('introspect cli - top --once frame size: the terminal\'s, else $COLUMNS x $LINES, else 80x24; nonsense is ignored', (t) => {
  t.deepEqual(frameSize({ isTTY: true, columns: 150, rows: 40 }, { COLUMNS: '90', LINES: '10' }), { width: 150, height: 40 });
  t.deepEqual(frameSize({ isTTY: false }, { COLUMNS: '90', LINES: '10' }), { width: 90, height: 10 });
  t.deepEqual(frameSize({ isTTY: false }, {}), { width: 80, height: 24 });
  t.deepEqual(frameSize({ isTTY: false }, { COLUMNS: 'wide', LINES: '0' }), { width: 80, height: 24 });
  t.deepEqual(frameSize({ isTTY: false }, { COLUMNS: ' 132 ', LINES: '-5' }), { width: 132, height: 24 });
});
