// `metalfleet node`'s lease TTL follows --replicas unless --lease-ttl is given, and a TTL given
// below what a NATS leader election needs is warned about once, at start (issue 30).
import test from 'ava';
import { metalfleet } from './run.ts';

// Nothing listens here: the node logs its start-up judgement, then fails to connect.
const NATS = ['--nats', 'nats://127.0.0.1:1', '--allow-unsigned-commands', '--name', 'ttl'];
const WARNING = /"leaseTtlMs":5000,"replicas":3,.*below a NATS leader election \(writes stopped up to 8 s/;

test('node lease ttl - --help says the default for R3 and for one server', async (t) => {
  const help = await metalfleet('node', '--help');
  t.is(help.code, 0);
  t.regex(help.stdout.replace(/\s+/g, ' '), /--lease-ttl <ms> .*default 15000 with --replicas 3, which outlasts a NATS leader election; 5000 on one server/);
});

test('node lease ttl - R3 with --lease-ttl 5000 warns, naming the election; R3 with the default and R1 with 5000 do not', async (t) => {
  const [short, byDefault, single] = await Promise.all([
    metalfleet('node', ...NATS, '--replicas', '3', '--lease-ttl', '5000'),
    metalfleet('node', ...NATS, '--replicas', '3'),
    metalfleet('node', ...NATS, '--lease-ttl', '5000'),
  ]);
  for (const run of [short, byDefault, single]) t.regex(run.stderr, /cannot connect/);
  t.regex(short.stderr, WARNING);
  t.is(short.stderr.match(/leader election/g)?.length, 1);
  t.notRegex(byDefault.stderr, /leader election/);
  t.notRegex(single.stderr, /leader election/);
});

test('node lease ttl - --lease-ttl is still checked as before', async (t) => {
  const run = await metalfleet('node', ...NATS, '--lease-ttl', '100');
  t.is(run.code, 2);
  t.regex(run.stderr, /--lease-ttl/);
});
