// `metalfleet sim redfish` as a user runs it: one line per system with its address and
// credentials, a server that answers them, a clean stop on SIGTERM, flag errors before starting.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Command } from 'commander';
import { CliError } from '../../src/cli/cli-error.ts';
import { parseFaultFlags, registerSimRedfish } from '../../src/cli/commands/sim-redfish.ts';
import { waitFor } from '../support/wait.ts';
import { metalfleet } from '../cli/run.ts';

// The command as users run it: `metalfleet sim redfish` (from source under the tests).
const METALFLEET = fileURLToPath(new URL('../../bin/metalfleet.js', import.meta.url));

test('redfish cli - prints each system with its address and credentials, serves them, stops on SIGTERM', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sim-redfish-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const passwordFile = join(dir, 'bmc.pass');
  await writeFile(passwordFile, 'pa ss:word\n');
  const child = spawn(process.execPath, [METALFLEET, 'sim', 'redfish', '--systems', '2', '--username', 'root', '--password-file', passwordFile, '--fault', 'node-1=power-stuck'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(() => out.split('\n').length > 2, 30_000, 'two system lines');
  // The password runs to the end of the line; the fields before it hold no spaces.
  const lines = out.trim().split('\n').map((l) => {
    const at = l.indexOf(' password=');
    const fields = Object.fromEntries(l.slice(0, at).split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    return { ...fields, password: l.slice(at + ' password='.length) } as Record<string, string>;
  });
  t.deepEqual(lines.map((l) => l.id), ['node-0', 'node-1']);
  t.regex(lines[0]?.address ?? '', /^redfish\+http:\/\/127\.0\.0\.1:\d+\/redfish\/v1\/Systems\/node-0$/);
  t.like(lines[0], { username: 'root', password: 'pa ss:word' });
  t.like(lines[1], { username: 'root', password: 'pa ss:word' });
  t.regex(lines[1]?.macs ?? '', /^52:54:00(:[0-9a-f]{2}){3},52:54:00(:[0-9a-f]{2}){3}$/);
  await waitFor(() => err.includes('stop with Ctrl-C'), 10_000, 'the stderr banner');
  t.false(err.includes('ss:word'), 'stderr never carries the password');
  const base = (lines[0]?.address ?? '').replace(/^redfish\+/, '').replace(/\/redfish\/v1\/Systems\/node-0$/, '');
  const res = await fetch(`${base}/redfish/v1/Systems/node-1`, { headers: { authorization: `Basic ${Buffer.from('root:pa ss:word').toString('base64')}` } });
  t.is(res.status, 200);
  await res.arrayBuffer();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  t.is(await exited, 0);
});

test('redfish cli - a bad --fault is refused before anything starts, naming the flag', async (t) => {
  const program = new Command('metalfleet').exitOverride();
  registerSimRedfish(program.command('sim'));
  const err = await t.throwsAsync(program.parseAsync(['sim', 'redfish', '--systems', '2', '--fault', 'node-2=power-stuck'], { from: 'user' }), { instanceOf: CliError });
  t.regex(err?.message ?? '', /--fault node-2=power-stuck: no system "node-2"/);
  t.throws(() => parseFaultFlags(['node-0=melt'], ['node-0']), { message: /KIND one of refuse-credentials, slow, power-stuck, 5xx/ });
  t.deepEqual([...parseFaultFlags(['node-0=slow:250', 'node-0=5xx'], ['node-0'])], [['node-0', { latencyMs: 250, serverError: true }]]);
});

test('redfish cli - a bad --systems, --port or --fault is one line naming the flag, and nothing starts', async (t) => {
  for (const [args, message] of [
    [['--systems', '0'], /^metalfleet: --systems: expected a whole number >= 1, got "0"$/],
    [['--port', '99999'], /^metalfleet: --port: expected a port from 0 to 65535, got "99999"$/],
    [['--fault', 'node-9=slow'], /^metalfleet: --fault node-9=slow: no system "node-9"/],
  ] as const) {
    const r = await metalfleet('sim', 'redfish', ...args);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr.trim(), message);
    t.is(r.stdout, '', 'no system printed');
  }
});
