// Every introspection command as a user runs it (`metalfleet ... --json`, a separate process)
// against two `metalfleet node` processes, checked against what the cluster is known to hold:
// a capacity limit of 3 with provisioning held long, so 3 hosts hold slots and the rest wait.
import { execFile } from 'node:child_process';
import test from 'ava';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { ROOT } from '../cli/run.ts';

const run = natsServerInstalled() ? test : test.skip;

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 90_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

run('introspection commands against a two-node cluster report what the cluster holds', async (t) => {
  const HOSTS = 8;
  const LIMIT = 3;
  await withCluster(t, {
    shards: 16,
    limit: LIMIT,
    // Provisioning outlasts the test: the slots stay held and the queue stays put.
    fixture: { latencyMs: { register: 5, prepare: 5, provision: 600_000 }, demoBehaviours: false },
  }, async (c) => {
    await Promise.all([c.startNode('a'), c.startNode('b')]);
    const keys = await c.applyHosts(HOSTS);
    const nats = ['--nats', c.nats.url, '--timeout', '5'];
    const json = async <T>(...args: string[]): Promise<T> => {
      const r = await cli(...args, ...nats, '--json');
      t.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    };

    // Wait until every host is either holding a slot or queued for one.
    type Capacity = { replies: Array<{ node: string; value: { pools: Array<{ pool: string; limit: number | null; inUse: unknown[]; waiting: unknown[] }> } }> };
    let pool: Capacity['replies'][number]['value']['pools'][number] | undefined;
    await waitUntil(async () => {
      const cap = await json<Capacity>('capacity');
      pool = cap.replies.flatMap((r) => r.value.pools)[0];
      return pool !== undefined && pool.inUse.length + pool.waiting.length === HOSTS;
    }, 120_000, 'every host holding or waiting for a slot', 1_000);
    t.is(pool?.limit, LIMIT);
    t.is(pool?.inUse.length, LIMIT);
    t.is(pool?.waiting.length, HOSTS - LIMIT);

    type Hosts = { replies: Array<{ node: string; value: { hosts: Array<{ key: string; state: string; shard: number }> } }>; missing: string[] };
    const hosts = await json<Hosts>('hosts');
    t.deepEqual(hosts.missing, []);
    const rows = hosts.replies.flatMap((r) => r.value.hosts);
    t.deepEqual(rows.map((h) => h.key).sort(), [...keys].sort());
    t.is(rows.filter((h) => h.state === 'provisioning').length, LIMIT);
    const provisioning = await json<Hosts>('hosts', '--state', 'provisioning');
    t.is(provisioning.replies.flatMap((r) => r.value.hosts).length, LIMIT);

    type Shards = { replies: Array<{ node: string; value: { shards: Array<{ shard: number }> } }> };
    const shards = (await json<Shards>('shards')).replies.flatMap((r) => r.value.shards.map((s) => s.shard));
    t.deepEqual([...shards].sort((x, y) => x - y), Array.from({ length: 16 }, (_, i) => i), 'both nodes together own every shard once');

    type Nodes = { replies: Array<{ node: string; value: { broker: boolean; hosts: number } }> };
    const nodes = (await json<Nodes>('nodes')).replies;
    t.deepEqual(nodes.map((n) => n.node).sort(), ['a', 'b']);
    t.is(nodes.filter((n) => n.value.broker).length, 1);
    t.is(nodes.reduce((sum, n) => sum + n.value.hosts, 0), HOSTS);

    type Actors = { replies: Array<{ node: string; value: { actors: Array<{ kind: string }> } }> };
    const actors = (await json<Actors>('actors')).replies.flatMap((r) => r.value.actors);
    t.is(actors.filter((a) => a.kind === 'host').length, HOSTS);

    const inspected = await cli('inspect', keys[0]!, ...nats, '--json');
    t.is(inspected.code, 0, inspected.stderr);
    t.regex(inspected.stdout, new RegExp(keys[0]!));
    t.notRegex(inspected.stdout, /bmc-secret/);

    const table = await cli('hosts', ...nats);
    t.is(table.code, 0);
    t.regex(table.stdout.split('\n')[0]!, /^NAME +KIND +BACKEND +STATE/);

    const unknown = await cli('inspect', 'fleet/no-such-host', ...nats);
    t.not(unknown.code, 0);
    t.regex(unknown.stderr, /no-such-host/);
  }, 240_000);
});
