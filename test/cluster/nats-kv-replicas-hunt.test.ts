// A bucket made earlier at R1 (by a node run without --replicas, or an older one) on a
// three-server cluster, opened by a node that asks for R3: the bucket must not stay at one
// copy silently (one server lost takes the leases and hosts with it). It is raised to the
// replicas asked, its keys kept.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { startNatsCluster } from '../support/nats-cluster.ts';
import { waitUntil } from '../support/wait.ts';

test('an R1 bucket opened asking for three replicas is raised to three, its keys kept', async (t) => {
  t.timeout(110_000);
  const nats = await startNatsCluster();
  t.teardown(() => nats.dispose());
  await nats.waitForMetaLeader();
  const nc = await connect({ servers: [...nats.urls] });
  t.teardown(() => nc.close());
  const old = await new Kvm(jetstream(nc)).create('r1-bucket', { history: 1 });
  await old.put('shard.1', new TextEncoder().encode('kept'));

  const bucket = await openNatsKv(nc, 'r1-bucket', { replicas: 3 });
  const jsm = await jetstreamManager(nc);
  t.is((await jsm.streams.info('KV_r1-bucket')).config.num_replicas, 3);
  t.is(new TextDecoder().decode((await bucket.get('shard.1'))?.value), 'kept');
  // And all three servers keep a copy.
  await waitUntil(async () => (await Promise.all([0, 1, 2].map((i) => nats.streamCopy(i, 'KV_r1-bucket')))).every((c) => c?.messages === 1), 30_000, 'three copies of KV_r1-bucket');
});
