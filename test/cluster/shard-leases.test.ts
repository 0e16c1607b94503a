import test from 'ava';
import { relay } from '../support/tcp-relay.ts';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { createManualClock, systemClock } from '../../src/actors/runtime/index.ts';
import type { Clock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { openNatsKv } from '../../src/bus/nats-kv.ts';
import { OwnershipRecorder, desiredShards, startMembership, startShardLeases } from '../../src/cluster/index.ts';
import type { Membership, ShardLeases, ShardLostReason } from '../../src/cluster/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { KvUnavailable } from '../../src/ports/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { waitFor } from '../support/wait.ts';
import { flush, run } from '../support/manual-time.ts';

interface Node {
  readonly id: string;
  readonly membership: Membership;
  readonly leases: ShardLeases;
  /** Shards whose (pretend) actors run on this node. */
  readonly running: Set<number>;
  readonly lost: Array<{ shard: number; reason: ShardLostReason }>;
}

interface NodeSetup {
  id: string;
  members: KvBucket;
  leaseBucket: KvBucket;
  clock: Clock;
  recorder: OwnershipRecorder;
  shardCount: number;
  ttlMs: number;
  heartbeatMs: number;
  deadAfterMs: number;
  drain: () => Promise<void>;
}

async function startNode(s: NodeSetup): Promise<Node> {
  const running = new Set<number>();
  const lost: Node['lost'] = [];
  const membership = await startMembership({ bucket: s.members, self: s.id, heartbeatMs: s.heartbeatMs, deadAfterMs: s.deadAfterMs, clock: s.clock });
  const leases = await startShardLeases({
    bucket: s.leaseBucket, membership, self: s.id, shardCount: s.shardCount, leaseTtlMs: s.ttlMs, retryMs: 100, clock: s.clock,
    events: s.recorder.wrap(s.id, {
      acquired: (shard) => void running.add(shard),
      lost: (shard, reason) => {
        running.delete(shard);
        lost.push({ shard, reason });
      },
      release: async (shard) => {
        await s.drain();
        running.delete(shard);
      },
    }),
  });
  return { id: s.id, membership, leases, running, lost };
}

function owners(nodes: readonly Node[], shardCount: number): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (let s = 0; s < shardCount; s++) out.set(s, nodes.filter((n) => n.leases.owned().has(s)).map((n) => n.id));
  return out;
}

/** Every shard has exactly one owner among `nodes`, and it is the rendezvous choice. */
function disjointCover(nodes: readonly Node[], shardCount: number): boolean {
  const ids = nodes.map((n) => n.id);
  return nodes.every((n) => {
    const want = desiredShards(n.id, ids, shardCount);
    const have = n.leases.owned();
    return have.size === want.size && [...want].every((s) => have.has(s));
  });
}

// ---- unit: memory bucket and manual clock ---------------------------------------------------

function memoryCluster(shardCount = 64) {
  const clock = createManualClock(0);
  const store = new MemoryKvStore(clock);
  const recorder = new OwnershipRecorder(() => clock.now());
  const members = store.bucket('members', { ttlMs: 5_000 });
  const leaseBucket = store.bucket('leases', { ttlMs: 3_000 });
  const add = (id: string, bucket: KvBucket = leaseBucket) => startNode({
    id, members, leaseBucket: bucket, clock, recorder, shardCount, ttlMs: 3_000, heartbeatMs: 500, deadAfterMs: 2_000,
    drain: flush,
  });
  return { clock, recorder, leaseBucket, add };
}

test('shard leases - nodes starting together settle first, so no shard is taken only to be handed off', async (t) => {
  const { clock, recorder, add } = memoryCluster();
  const nodes = await Promise.all(['n1', 'n2', 'n3'].map((id) => add(id)));
  await run(clock, 300);
  t.is(recorder.records().length, 0, 'nothing acquired before the settle period');
  await run(clock, 1_000);
  t.true(disjointCover(nodes, 64));
  t.deepEqual(recorder.records().map((r) => r.kind).filter((k) => k !== 'acquired'), []);
  await run(clock, 10_000);
  t.true(disjointCover(nodes, 64));
  t.is(recorder.intervals().length, 64, 'one tenure per shard: renewals never lapsed');
  for (const n of nodes) await n.leases.stop({ graceful: false });
});

