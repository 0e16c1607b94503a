// `metalfleet fixture-server`: the URL line it prints, the API behind it, and a clean exit.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import test from 'ava';
import { createRemoteFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { metalfleet, ROOT } from './run.ts';

interface Running {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(...args: string[]): Running {
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'fixture-server', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    const parts = out.split('\n');
    out = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, stderr: () => err, exited };
}

// Resolves with the first stdout line, or fails when the process exits first or the deadline passes.
function firstLine(r: Running, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line after ${timeoutMs} ms: ${r.stderr()}`)), timeoutMs);
    const check = (): void => {
      if (r.lines.length > 0) {
        clearTimeout(timer);
        resolve(r.lines[0]!);
      }
    };
    r.child.stdout?.on('data', check);
    void r.exited.then(({ code }) => {
      clearTimeout(timer);
      if (r.lines.length > 0) resolve(r.lines[0]!);
      else reject(new Error(`exited ${code} before printing its URL: ${r.stderr()}`));
    });
    check();
  });
}

function started(t: { teardown(fn: () => void): void }, ...args: string[]): Running {
  const r = run(...args);
  t.teardown(() => {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  });
  return r;
}

test('fixture-server - prints its URL as one JSON line, serves the fixture API and exits 0 on SIGTERM', async (t) => {
  const r = started(t, '--port', '0', '--latency', 'provision=5,inspect=1', '--provision-passes', '2', '--pool', 'fixture:rack-2');
  const line = await firstLine(r);
  const { url } = JSON.parse(line) as { url: string };
  t.regex(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const config = await fetch(`${url}/v1/config`);
  t.is(config.status, 200);
  t.deepEqual(await config.json(), { pool: 'fixture:rack-2', exemptVirtualMedia: true });

  // The flags reach the fixture: two passes per deployment.
  const client = await createRemoteFixtureProvisioner({ url });
  const h = {
    key: 'metal3/w0', namespace: 'metal3', name: 'w0', uid: 'u0', provisionerId: '', credentials: { username: 'u', password: 'secret-pass' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://192.0.2.1', credentialsName: 'w0-bmc' }, image: { url: 'http://i/os.img' } },
  } as const;
  await client.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  await client.inspect(h, { op: 'inspect', restartOnFailure: false, refresh: false });
  await client.prepare(h, { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null } });
  const provision = { op: 'provision', image: { url: 'http://i/os.img' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;
  t.like(await client.provision(h, provision), { kind: 'continuing' });
  t.like(await client.provision(h, provision), { kind: 'done', poweredOn: true });
  t.like((await client.counters()).startTotals, { provision: 1 });
  await client.close();

  r.child.kill('SIGTERM');
  t.deepEqual(await r.exited, { code: 0, signal: null });
  t.is(r.lines.length, 1, 'nothing else on stdout');
  t.false(r.stderr().includes('secret-pass'));
});

test('fixture-server - also stops cleanly on SIGINT', async (t) => {
  const r = started(t);
  await firstLine(r);
  r.child.kill('SIGINT');
  t.deepEqual(await r.exited, { code: 0, signal: null });
});

test('fixture-server - bad flags exit 2 naming the flag', async (t) => {
  const unknownOp = await metalfleet('fixture-server', '--latency', 'reboot=5');
  t.is(unknownOp.code, 2);
  t.regex(unknownOp.stderr, /--latency: unknown operation "reboot"/);
  const badMs = await metalfleet('fixture-server', '--latency', 'provision=soon');
  t.is(badMs.code, 2);
  t.regex(badMs.stderr, /--latency provision: expected a whole number >= 0, got "soon"/);
  const badPasses = await metalfleet('fixture-server', '--provision-passes', '0');
  t.is(badPasses.code, 2);
  t.regex(badPasses.stderr, /--provision-passes: expected a whole number >= 1/);
  const badPort = await metalfleet('fixture-server', '--port', '70000');
  t.is(badPort.code, 2);
  t.regex(badPort.stderr, /--port: expected a port from 0 to 65535/);
  t.is(badPort.stdout, '');
});
