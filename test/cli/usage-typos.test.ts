// A word a user mistyped (an action, a kind, a delete type, a state, a backend, an output format)
// is refused with the one it is closest to, as commander does for a mistyped command; a word like
// none of them lists the choices alone. Usage mistakes are found before anything connects.
import test from 'ava';
import { buildHostCommands } from '../../src/cli/commands/host.ts';
import { formatFrom, HOST_STATES, oneOf } from '../../src/cli/introspect/index.ts';
import { closestWord } from '../../src/cli/did-you-mean.ts';
import { metalfleet } from './run.ts';

const NO_NATS = ['--nats', 'nats://127.0.0.1:1'];

test('typos - the closest word is suggested: one or two edits, a swap of neighbours, or another case', (t) => {
  t.is(closestWord('power-of', ['power-on', 'power-off', 'reboot']), 'power-off');
  t.is(closestWord('hots', ['host', 'maasmachine']), 'host');
  t.is(closestWord('PROVISIONED', ['provisioning', 'provisioned']), 'provisioned');
  t.is(closestWord('iornic', ['ironic', 'maas', 'fixture']), 'ironic');
  t.is(closestWord('vmware', ['ironic', 'maas', 'fixture']), null);
  t.is(closestWord('x', ['a', 'b']), null, 'a one-letter word is like every other one: no guess');
});

test('typos - host: a mistyped action or kind names the one meant (exit 2, nothing sent)', async (t) => {
  const r = await metalfleet('host', 'power-of', 'lab/h-0', ...NO_NATS);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: unknown action "power-of": use one of power-on, power-off, reboot, .*, release; did you mean power-off\?$/m);
  t.is(r.stdout, '');
  t.throws(() => buildHostCommands('pause', ['lab/m-0'], { kind: 'maasmachin' }), { message: /^--kind: unknown kind "maasmachin": the kinds are BareMetalHost .*; did you mean MaasMachine\?$/ });
  t.throws(() => buildHostCommands('pause', ['maasmachin/lab/m-0'], {}), { message: /^host "maasmachin\/lab\/m-0": unknown kind "maasmachin": the kinds are .*; did you mean MaasMachine\?$/ });
});

test('typos - delete: a mistyped type names the one meant', async (t) => {
  const r = await metalfleet('delete', 'hots', 'lab/h-0', ...NO_NATS);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: unknown type "hots": metalfleet deletes host .*; did you mean host\?$/m);
  t.notRegex(r.stderr, /cannot connect/);
});

test('typos - introspection: a mistyped --state, --backend or -o names the value meant', (t) => {
  t.throws(() => oneOf('--state', 'provisoned', HOST_STATES, (v) => v.toLowerCase()), { message: /^--state: unknown value "provisoned": use one of unmanaged, .*; did you mean provisioned\?$/ });
  t.throws(() => oneOf('--backend', 'iornic', ['ironic', 'maas', 'fixture']), { message: '--backend: unknown value "iornic": use one of ironic, maas, fixture; did you mean ironic?' });
  t.throws(() => formatFrom({ output: 'jsno' }), { message: '-o: unknown format "jsno": use table, json or yaml; did you mean json?' });
});

test('delete - Cluster API Machines and Clusters, which apply writes, are deleted by type too', async (t) => {
  // The type is taken: the command goes on to connect (and fails there, with no server).
  for (const type of ['machine', 'Machines', 'cluster', 'Cluster']) {
    const r = await metalfleet('delete', type, 'lab/c1', ...NO_NATS);
    t.is(r.code, 1, `${type}: ${r.stderr}`);
    t.notRegex(r.stderr, /unknown type/, type);
    t.regex(r.stderr, /cannot connect/, type);
  }
});

test('hosts - -o wide, which hosts takes, is in its help and in the error for a format it does not know', async (t) => {
  const help = await metalfleet('hosts', '--help');
  t.is(help.code, 0, help.stderr);
  t.regex(help.stdout.replace(/\s+/g, ' '), /-o, --output <format> table, wide, name, json or yaml/);
  const r = await metalfleet('hosts', '-o', 'wdie', ...NO_NATS);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /^metalfleet: -o: unknown format "wdie": use table, wide, name, json or yaml; did you mean wide\?$/m);
});

test('typos - "help" with a mistyped command says so and names the command meant, as a mistyped command does', async (t) => {
  const r = await metalfleet('help', 'hots');
  t.is(r.code, 2, r.stderr);
  t.is(r.stdout, '');
  t.regex(r.stderr, /^error: unknown command 'hots'\n\(Did you mean (one of host, )?hosts\?\)\n\(run with --help for usage\)\n$/);
  const same = await metalfleet('hots');
  t.is(same.stderr, r.stderr, 'the same lines as for the command itself');
  t.is(same.code, 2);
  const none = await metalfleet('help', 'frobnicate');
  t.is(none.code, 2);
  t.is(none.stderr, "error: unknown command 'frobnicate'\n(run with --help for usage)\n");
});

test('typos - too many arguments names the words left over, and an option that took a flag as its value', async (t) => {
  const hosts = await metalfleet('hosts', '-o', '--nats', 'nats://127.0.0.1:1');
  t.is(hosts.code, 2, hosts.stderr);
  t.regex(hosts.stderr, /^metalfleet: too many arguments for 'hosts'\. Expected 0 arguments but got 1: "nats:\/\/127\.0\.0\.1:1" \(-o took "--nats" as its value\) \(see --help\)$/m);
  const demo = await metalfleet('demo', 'extra');
  t.not(demo.code, 0, demo.stderr);
  t.regex(demo.stderr, /too many arguments for 'demo'\. Expected 0 arguments but got 1: "extra"/);
  t.notRegex(demo.stderr, /took/, 'no option took a flag: no such clause');
});