test('shard leases - the renews of shards taken together reach the bucket spread over the period, not as one burst', async (t) => {
  const { clock, recorder, leaseBucket, add } = memoryCluster();
  const node = await add('n1');
  await run(clock, 1_500);
  t.is(node.leases.owned().size, 64);
  // Renews from here on, by the 50 ms step they were written in (TTL 3 s: a renew every second).
  const writes = new Map<number, number>();
  const unwatch = await leaseBucket.watch({ key: 'shard.*', onEvent: (e) => {
    if (e.op === 'put') writes.set(clock.now(), (writes.get(clock.now()) ?? 0) + 1);
  } });
  writes.clear();
  await run(clock, 3_000);
  unwatch();
  const total = [...writes.values()].reduce((a, b) => a + b, 0);
  // Each shard renews about every second: three rounds of 64, give or take the round at the edges.
  t.true(total >= 2 * 64 && total <= 4 * 64, `${total} renews in 3 s`);
  // All 64 taken in one turn: without a spread every round is one burst of 64 in a single step.
  const burst = Math.max(...writes.values());
  t.true(burst <= 16, `at most 16 renews in one 50 ms step, saw ${burst}`);
  t.deepEqual(node.lost, []);
  t.is(recorder.intervals().length, 64, 'one tenure per shard: the early first renews lapsed nothing');
  await node.leases.stop({ graceful: false });
});

test('shard leases - a joining node gets its shards by graceful handoff, released before taken', async (t) => {
  const { clock, recorder, add } = memoryCluster();
  const nodes = await Promise.all(['n1', 'n2', 'n3'].map((id) => add(id)));
  await run(clock, 1_500);
  t.true(disjointCover(nodes, 64));
  nodes.push(await add('n4'));
  await run(clock, 1_500);
  t.true(disjointCover(nodes, 64));
  t.deepEqual(recorder.overlaps(), []);
  const released = recorder.records().filter((r) => r.kind === 'released');
  t.is(released.length, nodes[3]!.leases.owned().size);
  t.deepEqual(nodes.flatMap((n) => n.lost), []);
  for (const n of nodes) await n.leases.stop({ graceful: false });
});

test('shard leases - a node cut off from the bucket fences every shard before anyone takes it', async (t) => {
  const { clock, recorder, leaseBucket, add } = memoryCluster();
  const cut = { down: false };
  const gated = Object.create(leaseBucket) as KvBucket;
  for (const op of ['create', 'update', 'delete'] as const) {
    const orig = leaseBucket[op].bind(leaseBucket) as (...a: unknown[]) => Promise<unknown>;
    (gated as unknown as Record<string, unknown>)[op] = async (...a: unknown[]) => {
      if (cut.down) throw new KvUnavailable('leases', 'test: cut off');
      return orig(...a);
    };
  }
  const nodes = [await add('n1'), await add('n2'), await add('n3', gated)];
  await run(clock, 1_500);
  t.true(disjointCover(nodes, 64));
  const had = nodes[2]!.leases.owned().size;
  cut.down = true;
  await run(clock, 6_000);
  t.is(nodes[2]!.leases.owned().size, 0);
  t.is(nodes[2]!.lost.length, had);
  t.true(nodes[2]!.lost.every((l) => l.reason === 'expired'));
  // Membership still sees n3 (only its lease writes fail), so n1 and n2 do not want its shards;
  // a graceful stop of n3 hands nothing over, and the survivors take them once n3 leaves.
  await nodes[2]!.membership.leave();
  await run(clock, 1_000);
  t.true(disjointCover(nodes.slice(0, 2), 64));
  t.deepEqual(recorder.overlaps(), []);
  for (const n of nodes) await n.leases.stop({ graceful: false });
});

test('shard leases - a graceful stop releases every shard and they are taken at once', async (t) => {
  const { clock, recorder, add } = memoryCluster();
  const nodes = await Promise.all(['n1', 'n2'].map((id) => add(id)));
  await run(clock, 1_500);
  const before = nodes[1]!.leases.owned().size;
  await nodes[1]!.leases.stop({ graceful: true });
  await nodes[1]!.membership.leave();
  t.is(nodes[1]!.leases.owned().size, 0);
  t.is(nodes[1]!.running.size, 0);
  t.is(recorder.records().filter((r) => r.node === 'n2' && r.kind === 'released').length, before);
  // Well inside the lease TTL: the keys were deleted, not left to expire.
  await run(clock, 300);
  t.is(nodes[0]!.leases.owned().size, 64);
  t.deepEqual(recorder.overlaps(), []);
  await nodes[0]!.leases.stop({ graceful: false });
});

test('shard leases - the recorder finds two owners of one shard at one instant', (t) => {
  const r = new OwnershipRecorder();
  r.record({ kind: 'acquired', node: 'a', shard: 1, epoch: 1, at: 0 });
  r.record({ kind: 'released', node: 'a', shard: 1, at: 10 });
  r.record({ kind: 'acquired', node: 'b', shard: 1, epoch: 2, at: 10 });
  t.deepEqual(r.overlaps(), []);
  r.record({ kind: 'acquired', node: 'c', shard: 1, epoch: 3, at: 30 });
  t.deepEqual(r.overlaps().map((o) => [o.a.node, o.b.node]), [['b', 'c']]);
});

// ---- integration: a real nats-server, one NATS connection per node -------------------------

const TTL = 2_000;
const SHARDS = 64;
const nats = natsServerInstalled() ? test.serial : test.skip;

