// A bucket at one replica on a three-server cluster lives on one server. When that server loses
// its store, the cluster makes the stream again from its assignment: same creation time, empty.
// A node connected to another server never reconnects, so neither the reconnect check nor the
// creation time tells it; its watches wait past revisions the new stream will not reach for a
// long time, and it serves a stale view with no error. It now looks on a period and finds the
// stream's last sequence below what it already read. A bucket at R3 losing a copy is no such loss.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connectNats } from '../../src/bus/index.ts';
import type { BusStatus } from '../../src/ports/index.ts';
import { startNatsCluster } from '../support/nats-cluster.ts';
import { waitUntil } from '../support/wait.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

test('a connection on another server finds an R1 bucket emptied by its server\'s lost store; one on an R3 bucket is left well', async (t) => {
  t.timeout(120_000);
  const nats = await startNatsCluster();
  t.teardown(() => nats.dispose());
  await nats.waitForMetaLeader();
  const admin = await connect({ servers: [...nats.urls] });
  t.teardown(() => admin.close());
  const kvm = new Kvm(jetstream(admin));
  await kvm.create('r1-lost', { history: 1 });
  await kvm.create('r3-kept', { history: 1, replicas: 3 });
  const jsm = await jetstreamManager(admin);
  const keeper = (await jsm.streams.info('KV_r1-lost')).cluster?.leader;
  const lost = nats.servers.findIndex((s) => s.name === keeper);
  t.true(lost >= 0, `the R1 stream is on a server of the cluster (${keeper})`);
  const other = nats.servers.find((_, i) => i !== lost)!;

  // Connected to a server that keeps neither copy of the R1 bucket, checking every 250 ms.
  const pinned = await connectNats({ servers: other.url, name: 'pinned', kvStreamCheckMs: 250 });
  t.teardown(() => pinned.close());
  const statuses: BusStatus[] = [];
  pinned.onStatus((s) => statuses.push(s));
  const r1 = await pinned.kv('r1-lost');
  for (const k of ['a', 'b', 'c']) await r1.put(k, bytes(k));
  const r3Only = await connectNats({ servers: other.url, name: 'r3-only', kvStreamCheckMs: 250 });
  t.teardown(() => r3Only.close());
  const r3 = await r3Only.kv('r3-kept', { replicas: 3 });
  for (const k of ['a', 'b', 'c', 'd']) await r3.put(k, bytes(k));
  t.is(await pinned.checkKv?.(), null, 'all well before the loss');

  await nats.wipeAndRestart(lost);
  await waitUntil(() => pinned.kvReplaced?.() != null, 30_000, 'the pinned connection finds the emptied stream', 100);
  t.regex(pinned.kvReplaced?.() ?? '', /^the stream of KV bucket r1-lost holds messages up to sequence 0 only, where this node already read revision 3: its NATS server lost its store.*restart the node/);
  t.false(statuses.includes('disconnected'), `found without a reconnect: ${statuses.join(', ')}`);

  // The R3 bucket kept its messages on the other two servers: once the stream answers again, no loss.
  await waitUntil(async () => (await jsm.streams.info('KV_r3-kept').then((i) => i.state.last_seq, () => -1)) === 4, 30_000, 'the R3 stream answers with its four messages', 100);
  t.is(await r3Only.checkKv?.(), null);
  t.is(r3Only.kvReplaced?.(), null);
});
