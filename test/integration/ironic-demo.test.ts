import { spawn } from 'node:child_process';
import test from 'ava';
import { freePort, startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { waitFor } from '../support/wait.ts';
import { lines, metalfleet, ROOT } from '../cli/run.ts';

test('ironic demo - metalfleet demo --ironic drives a real Ironic and exits 0', async (t) => {
  const ironic = await startIronic();
  try {
    const r = await metalfleet('demo', '--ironic', ironic.url, '--ironic-driver', 'fake-hardware', '--ironic-poll-ms', '100', '--hosts', '6', '--json', '--timeout', '90');
    t.is(r.code, 0, r.stderr);
    const summary = JSON.parse(lines(r.stdout).at(-1) ?? '{}') as { ok: boolean; hosts: number; byState: Record<string, number> };
    t.true(summary.ok);
    t.is(summary.hosts, 6);
    const nodes = (await (await fetch(`${ironic.url}/v1/nodes?fields=name,provision_state`, { headers: { 'X-OpenStack-Ironic-API-Version': '1.81' } })).json()) as { nodes: Array<{ name: string; provision_state: string }> };
    t.is(nodes.nodes.length, 6);
    t.is(nodes.nodes.filter((n) => n.provision_state === 'active').length, summary.byState['provisioned'] ?? 0);
    t.true(nodes.nodes.every((n) => n.name.startsWith('metal3~')));
  } finally {
    await ironic.stop();
  }
});

// BMO's "provisioner not ready": Ironic down at start is waited for, never an exit.
test('ironic demo - an Ironic that is down at start is waited for, and the demo finishes once it answers', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'demo', '--ironic', `http://127.0.0.1:${port}`, '--ironic-driver', 'fake-hardware', '--ironic-poll-ms', '100', '--hosts', '2', '--json', '--timeout', '100'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: IronicServer[] = [];
  t.teardown(async () => {
    child.kill('SIGKILL');
    await Promise.all(started.map((i) => i.stop()));
  });
  // Starting the CLI from source takes a while on a loaded machine.
  await waitFor(() => /Ironic is not answering yet/.test(stderr), 60_000, 'the demo saying it waits for Ironic');
  t.is(child.exitCode, null, 'the demo is still running while Ironic is down');
  started.push(await startIronic({ port }));
  t.is(await exited, 0, stderr);
  const summary = JSON.parse(lines(stdout).at(-1) ?? '{}') as { ok: boolean; hosts: number };
  t.true(summary.ok);
  t.is(summary.hosts, 2);
  t.false(stderr.includes('password'), 'no secret in what the demo printed');
});

test('ironic demo - a driver other than fake-hardware is refused', async (t) => {
  const r = await metalfleet('demo', '--ironic', 'http://127.0.0.1:9', '--ironic-driver', 'ipmi');
  t.is(r.code, 2);
  t.regex(r.stderr, /--ironic-driver: only "fake-hardware" can replace the real driver \(got "ipmi"\)/);
});
