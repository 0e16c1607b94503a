// A usage mistake commander finds (an unknown flag, a missing or extra argument) in the commands
// that publish (host, apply, delete) and in audit: exit 2 and one line, as the introspection
// commands answer it. audit, apply and delete exited 1, which a script reads as "the cluster
// refused", and host printed commander's two lines.
import test from 'ava';
import { lines, metalfleet } from './run.ts';

const NO_NATS = ['--nats', 'nats://127.0.0.1:1'];

const CASES: Array<[string[], RegExp]> = [
  [['audit', '--bogus'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
  [['audit', 'extra'], /^metalfleet: too many arguments for 'audit'\. Expected 0 arguments but got 1: "extra" \(see --help\)$/],
  [['apply', '-f', 'x.yaml', '--bogus'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
  [['delete', 'host', 'lab/h-0', '--bogus'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
  [['host', 'power-off'], /^metalfleet: missing required argument 'hosts' \(see --help\)$/],
  [['host', 'power-off', 'lab/h-0', '--bogus'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
  [['cmd', 'power-off', 'lab/h-0', '--shard', '16'], /^metalfleet: unknown option '--shard' \(Did you mean --shards\?\) \(see --help\)$/],
];

// The commands that take no --nats answered in commander's two lines, exit 1: their own failures' code.
const OTHER_CASES: Array<[string[], RegExp]> = [
  [['bmc', 'redfish://x', '--jsn'], /^metalfleet: unknown option '--jsn' \(Did you mean --json\?\) \(see --help\)$/],
  [['ui', '--prot', '1'], /^metalfleet: unknown option '--prot' \(Did you mean --port\?\) \(see --help\)$/],
  [['demo', 'extra'], /^metalfleet: too many arguments for 'demo'\. Expected 0 arguments but got 1: "extra" \(see --help\)$/],
  [['sim', 'redfish', '--sytems', '2'], /^metalfleet: unknown option '--sytems' \(Did you mean --systems\?\) \(see --help\)$/],
  [['keygen', '--out', 'never-written.seed', '--bogus'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
];

for (const [args, message, extra] of [...CASES.map(([a, m]) => [a, m, NO_NATS] as const), ...OTHER_CASES.map(([a, m]) => [a, m, []] as const)]) {
  test(`usage - metalfleet ${args.join(' ')}: one line, exit 2, nothing sent`, async (t) => {
    const r = await metalfleet(...args, ...extra);
    t.is(r.code, 2, r.stderr);
    t.is(r.stdout, '');
    t.is(lines(r.stderr).length, 1, r.stderr);
    t.regex(r.stderr.trim(), message);
  });
}

test('usage - --help of those commands still exits 0 with the help on stdout', async (t) => {
  for (const name of ['audit', 'apply', 'delete', 'host', 'demo', 'bmc', 'ui']) {
    const r = await metalfleet(name, '--help');
    t.is(r.code, 0, `${name}: ${r.stderr}`);
    t.regex(r.stdout, new RegExp(`^Usage: metalfleet ${name}[ |]`), name);
  }
});
