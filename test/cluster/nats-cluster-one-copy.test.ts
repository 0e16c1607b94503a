// A node told --replicas 1 on a clustered NATS keeps each bucket on one server: that server lost
// with its store takes the shard leases, hosts and grants with it, and a node connected to another
// server may never notice. It said nothing; now it warns at start, naming the cluster and the fix.
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { replicasWarning } from '../../src/node/index.ts';
import { withCluster } from '../support/cluster.ts';
import { NATS_TEST_CLUSTER } from '../support/nats-cluster.ts';
import { startNatsServer } from '../support/nats-server.ts';

const ONE_COPY = /NATS is clustered \(cluster "([^"]+)", 3 servers known\) but the KV buckets keep one copy of each key \(--replicas 1\).*run every node with --replicas 3/;

// The node's log: one JSON object a line (pino); a line cut by the stderr buffer is skipped.
function logLines(stderr: string): Array<Record<string, unknown>> {
  return stderr.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

test('replicas warning - only a clustered server with one copy a key is warned of', (t) => {
  t.is(replicasWarning(null, 1), null, 'a lone server has nothing to replicate to');
  t.is(replicasWarning({ name: 'nats', servers: 3 }, 3), null);
  t.regex(replicasWarning({ name: 'nats', servers: 3 }, 1) ?? '', ONE_COPY);
  // A cluster whose servers do not advertise their URLs is still a cluster.
  t.regex(replicasWarning({ name: 'nats', servers: 0 }, 1) ?? '', /^NATS is clustered \(cluster "nats"\) but/);
});

test('replicas warning - a lone nats-server is no cluster to the transport', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const transport = await connectNats({ servers: server.url, name: 'lone' });
  t.teardown(() => transport.close());
  t.is(transport.serverCluster, null);
});

test('replicas warning - a node on a three-server cluster warns with --replicas 1, not with --replicas 3', async (t) => {
  await withCluster(t, { nats: 'cluster' }, async (c) => {
    t.deepEqual(c.transport.serverCluster, { name: NATS_TEST_CLUSTER, servers: 3 });
    // startCluster gives every node --replicas 3; the later flag wins.
    // Read as each starts: the warning comes before the node's ready line, and stderr() keeps only the newest chunks.
    const one = (await c.startNode('one', ['--replicas', '1'])).stderr();
    const three = (await c.startNode('three')).stderr();
    const warned = (stderr: string) => logLines(stderr).filter((l) => ONE_COPY.test(String(l['msg'])));
    const [logged, ...again] = warned(one);
    t.truthy(logged, one.slice(0, 2_000));
    t.is(again.length, 0, 'said once');
    t.like(logged, { level: 40, replicas: 1, natsCluster: NATS_TEST_CLUSTER });
    t.is(ONE_COPY.exec(String(logged?.['msg']))?.[1], NATS_TEST_CLUSTER);
    t.deepEqual(warned(three), [], 'a node at R3 is not warned');
  }, 120_000);
});