interface NatsNode extends Node {
  readonly nc: NatsConnection;
}

async function natsCluster(t: { teardown(fn: () => Promise<void>): void }) {
  const server = await startNatsServer();
  const recorder = new OwnershipRecorder();
  const all: NatsNode[] = [];
  t.teardown(async () => {
    for (const n of all) {
      await n.leases.stop({ graceful: false });
      await n.membership.stop();
      if (!n.nc.isClosed()) await n.nc.close();
    }
    await server.dispose();
  });
  const add = async (id: string, servers = server.url): Promise<NatsNode> => {
    const nc = await connect({ servers, name: id });
    const node = await startNode({
      id, clock: systemClock, recorder, shardCount: SHARDS, ttlMs: TTL, heartbeatMs: 250, deadAfterMs: 1_000,
      members: await openNatsKv(nc, 'members', { ttlMs: 5_000 }),
      leaseBucket: await openNatsKv(nc, 'leases', { ttlMs: TTL }),
      drain: () => new Promise((resolve) => setTimeout(resolve, 20)),
    });
    const n = { ...node, nc };
    all.push(n);
    return n;
  };
  return { server, recorder, add };
}

nats('shard leases on NATS - 3 nodes cover 64 shards; a 4th joins and leaves by graceful handoff, never two owners', async (t) => {
  const { recorder, add } = await natsCluster(t);
  const nodes = await Promise.all(['n1', 'n2', 'n3'].map((id) => add(id)));
  await waitFor(() => disjointCover(nodes, SHARDS), 10_000, '3 nodes cover all shards');
  t.true([...owners(nodes, SHARDS).values()].every((o) => o.length === 1));

  const n4 = await add('n4');
  const four = [...nodes, n4];
  await waitFor(() => disjointCover(four, SHARDS), 10_000, '4 nodes cover all shards');
  t.true(n4.leases.owned().size > 0);
  t.deepEqual(recorder.overlaps(), []);
  t.deepEqual(four.flatMap((n) => n.lost), []);

  // SIGTERM path: release everything, leave; the others take the shards at once.
  const t0 = Date.now();
  await n4.leases.stop({ graceful: true });
  await n4.membership.leave();
  await waitFor(() => disjointCover(nodes, SHARDS), 10_000, 'shards back with 3 nodes');
  t.log(`graceful leave: shards re-owned ${Date.now() - t0} ms after stop() began`);
  t.deepEqual(recorder.overlaps(), []);
  t.deepEqual(four.flatMap((n) => n.lost), []);
});

nats('shard leases on NATS - after a non-graceful stop the survivors own every shard within TTL + 1 s', async (t) => {
  const { recorder, add } = await natsCluster(t);
  const nodes = await Promise.all(['n1', 'n2', 'n3'].map((id) => add(id)));
  await waitFor(() => disjointCover(nodes, SHARDS), 10_000, '3 nodes cover all shards');
  const victim = nodes[2]!;
  t.true(victim.leases.owned().size > 0);
  const t0 = Date.now();
  await victim.leases.stop({ graceful: false });
  await victim.membership.stop();
  await victim.nc.close();
  const survivors = nodes.slice(0, 2);
  await waitFor(() => disjointCover(survivors, SHARDS), TTL + 5_000, 'survivors cover all shards');
  const took = Date.now() - t0;
  t.log(`takeover after a non-graceful stop: ${took} ms (lease TTL ${TTL} ms)`);
  t.true(took <= TTL + 1_000, `took ${took} ms`);
  t.deepEqual(recorder.overlaps(), []);
});

nats('shard leases on NATS - a partitioned node fences itself before its leases expire; never two owners', async (t) => {
  const { server, recorder, add } = await natsCluster(t);
  const proxy = await relay(server.port);
  t.teardown(() => proxy.close());
  const nodes = [await add('n1'), await add('n2'), await add('n3', proxy.url)];
  await waitFor(() => disjointCover(nodes, SHARDS), 10_000, '3 nodes cover all shards');
  const cut = nodes[2]!;
  const had = cut.leases.owned().size;
  const t0 = Date.now();
  proxy.blackhole();
  await waitFor(() => cut.running.size === 0, TTL + 1_000, 'the cut-off node fenced itself');
  const fenced = Date.now() - t0;
  t.is(cut.lost.length, had);
  t.true(cut.lost.every((l) => l.reason === 'expired'));
  const survivors = nodes.slice(0, 2);
  await waitFor(() => disjointCover(survivors, SHARDS), TTL + 5_000, 'survivors cover all shards');
  t.log(`partition: fenced after ${fenced} ms, survivors own all after ${Date.now() - t0} ms`);
  t.false(cut.membership.healthy);
  t.deepEqual(recorder.overlaps(), []);
  // Its leases lapse on its side too: it never regains a shard while cut off.
  t.is(cut.leases.owned().size, 0);
  proxy.close();
});
