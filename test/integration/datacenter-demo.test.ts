import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { lines, metalfleet, ROOT } from '../cli/run.ts';

interface Child { readonly stdout: () => string; readonly stderr: () => string; readonly exited: Promise<number | null>; kill(signal: NodeJS.Signals): void }

// Spawned rather than test/cli/run.ts's metalfleet(): a real deploy under a loaded test run may
// outlast its 60 s exec timeout, and the signal test needs the process while it runs.
function start(args: readonly string[]): Child {
  const child = spawn(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return { stdout: () => stdout, stderr: () => stderr, exited, kill: (signal) => child.kill(signal) };
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

test('datacenter demo - demo --ironic --datacenter 3 provisions the 3 servers with real drivers and exits 0', async (t) => {
  const run = start(['demo', '--ironic', '--datacenter', '3', '--json', '--timeout', '120']);
  t.teardown(() => run.kill('SIGKILL'));
  t.is(await run.exited, 0, run.stderr());
  const summary = JSON.parse(lines(run.stdout()).at(-1) ?? '{}') as { ok: boolean; hosts: number; reached: number; byState: Record<string, number> };
  t.true(summary.ok);
  t.is(summary.hosts, 3);
  t.is(summary.reached, 3);
  t.deepEqual(summary.byState, { provisioned: 3 });
  t.regex(run.stderr(), /started a private Ironic at http:\/\/127\.0\.0\.1:\d+/);
  t.regex(run.stderr(), /started a virtual datacenter: 3 servers/);
  t.regex(run.stderr(), /nodes on the redfish driver/);
  t.is(lines(run.stdout()).length, 1, 'with --json stdout holds only the summary');
  t.false(/password/i.test(run.stdout() + run.stderr()), 'no secret in what the demo printed');
});

test('datacenter demo - SIGTERM stops the private Ironic and the datacenter before the demo exits', async (t) => {
  const run = start(['demo', '--ironic', '--datacenter', '2', '--no-maas', '--json', '--timeout', '120']);
  t.teardown(() => run.kill('SIGKILL'));
  await waitFor(() => /started a virtual datacenter/.test(run.stderr()), 60_000, 'the banner naming the datacenter');
  const ironicUrl = /private Ironic at (http:\/\/\S+)/.exec(run.stderr())?.[1] ?? '';
  const bmcUrl = /BMCs at (http:\/\/\S+?),/.exec(run.stderr())?.[1] ?? '';
  t.true(await answers(ironicUrl), 'the private Ironic answers while the demo runs');
  t.true(await answers(`${bmcUrl}/redfish/v1`), 'the BMCs answer while the demo runs');
  run.kill('SIGTERM');
  t.is(await run.exited, 143, run.stderr());
  t.false(await answers(ironicUrl), 'the private Ironic is gone');
  t.false(await answers(`${bmcUrl}/redfish/v1`), 'the BMCs are gone');
});

test('datacenter demo - --datacenter with --hosts, several Ironic URLs, a file, a driver override or 0 servers is refused', async (t) => {
  const hosts = await metalfleet('demo', '--datacenter', '2', '--hosts', '5');
  t.is(hosts.code, 2);
  t.regex(hosts.stderr, /--datacenter cannot be used with --hosts/);
  // One URL is the user's own Ironic driving the servers (test/cli/demo-datacenter-ironic); two are refused.
  const urls = await metalfleet('demo', '--datacenter', '2', '--ironic', 'http://127.0.0.1:9', 'http://127.0.0.1:10');
  t.is(urls.code, 2);
  t.regex(urls.stderr, /--datacenter cannot be used with several --ironic URLs/);
  const file = await metalfleet('demo', '--datacenter', '2', '-f', 'test/fixtures/validate/valid.yaml');
  t.is(file.code, 2);
  t.regex(file.stderr, /--datacenter cannot be used with --file \(the hosts are the datacenter's servers\)/);
  const driver = await metalfleet('demo', '--datacenter', '2', '--ironic-driver', 'fake-hardware');
  t.is(driver.code, 2);
  t.regex(driver.stderr, /--datacenter cannot be used with --ironic-driver \(the datacenter's servers have BMCs/);
  const zero = await metalfleet('demo', '--datacenter', '0');
  t.is(zero.code, 2);
  t.regex(zero.stderr, /--datacenter/);
});

test('datacenter demo - without Ironic installed, --ironic says in one line how to install it', async (t) => {
  // An empty PATH: neither ironic nor ironic-dbsync is found.
  const empty = await mkdtemp(join(tmpdir(), 'metalfleet-no-ironic-'));
  t.teardown(() => rm(empty, { recursive: true, force: true }));
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['bin/metalfleet.js', 'demo', '--ironic', '--datacenter', '2'], { cwd: ROOT, env: { ...process.env, PATH: empty }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
  t.is(r.code, 1);
  t.is(lines(r.stderr).length, 1, r.stderr);
  t.regex(r.stderr, /run `bash scripts\/ironic-install\.sh` as root/);
});
