// A NATS server without JetStream (nats-server without -js), and an account on a JetStream server
// whose JetStream is not enabled: a node stops at once, and the error says which of the two it is
// and what to change, not only "cannot open or create the bucket". Never with the password.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import { freePort } from '../support/ironic.ts';
import { natsProcess } from '../support/nats-server.ts';
import { ROOT } from './run.ts';

const PASSWORD = 'nojs-Pw-71-never-print';

async function server(t: ExecutionContext, config: (dir: string) => string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-nats-nojs-'));
  const port = await freePort();
  const conf = join(dir, 'nats.conf');
  await writeFile(conf, `listen: 127.0.0.1:${port}\n${config(dir)}\n`);
  const proc = natsProcess(conf, port);
  await proc.start();
  t.teardown(async () => {
    await proc.halt('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  return `nats://127.0.0.1:${port}`;
}

// A JetStream server where the user `nojs` belongs to an account without JetStream.
const accountWithoutJetStream = (dir: string): string => [
  `jetstream { store_dir: "${join(dir, 'js')}" }`,
  'accounts {',
  '  WITH_JS: { jetstream: enabled, users: [{ user: js, password: other }] }',
  `  NO_JS: { users: [{ user: nojs, password: "${PASSWORD}" }] }`,
  '}',
].join('\n');

function node(t: ExecutionContext, url: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return startFixtureServer({ options: { latencyMs: 0, demoBehaviours: false } }).then((fixture) => {
    t.teardown(() => fixture.close());
    const args = ['bin/metalfleet.js', 'node', '--nats', url, '--allow-unsigned-commands', '--name', 'nojs', '--fixture-url', fixture.url, '--shards', '4', '--log-level', 'silent'];
    return new Promise((resolve) => {
      execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (err, _stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr });
      });
    });
  });
}

test('nats jetstream missing - a node against a server without JetStream exits saying to start it with -js', async (t) => {
  const url = await server(t, () => '');
  const run = await node(t, url, {});
  t.not(run.code, 0, run.stderr);
  t.regex(run.stderr, /the NATS server has no JetStream: start nats-server with -js \(or a jetstream block in its configuration\)/);
});

test('nats jetstream missing - a node whose account has no JetStream exits saying so, never with the password', async (t) => {
  const url = await server(t, accountWithoutJetStream);
  const run = await node(t, url, { NATS_USER: 'nojs', NATS_PASSWORD: PASSWORD });
  t.not(run.code, 0, run.stderr);
  t.regex(run.stderr, /JetStream is not enabled for this connection's NATS account: enable it for the account in the server's configuration/);
  t.false(run.stderr.includes(PASSWORD));
});

test('nats jetstream missing - `hosts` as a user of an account without JetStream says so, never with the password', async (t) => {
  const url = await server(t, accountWithoutJetStream);
  const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', 'hosts', '--nats', url], { cwd: ROOT, env: { ...process.env, NATS_USER: 'nojs', NATS_PASSWORD: PASSWORD }, timeout: 60_000 }, (err, _stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr });
    });
  });
  t.not(run.code, 0, run.stderr);
  // The membership bucket is asked about first: its answer was passed on as "JetStream said …".
  t.regex(run.stderr, /JetStream is not enabled for this connection's NATS account: enable it/);
  t.false(run.stderr.includes(PASSWORD));
});
