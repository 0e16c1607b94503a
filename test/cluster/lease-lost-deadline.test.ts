import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import type { Clock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { OwnershipRecorder, startMembership, startShardLeases } from '../../src/cluster/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { KvUnavailable } from '../../src/ports/index.ts';

// A lease's lost record says when the node stopped being allowed to call (its lease's deadline),
// not only when the lease-lost timer ran: on a node starved of CPU the timer runs late, and the
// chaos audit judges calls that left in between against the deadline (issue 30).

const LATE_MS = 400;
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('lease - a lease lost by a timer that ran late is recorded with its deadline, before the record is stamped', async (t) => {
  const clock = createManualClock(0);
  // The starved node's timers all run LATE_MS after they are due.
  const starved: Clock = { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms + LATE_MS), clearTimeout: (h) => clock.clearTimeout(h) };
  const store = new MemoryKvStore(clock);
  const recorder = new OwnershipRecorder(() => clock.now());
  const leases = store.bucket('leases', { ttlMs: 3_000 });
  const cut = { down: false };
  const gated = Object.create(leases) as KvBucket;
  gated.update = (...a: Parameters<KvBucket['update']>) => (cut.down ? Promise.reject(new KvUnavailable('leases', 'test: cut off')) : leases.update(...a));
  gated.create = (...a: Parameters<KvBucket['create']>) => (cut.down ? Promise.reject(new KvUnavailable('leases', 'test: cut off')) : leases.create(...a));
  const membership = await startMembership({ bucket: store.bucket('members', { ttlMs: 5_000 }), self: 'n1', heartbeatMs: 500, deadAfterMs: 2_000, clock: starved });
  const lost: Array<{ shard: number; overdueMs: number | undefined }> = [];
  const shards = await startShardLeases({
    bucket: gated, membership, self: 'n1', shardCount: 2, leaseTtlMs: 3_000, retryMs: 100, clock: starved,
    events: recorder.wrap('n1', { acquired: () => undefined, lost: (shard, _reason, overdueMs) => void lost.push({ shard, overdueMs }), release: async () => undefined }),
  });
  const run = async (ms: number): Promise<void> => {
    for (let done = 0; done < ms; done += 50) {
      clock.advance(50);
      await flush();
    }
  };
  await run(3_000);
  t.is(shards.owned().size, 2);
  cut.down = true;
  await run(6_000);
  t.is(shards.owned().size, 0);
  t.deepEqual([...lost].sort((a, b) => a.shard - b.shard), [{ shard: 0, overdueMs: LATE_MS }, { shard: 1, overdueMs: LATE_MS }]);
  const ended = recorder.records().filter((r) => r.kind === 'lost');
  t.is(ended.length, 2);
  for (const r of ended) t.is(r.kind === 'lost' ? r.deadline : null, r.at - LATE_MS);
  await shards.stop({ graceful: false });
  await membership.leave();
});

test('lease - a lease lost on time says so: overdue 0, its deadline the record\'s own moment', (t) => {
  const recorder = new OwnershipRecorder(() => 1_000);
  const events = recorder.wrap('n1', { acquired: () => undefined, lost: () => undefined, release: async () => undefined });
  events.lost(3, 'expired', 0);
  events.lost(4, 'stopped');
  t.deepEqual(recorder.records(), [
    { kind: 'lost', node: 'n1', shard: 3, at: 1_000, deadline: 1_000 },
    { kind: 'lost', node: 'n1', shard: 4, at: 1_000 },
  ]);
});
