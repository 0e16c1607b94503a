// A lease bucket made earlier without a TTL (by an operator's `nats kv add`, or an older node):
// a holder that crashes leaves its key for ever, so no node ever takes that shard again. A node
// that asks for a TTL gets one on such a bucket: the crashed holder's key expires.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { KvConflict } from '../../src/ports/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const TTL_MS = 1_000;

test('a bucket without a TTL, opened asking for one, gets it: a crashed holder\'s key expires and the key can be taken', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const nc = await connect({ servers: server.url });
  t.teardown(() => nc.close());
  const old = await new Kvm(jetstream(nc)).create('leases-no-ttl', { history: 1 });
  // A holder wrote its lease, then crashed: nobody renews or deletes it.
  await old.create('shard.7', new TextEncoder().encode('{"holder":"crashed"}'));

  const bucket = await openNatsKv(nc, 'leases-no-ttl', { ttlMs: TTL_MS });
  t.is(bucket.ttlMs, TTL_MS);
  await waitUntil(async () => {
    try {
      await bucket.create('shard.7', new TextEncoder().encode('{"holder":"survivor"}'));
      return true;
    } catch (err) {
      if (err instanceof KvConflict) return false;
      throw err;
    }
  }, 10_000, 'the crashed holder\'s shard.7 taken by a survivor', 50);
  t.pass();
});
