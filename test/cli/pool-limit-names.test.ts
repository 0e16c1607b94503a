// A per-pool limit naming no pool of the node (a typo) was kept and never looked up: the backend
// ran at the default. Capacity limits in the node configuration and --max-calls are refused
// instead, naming the key, where it came from, and the backends and pools the node has.
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { nodeConfig, readEnv } from '../../src/cli/config.ts';
import { metalfleet } from './run.ts';

const env = readEnv({});
const known = { kinds: ['fixture', 'ironic', 'maas', 'lab'] };

test('pool limits - a capacity limit naming no pool is refused with the key, its source, the known names and a suggestion', (t) => {
  const err = t.throws(() => nodeConfig({ name: 'a', env, limits: { values: { ironik: 5 }, source: '/etc/metalfleet/node.yaml limits', known } }), { instanceOf: CliError });
  t.regex(err?.message ?? '', /^\/etc\/metalfleet\/node\.yaml limits: "ironik" names no backend or capacity pool of this node/);
  t.regex(err?.message ?? '', /known: fixture, ironic, maas, lab/);
  t.regex(err?.message ?? '', /did you mean ironic\?/);
  const pool = t.throws(() => nodeConfig({ name: 'a', env, limits: { values: { 'ironc:http://ironic:6385': 5 }, source: 'limits', known } }), { instanceOf: CliError });
  t.regex(pool?.message ?? '', /"ironc:http:\/\/ironic:6385" names no backend .*did you mean ironic:http:\/\/ironic:6385\?/);
});

test('pool limits - a limit naming a backend kind, or a pool a configured backend creates, is kept; 0 is no limit', (t) => {
  const config = nodeConfig({ name: 'a', env, limits: { values: { ironic: 5, 'ironic:http://ironic:6385': 2, 'lab:pdu-7': 1, fixture: 0 }, source: 'limits', known } });
  t.deepEqual(config.capacity.limits, { ironic: 5, 'ironic:http://ironic:6385': 2, 'lab:pdu-7': 1, fixture: Number.POSITIVE_INFINITY });
});

test('pool limits - a limit that is not a whole number >= 0 is refused naming the key and its source', (t) => {
  for (const bad of [-1, 2.5, Number.NaN]) {
    const err = t.throws(() => nodeConfig({ name: 'a', env, limits: { values: { ironic: bad }, source: 'node.yaml limits', known } }), { instanceOf: CliError }, String(bad));
    t.is(err?.message, `node.yaml limits: "ironic": expected a whole number >= 0 (0 = no limit), got ${bad}`);
  }
});

test('pool limits - metalfleet demo refuses --max-calls naming no backend of the node (exit 2)', async (t) => {
  const r = await metalfleet('demo', '--hosts', '1', '--latency', '0', '--no-maas', '--json', '--max-calls', 'fixtrue=5');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /--max-calls: "fixtrue" names no backend or capacity pool of this node \(known: fixture, ironic, maas/);
  t.regex(r.stderr, /did you mean fixture\?/);
});

test('pool limits - --max-calls naming a pool of a loaded plugin still runs', async (t) => {
  const r = await metalfleet('demo', '--hosts', '1', '--latency', '0', '--no-maas', '--json', '--log-level', 'error',
    '--plugin', './examples/provisioner-plugin', '--max-calls', 'lab:pdu-7=2,fixture=3,ironic=10');
  t.is(r.code, 0, r.stderr);
});

test('pool limits - a refused pool name never shows the password of a URL in it', (t) => {
  const err = t.throws(() => nodeConfig({ name: 'a', env, limits: { values: { 'ironc:http://admin:s3cret-pw@ironic:6385': 5 }, source: 'limits', known } }), { instanceOf: CliError });
  t.notRegex(err?.message ?? '', /s3cret-pw/);
  t.regex(err?.message ?? '', /"ironc:http:\/\/xxxxx@ironic:6385" names no backend/);
});

test('pool limits - metalfleet node refuses --max-calls naming no backend before it connects (exit 2)', async (t) => {
  const r = await metalfleet('node', '--nats', 'nats://127.0.0.1:1', '--allow-unsigned-commands', '--max-calls', 'ironik=5');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /--max-calls: "ironik" names no backend or capacity pool of this node \(known: fixture, ironic, maas.*did you mean ironic\?/);
});

test('pool limits - --max-calls naming the pool a backend was configured with (fixture-server --pool rack-1) is kept', async (t) => {
  const { createFixtureProvisioner } = await import('../../src/adapters/fixture/index.ts');
  const { fixtureBuiltin } = await import('../../src/cli/builtin-provisioners.ts');
  const { selectProvisioner } = await import('../../src/cli/provisioners.ts');
  const { silentLogger } = await import('../../src/ports/index.ts');
  const rack = { ...fixtureBuiltin(0), create: () => createFixtureProvisioner({ latencyMs: 0, pool: 'rack-1' }) };
  const o = { builtins: [rack], defaultName: 'fixture', cwd: process.cwd(), log: silentLogger, warn: () => undefined };
  const selected = await selectProvisioner({ ...o, flags: { maxCalls: ['rack-1=5', 'fixture=2'] } });
  t.deepEqual(selected.active, ['fixture']);
  const err = await t.throwsAsync(selectProvisioner({ ...o, flags: { maxCalls: ['rack-2=5'] } }), { instanceOf: CliError });
  t.regex(err?.message ?? '', /^--max-calls: "rack-2" names no backend or capacity pool of this node \(known: fixture, maas, rack-1.*did you mean rack-1\?/);
});
