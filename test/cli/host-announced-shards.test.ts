// `metalfleet host` on a cluster whose nodes run with --shards 16: the nodes announce their shard
// count in their membership heartbeats, and `inspect` reads it there, but `host` sent every
// command on the subject of 256 shards (the default) unless given --shards, so each was refused
// ("belongs to shard N; publish on mf.cmd.N") and the command exited 1.
import { execFile } from 'node:child_process';
import test from 'ava';
import { z } from 'zod';
import { shardOf } from '../../src/api/index.ts';
import { connectNats, fail, ok, serve, subjects } from '../../src/bus/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { ROOT, type Run } from './run.ts';

const withNats = natsServerInstalled() ? test : test.skip;

function run(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 60_000, env }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

withNats('host - without --shards, commands go to the shard count the nodes announce', async (t) => {
  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'fake-node' });
  const SHARDS = 16;
  const hosts = ['fleet/h-1', 'fleet/h-2', 'fleet/worker-7'];
  // Hosts whose shard differs between 16 and 256 shards: the test tells the two apart.
  t.true(hosts.every((h) => shardOf(h, SHARDS) !== shardOf(h, 256)));
  // As a node does: one heartbeat announcing its shard count, and commands answered only on the right shard.
  const members = await transport.kv('mf-members');
  await members.put('node.a', new TextEncoder().encode(JSON.stringify({ node: 'a', at: Date.now(), info: { shards: String(SHARDS) } })));
  const Command = z.object({ host: z.string(), type: z.string() });
  const service = serve(transport, subjects().commands, Command, async (cmd, ctx) => {
    const right = subjects().command(shardOf(cmd.host, SHARDS));
    if (ctx.subject !== right) return fail('invalid', `host ${cmd.host} belongs to shard ${shardOf(cmd.host, SHARDS)}; publish on ${right}`);
    return ok({ host: cmd.host, command: cmd.type, applied: true, state: 'provisioned', message: `${cmd.host} paused` });
  });
  const env = { ...process.env };
  delete env['METALFLEET_SHARDS'];
  delete env['NATS_URL'];
  try {
    const r = await run(['host', 'pause', ...hosts, '--nats', nats.url, '--timeout', '5'], env);
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr, '');
    t.deepEqual(r.stdout.trim().split('\n'), hosts.map((h) => `${h}: ${h} paused (state provisioned)`));

    // An explicit count that is not the cluster's loses to the one the nodes announce, as for inspect.
    const given = await run(['host', 'pause', hosts[0] ?? '', '--nats', nats.url, '--timeout', '5', '--shards', '64'], env);
    t.is(given.code, 0, given.stderr);
  } finally {
    await service.drain();
    await transport.close();
    await nats.dispose();
  }
});
