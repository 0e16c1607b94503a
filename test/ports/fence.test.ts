import test from 'ava';
import { FenceRefusals, judgeFence, laterFence, StaleFence } from '../../src/ports/index.ts';

const fence = { shard: 7, epoch: 40, holder: 'node-a' };

test('fence - no fence (the embedded node, a user): written without a check', (t) => {
  t.deepEqual(judgeFence({ shard: 7, epoch: 90, holder: 'node-b' }, undefined), { kind: 'write' });
  t.deepEqual(judgeFence(undefined, undefined), { kind: 'write' });
});

test('fence - no owner recorded, or an older epoch, is claimed: the write records the fence', (t) => {
  t.deepEqual(judgeFence(undefined, fence), { kind: 'claim', fence });
  t.deepEqual(judgeFence({ shard: 7, epoch: 39, holder: 'node-b' }, fence), { kind: 'claim', fence });
  // Epochs grow across shards: an older epoch of another shard is older too.
  t.deepEqual(judgeFence({ shard: 3, epoch: 12, holder: 'node-b' }, fence), { kind: 'claim', fence });
});

test('fence - the claim records the three fields only, not whatever else the caller carried', (t) => {
  const carried = { ...fence, safelyHeld: () => true };
  t.deepEqual(judgeFence(undefined, carried), { kind: 'claim', fence });
});

test('fence - the owner recorded writing again needs no new claim', (t) => {
  t.deepEqual(judgeFence({ ...fence }, fence), { kind: 'write' });
});

test('fence - the same epoch and holder under another shard number is claimed again', (t) => {
  t.deepEqual(judgeFence({ ...fence, shard: 2 }, fence), { kind: 'claim', fence });
});

test('fence - a newer epoch, or the same epoch held by another node, refuses the write', (t) => {
  t.deepEqual(judgeFence({ shard: 7, epoch: 41, holder: 'node-b' }, fence), { kind: 'stale', current: 41 });
  t.deepEqual(judgeFence({ shard: 2, epoch: 41, holder: 'node-a' }, fence), { kind: 'stale', current: 41 });
  t.deepEqual(judgeFence({ shard: 7, epoch: 40, holder: 'node-b' }, fence), { kind: 'stale', current: 40 });
});

test('fence - of two records the later epoch stands', (t) => {
  const older = { shard: 7, epoch: 10, holder: 'x' };
  t.is(laterFence(older, fence), fence);
  t.is(laterFence(fence, older), fence);
  t.is(laterFence(undefined, older), older);
  t.is(laterFence(older, undefined), older);
  t.is(laterFence(undefined, undefined), undefined);
});

test('fence - refusals are counted and told; a listener that throws changes nothing', (t) => {
  const told: number[] = [];
  const refusals = new FenceRefusals((r) => {
    told.push(r.current);
    throw new Error('metrics down');
  });
  const refusal = new StaleFence('ns/h', fence, 41);
  t.is(refusals.refused(refusal), refusal);
  t.is(refusals.seen(new Error('other')) instanceof StaleFence, false);
  t.is(refusals.total, 1);
  t.deepEqual(told, [41]);
  t.regex(refusal.message, /epoch 40 of node-a is older than epoch 41/);
});
