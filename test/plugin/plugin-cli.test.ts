// Plugins through the CLI: a folder with three bad plugins and a good one still runs every host
// (the bad ones reported, one line each); a plugin or provisioner asked for by name must work or
// the command stops with exit 2 and the reason.
import test from 'ava';
import { metalfleet } from '../cli/run.ts';

const HOSTS = 'test/fixtures/plugins/lab-hosts.yaml';

test('plugin cli - three bad plugins in the folder are refused with their reasons; every host still reaches provisioned', async (t) => {
  const run = await metalfleet('demo', '-f', HOSTS, '--plugin-dir', 'test/fixtures/plugins/folder', '--json', '--log-level', 'error');
  t.is(run.code, 0, run.stderr);
  const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { hosts: number; reached: number; byState: Record<string, number>; capacity: { pools: number } };
  t.like(summary, { hosts: 4, reached: 4, byState: { provisioned: 4 } });
  t.is(summary.capacity.pools, 2, 'a pool for the lab PDU and one for the fixture');
  const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning: provisioner plugin'));
  t.is(warnings.length, 3, run.stderr);
  t.true(warnings.some((w) => w.includes('wrong-version.mjs: implements contract version 2; this metalfleet implements version 1')));
  t.true(warnings.some((w) => w.includes('missing-factory.mjs: create: must be a function (the factory)')));
  t.true(warnings.some((w) => w.includes('throws (') && w.includes('create() failed: cannot reach the PDU controller at 10.9.9.9')));
  t.notRegex(run.stderr + run.stdout, /pdu-secret-4417/, 'the BMC password is nowhere in the output');
});

test('plugin cli - a bad --plugin, an unknown --provisioner and a malformed option stop the start with exit 2', async (t) => {
  const bad = await metalfleet('demo', '-f', HOSTS, '--plugin', './test/fixtures/plugins/folder/wrong-version.mjs');
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--plugin provisioner plugin \.\/test\/fixtures\/plugins\/folder\/wrong-version\.mjs: implements contract version 2/);
  const unknown = await metalfleet('demo', '-f', HOSTS, '--provisioner', 'nope');
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /--provisioner provisioner plugin nope: no such provisioner \(known for BareMetalHost: fixture, ironic\)/);
  const option = await metalfleet('demo', '-f', HOSTS, '--provisioner-option', 'lab:fast');
  t.is(option.code, 2);
  t.regex(option.stderr, /--provisioner-option "lab:fast": expected NAME\.KEY=VALUE/);
  const throws = await metalfleet('demo', '-f', HOSTS, '--plugin', './test/fixtures/plugins/folder/throwing-factory.mjs', '--provisioner', 'throws');
  t.is(throws.code, 2);
  t.regex(throws.stderr, /create\(\) failed: cannot reach the PDU controller/);
});

test('plugin cli - --provisioner lab with --plugin by package name runs the lab hosts; the fixture hosts go to lab too and fail registration with its reason', async (t) => {
  const run = await metalfleet('demo', '-f', HOSTS, '--plugin', 'metalfleet-provisioner-lab', '--provisioner', 'lab', '--provisioner-option', 'lab.provisionMs=1', '--json', '--log-level', 'error', '--timeout', '4');
  const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { byState: Record<string, number>; notReached: Array<{ host: string }> };
  t.is(summary.byState['provisioned'], 2, run.stdout);
  t.deepEqual(summary.notReached.map((n) => n.host).sort(), ['lab/plain-1', 'lab/plain-2']);
  t.is(run.code, 1, 'not every host reached its target');
});

test('plugin cli - metalfleet node takes the same plugin flags, and refuses a bad plugin before it joins a cluster', async (t) => {
  const help = await metalfleet('node', '--help');
  for (const flag of ['--provisioner <name>', '--plugin <ref>', '--plugin-dir <dir>', '--provisioner-option']) t.true(help.stdout.includes(flag), flag);
  const bad = await metalfleet('node', '--nats', 'nats://127.0.0.1:9', '--plugin', './test/fixtures/plugins/folder/missing-factory.mjs');
  t.is(bad.code, 2, bad.stderr);
  t.regex(bad.stderr, /--plugin provisioner plugin \.\/test\/fixtures\/plugins\/folder\/missing-factory\.mjs: create: must be a function/);
});
