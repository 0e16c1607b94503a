// A lease bucket made earlier (an older node, another default) with a shorter TTL than a node
// asks for. nats.js's Kvm.create opens an existing bucket as it is, without an error: the node
// must still learn the TTL the server really applies, or its lease outlives the server's key and
// a second node takes the shard while the first still acts.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { systemClock } from '../../src/actors/runtime/index.ts';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { acquireLease, type LeaseLostReason } from '../../src/cluster/lease.ts';
import { KvConflict, KvUnavailable } from '../../src/ports/index.ts';
import { startNatsServer, type NatsServer } from '../support/nats-server.ts';
import { wrappedBucket } from '../support/wrapped-bucket.ts';
import { waitUntil } from '../support/wait.ts';

let server: NatsServer;
let nc: NatsConnection;
let other: NatsConnection;
test.before(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  other = await connect({ servers: server.url });
});
test.after.always(async () => {
  await nc?.close();
  await other?.close();
  await server?.dispose();
});

const SERVER_TTL_MS = 1_000;
const ASKED_TTL_MS = 4_000;

test.serial('an existing bucket with a shorter TTL is reported with the TTL the server applies', async (t) => {
  await new Kvm(jetstream(nc)).create('leases-a', { history: 1, ttl: SERVER_TTL_MS });
  const bucket = await openNatsKv(nc, 'leases-a', { ttlMs: ASKED_TTL_MS });
  t.is(bucket.ttlMs, SERVER_TTL_MS);
  // A bucket this call made has the TTL it asked for.
  t.is((await openNatsKv(nc, 'leases-fresh', { ttlMs: ASKED_TTL_MS })).ttlMs, ASKED_TTL_MS);
});

test.serial('a holder cut off from writes stops trusting its lease before the server lets another node take it', async (t) => {
  await new Kvm(jetstream(nc)).create('leases-b', { history: 1, ttl: SERVER_TTL_MS });
  const inner = await openNatsKv(nc, 'leases-b', { ttlMs: ASKED_TTL_MS });
  // Node A: its renews never reach the server (a partition of its writes).
  const cutOff = wrappedBucket(inner, {
    ttlMs: inner.ttlMs,
    update: () => Promise.reject(new KvUnavailable('leases-b', 'shard.1: cut off')),
  });
  const lost: LeaseLostReason[] = [];
  const a = await acquireLease({ bucket: cutOff, key: 'shard.1', holder: 'a', ttlMs: ASKED_TTL_MS, clock: systemClock, onLost: (reason) => lost.push(reason) });
  t.truthy(a);
  t.teardown(() => a?.abandon());
  // Node B, on its own connection, takes the key as soon as the server has dropped it.
  const b = await openNatsKv(other, 'leases-b', { ttlMs: ASKED_TTL_MS });
  let aStillTrustedIt: boolean | undefined;
  await waitUntil(async () => {
    try {
      await b.create('shard.1', new TextEncoder().encode('{"holder":"b"}'));
    } catch (err) {
      if (err instanceof KvConflict) return false;
      throw err;
    }
    aStillTrustedIt = a!.safelyHeld();
    return true;
  }, 10_000, 'node b took shard.1', 20);
  t.false(aStillTrustedIt, 'node a still counted on its lease when node b took the shard');
  t.deepEqual(lost, ['expired']);
});
