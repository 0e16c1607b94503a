// `metalfleet node` processes on a real nats-server: a node started with another --shards than the
// running cluster's refuses to start, before it heartbeats or takes any lease (it joined silently,
// and the hosts of the two shard maps were driven twice or by nobody).
import test from 'ava';
import { decodeLeaseValue } from '../../src/cluster/index.ts';
import { LEASE_BUCKET, MEMBER_BUCKET } from '../../src/node/index.ts';
import { withCluster } from '../support/cluster.ts';
import { waitUntil } from '../support/wait.ts';

const SHARDS = 64;

test.serial('a node started with another shard count refuses with both counts and the nodes named, exits non-zero and takes no lease; one of the same count joins', async (t) => {
  await withCluster(t, { shards: SHARDS }, async (c) => {
    await c.applyHosts(20);
    await Promise.all(['a', 'b'].map((n) => c.startNode(n)));
    const leases = await c.transport.kv(LEASE_BUCKET);
    const members = await c.transport.kv(MEMBER_BUCKET);
    // Every holder any lease was written by from here on, and every heartbeat key.
    const holders = new Set<string>();
    const heartbeats = new Set<string>();
    const shardHolders = new Map<string, string>();
    const unwatchLeases = await leases.watch({
      onEvent: (e) => {
        if (e.op === 'delete') {
          shardHolders.delete(e.key);
          return;
        }
        const holder = decodeLeaseValue(e.value)?.holder;
        if (holder === undefined) return;
        holders.add(holder);
        if (e.key.startsWith('shard.')) shardHolders.set(e.key, holder);
      },
    });
    const unwatchMembers = await members.watch({ key: 'node.*', onEvent: (e) => heartbeats.add(e.key) });
    await waitUntil(() => shardHolders.size === SHARDS, 30_000, `a and b hold all ${SHARDS} shards`, 50);

    const refused = await t.throwsAsync(c.startNode('c', ['--shards', '16']));
    t.regex(refused?.message ?? '', /^node c exited \(1\) before starting:/);
    t.true(
      (refused?.message ?? '').includes(`metalfleet: shard count 16 differs from the cluster's ${SHARDS} (nodes a, b); every node of a cluster must run the same --shards/METALFLEET_SHARDS`),
      refused?.message,
    );
    // Two heartbeats and a renewal round later, the cluster is as it was.
    await new Promise((resolve) => setTimeout(resolve, 3 * c.options.heartbeatMs + c.options.leaseTtlMs / 3));
    t.false(holders.has('c'), 'c took no lease (shard or broker)');
    t.false(heartbeats.has('node.c'), 'c never heartbeat, so a and b never handed it a shard');
    t.is(shardHolders.size, SHARDS);
    t.deepEqual([...new Set(shardHolders.values())].sort(), ['a', 'b']);

    // The same count joins as before and is handed its share.
    await c.startNode('d', ['--shards', String(SHARDS)]);
    await waitUntil(() => [...shardHolders.values()].includes('d'), 30_000, 'd holds a shard', 50);
    t.true(heartbeats.has('node.d'));
    t.false(holders.has('c'));
    unwatchLeases();
    unwatchMembers();
  });
});
