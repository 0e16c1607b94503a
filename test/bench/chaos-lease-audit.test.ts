import test from 'ava';
import { auditLeases } from '../../bench/chaos-analysis.ts';
import type { FixtureCallRecord } from '../../src/adapters/fixture/index.ts';
import type { OwnershipRecord } from '../../src/cluster/index.ts';

// Node a held shard 3 at epoch 40 until its lease was lost at 1000; b took it at 1600 (epoch 41).
const records: OwnershipRecord[] = [
  { kind: 'acquired', node: 'a', shard: 3, epoch: 40, at: 0 },
  { kind: 'lost', node: 'a', shard: 3, at: 1_000 },
  { kind: 'acquired', node: 'b', shard: 3, epoch: 41, at: 1_600 },
];
const call = (o: Partial<FixtureCallRecord> & Pick<FixtureCallRecord, 'at' | 'sentAt'>): FixtureCallRecord => ({
  host: 'fleet/h1', op: 'register', shard: 3, epoch: 40, holder: 'a', refused: false, ...o,
});

test('chaos audit - a call judged by when it left: sent in its tenure, arrived after the next owner took the shard, is a late arrival, not a call after lease loss', (t) => {
  // Left at 900 (lease held), stamped by the busy bench process at 1700: after b's acquisition.
  const audit = auditLeases([call({ sentAt: 900, at: 1_700 })], records);
  t.deepEqual(audit.stale, []);
  t.deepEqual(audit.lateArrivals, { accepted: 1, refused: 0, maxTransitMs: 800 });
  t.is(audit.judgedByArrival, 0);
});

test('chaos audit - a call that left after its own tenure ended, or after another tenure began, is counted', (t) => {
  const ended = call({ sentAt: 1_200, at: 1_210 });
  const superseded = call({ sentAt: 1_650, at: 1_660, refused: true });
  const audit = auditLeases([ended, superseded], records);
  t.deepEqual(audit.stale.map((s) => [s.call, s.why, s.by, s.lateMs]), [[ended, 'ended', null, 200], [superseded, 'superseded', 'b', 50]]);
  t.deepEqual(audit.lateArrivals, { accepted: 0, refused: 0, maxTransitMs: 10 });
});

test('chaos audit - a call that did not say when it left is judged by its arrival, and said to be', (t) => {
  const audit = auditLeases([call({ sentAt: null, at: 1_700 })], records);
  t.is(audit.stale.length, 1);
  t.is(audit.stale[0]!.why, 'superseded');
  t.is(audit.judgedByArrival, 1);
});

test('chaos audit - a lost tenure ends at its lease\'s deadline: a call that left after it, before the late lost record, is counted', (t) => {
  // a's lease ran out at 700; starved, its lease-lost timer ran (and the record was stamped) at 1000.
  const starved: OwnershipRecord[] = [
    { kind: 'acquired', node: 'a', shard: 3, epoch: 40, at: 0 },
    { kind: 'lost', node: 'a', shard: 3, at: 1_000, deadline: 700 },
    { kind: 'acquired', node: 'b', shard: 3, epoch: 41, at: 1_600 },
  ];
  const inTime = call({ sentAt: 650, at: 660 });
  const afterDeadline = call({ sentAt: 800, at: 810 });
  const audit = auditLeases([inTime, afterDeadline], starved);
  t.deepEqual(audit.stale.map((s) => [s.call, s.why, s.by, s.lateMs]), [[afterDeadline, 'ended', null, 100]]);
  // A record without a deadline (an older node) still ends at its stamp.
  t.deepEqual(auditLeases([afterDeadline], records).stale, []);
});
