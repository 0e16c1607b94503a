// Issue 30, the lease side: a tenure whose fence a record refused is given up (drained, released)
// and taken again at an epoch above the refusing one, although the bucket's revisions are lower.
import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { acquireLease, decodeLeaseValue, OwnershipRecorder, startMembership, startShardLeases } from '../../src/cluster/index.ts';
import type { ShardFenceRefused, ShardReleaseWhy } from '../../src/cluster/index.ts';
import { flush, run } from '../support/manual-time.ts';

async function oneNode(shardCount = 4) {
  const clock = createManualClock(0);
  const store = new MemoryKvStore(clock);
  const recorder = new OwnershipRecorder(() => clock.now());
  const members = store.bucket('members', { ttlMs: 5_000 });
  const leaseBucket = store.bucket('leases', { ttlMs: 3_000 });
  const membership = await startMembership({ bucket: members, self: 'n1', heartbeatMs: 500, deadAfterMs: 2_000, clock, settleMs: 0 });
  const releases: Array<{ shard: number; why: ShardReleaseWhy | undefined }> = [];
  const told: ShardFenceRefused[] = [];
  const running = new Set<number>();
  const leases = await startShardLeases({
    bucket: leaseBucket, membership, self: 'n1', shardCount, leaseTtlMs: 3_000, retryMs: 100, clock,
    onFenceRefused: (r) => told.push(r),
    events: recorder.wrap('n1', {
      acquired: (shard) => void running.add(shard),
      lost: (shard) => void running.delete(shard),
      release: async (shard, why) => {
        releases.push({ shard, why });
        await flush();
        running.delete(shard);
      },
    }),
  });
  return { clock, leaseBucket, recorder, leases, releases, told, running, membership };
}

test('stale fence leases - a refused tenure is given up and retaken above the refusing epoch', async (t) => {
  const n = await oneNode();
  await run(n.clock, 500);
  const before = n.leases.owned().get(2)!;
  t.truthy(before);
  t.true(before.epoch < 100, 'a fresh bucket gives small revisions');

  n.leases.refused({ fence: before, current: 10_000, by: 'store' });
  await run(n.clock, 500);
  const after = n.leases.owned().get(2)!;
  t.is(after.epoch, 10_001, 'claimed just above the epoch that refused it');
  t.true(n.running.has(2));
  t.deepEqual(n.releases, [{ shard: 2, why: 'stale-fence' }]);
  t.is(n.told.length, 1);
  t.deepEqual(n.told[0]!.gaveUp, { epoch: before.epoch, lostTo: 10_000, by: 'store', at: n.told[0]!.gaveUp!.at });
  // The ownership log says why, and which revision the bucket gave the claimed epoch.
  const records = n.recorder.records().filter((r) => r.shard === 2);
  t.deepEqual(records.map((r) => r.kind), ['acquired', 'released', 'acquired']);
  t.like(records[1], { why: 'stale-fence' });
  t.like(records[2], { epoch: 10_001 });
  t.true((records[2] as { revision?: number }).revision! < 10_001);
  // The lease key says what it claimed, so every watcher of the bucket learns the floor.
  const entry = await n.leaseBucket.get('shard.2');
  t.is(decodeLeaseValue(entry!.value)?.minEpoch, 10_001);
  // What introspection reads.
  t.like(n.leases.fenceWatch().get(2), { epoch: 10_001, refused: 1, retakes: 1, last: { epoch: before.epoch, lostTo: 10_000, by: 'store' } });

  // The retaken tenure keeps its epoch across renewals, and a late refusal of the old one is ignored.
  n.leases.refused({ fence: before, current: 10_000, by: 'backend' });
  await run(n.clock, 3_000);
  t.is(n.leases.owned().get(2)!.epoch, 10_001);
  t.is(n.releases.length, 1);
  await n.leases.stop({ graceful: false });
  await n.membership.stop();
});

test('stale fence leases - a refusal naming another holder, or a shard not held, is not acted on', async (t) => {
  const n = await oneNode();
  await run(n.clock, 500);
  const fence = n.leases.owned().get(1)!;
  n.leases.refused({ fence: { ...fence, holder: 'n2' }, current: 10_000, by: 'store' });
  n.leases.refused({ fence: { shard: 9, epoch: 3, holder: 'n1' }, current: 10_000, by: 'store' });
  await run(n.clock, 500);
  t.is(n.leases.owned().get(1)!.epoch, fence.epoch);
  t.deepEqual(n.releases, []);
  t.deepEqual(n.told, []);
  await n.leases.stop({ graceful: false });
  await n.membership.stop();
});

test('stale fence leases - a lease claims minEpoch when the create revision is below it, and its revision otherwise', async (t) => {
  const clock = createManualClock(0);
  const bucket = new MemoryKvStore(clock).bucket('leases', { ttlMs: 3_000 });
  const base = { bucket, holder: 'n1', ttlMs: 3_000, clock, onLost: () => undefined };
  const low = (await acquireLease({ ...base, key: 'a', minEpoch: 500 }))!;
  t.is(low.epoch, 500);
  t.true(low.createRevision < 500);
  const plain = (await acquireLease({ ...base, key: 'b', minEpoch: 1 }))!;
  t.is(plain.epoch, plain.createRevision);
  // Renewals keep the claim in the value.
  await run(clock, 1_500);
  t.true(low.revision > low.createRevision, 'renewed');
  t.is(decodeLeaseValue((await bucket.get('a'))!.value)?.minEpoch, 500);
  t.is(low.epoch, 500);
  low.abandon();
  plain.abandon();
});
