// `metalfleet validate --bogus hosts.yaml`: a usage mistake commander finds. Every other command
// (hosts, host, apply, delete, top) answers one line and exit 2; validate printed commander's two
// lines and exited 1, the exit a script reads as "the manifests are invalid".
import test from 'ava';
import { lines, metalfleet, metalfleetWithEnv } from './run.ts';

const CASES: Array<[string[], RegExp]> = [
  [['validate', '--bogus', 'x.yaml'], /^metalfleet: unknown option '--bogus' \(see --help\)$/],
  [['validate', 'x.yaml', '-n'], /^metalfleet: option '-n, --namespace <namespace>' argument missing \(see --help\)$/],
  [['validate', 'x.yaml', '--namespaces', 'prod'], /^metalfleet: unknown option '--namespaces' \(Did you mean --namespace\?\) \(see --help\)$/],
];

for (const [args, message] of CASES) {
  test(`validate usage - metalfleet ${args.join(' ')}: one line naming the flag, exit 2`, async (t) => {
    const r = await metalfleet(...args);
    t.is(r.code, 2, r.stderr);
    t.is(r.stdout, '');
    t.is(lines(r.stderr).length, 1, r.stderr);
    t.regex(r.stderr.trim(), message);
  });
}

test('validate usage - --help still exits 0 with the help on stdout', async (t) => {
  const r = await metalfleet('validate', '--help');
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^Usage: metalfleet validate /);
});

test('validate usage - a node setting in the environment (PROVISIONING_LIMIT=abc) does not stop validate; a bad plugin folder variable still does', async (t) => {
  const r = await metalfleetWithEnv({ PROVISIONING_LIMIT: 'abc' }, 'validate', 'test/deploy/upstream/bmo/examples/example-host.yaml');
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /objects? checked, 0 invalid/);
  const dir = await metalfleetWithEnv({ METALFLEET_PLUGIN_DIR: '' }, 'validate', 'test/deploy/upstream/bmo/examples/example-host.yaml');
  t.is(dir.code, 2, dir.stderr);
  t.regex(dir.stderr, /^metalfleet: environment variable METALFLEET_PLUGIN_DIR: /m);
});
