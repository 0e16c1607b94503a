// SIGTERM to a node that is still starting (its health port answers, it waits for the capacity
// broker or takes its shards): the node finishes starting, hands off what it took and exits 0, as
// a started one does. The signal handlers were installed only once start-up was over, so such a
// node died of the signal (no exit code), leaving what it held to expire.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import test from 'ava';
import { startCluster } from '../support/cluster.ts';
import { freePort } from '../support/ironic.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { ROOT } from './run.ts';

const withNats = natsServerInstalled() ? test : test.skip;

const answers = (url: string): Promise<boolean> => fetch(url).then((r) => r.ok, () => false);

withNats('node stop while starting - SIGTERM before the node has started ends it with exit 0 and its health port closed', async (t) => {
  const cluster = await startCluster({ shards: 8, leaseTtlMs: 8_000 });
  t.teardown(() => cluster.dispose());
  // Node a holds the broker lease and is paused: b, starting, waits for a broker to answer.
  const a = await cluster.startNode('a');
  t.true(a.brokerAtStart);
  a.child.kill('SIGSTOP');
  t.teardown(() => {
    a.child.kill('SIGCONT');
  });
  const port = await freePort();
  const b = spawn(process.execPath, [
    'bin/metalfleet.js', 'node', '--nats', cluster.natsUrls.join(','), '--name', 'b', '--allow-unsigned-commands',
    '--fixture-url', cluster.fixture.url, '--secrets', join(cluster.dir, 'secrets.yaml'), '--shards', '8',
    '--lease-ttl', '8000', '--heartbeat', '250', '--health-port', String(port), '--log-level', 'info',
  ], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  b.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  b.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => b.once('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => {
    b.kill('SIGKILL');
  });
  const healthz = `http://127.0.0.1:${port}/healthz`;
  await waitUntil(() => answers(healthz), 30_000, 'b serves /healthz');
  t.is(stdout, '', 'b had not started yet: its start line is printed once it has');
  b.kill('SIGTERM');
  const end = await exited;
  t.deepEqual(end, { code: 0, signal: null }, stderr.slice(-2000));
  t.regex(stderr, /"msg":"node stopped"/);
  t.false(await answers(healthz), 'the health port is closed');
});
