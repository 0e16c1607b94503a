import test from 'ava';
import { formatOwner, judgeFence, parseOwner } from '../../src/adapters/kube/owner-fence.ts';

const fence = { shard: 7, epoch: 40, holder: 'node-a' };

test('owner fence - the annotation reads back as the fence it was written from', (t) => {
  t.is(formatOwner(fence), '7/40/node-a');
  t.deepEqual(parseOwner('7/40/node-a'), fence);
  t.is(parseOwner('seven/40/a'), null);
  t.is(parseOwner(undefined), null);
});

test('owner fence - no fence (embedded node): write without claiming', (t) => {
  t.deepEqual(judgeFence(undefined, '7/90/node-b'), { kind: 'write' });
});

test('owner fence - no owner, or an older epoch, is claimed first', (t) => {
  t.deepEqual(judgeFence(fence, undefined), { kind: 'claim', owner: '7/40/node-a' });
  t.deepEqual(judgeFence(fence, '7/39/node-b'), { kind: 'claim', owner: '7/40/node-a' });
  t.deepEqual(judgeFence(fence, 'garbage'), { kind: 'claim', owner: '7/40/node-a' });
});

test('owner fence - our own claim lets the write through', (t) => {
  t.deepEqual(judgeFence(fence, '7/40/node-a'), { kind: 'write' });
});

test('owner fence - a newer epoch, or the same epoch held by another node, refuses the write', (t) => {
  t.deepEqual(judgeFence(fence, '7/41/node-b'), { kind: 'stale', current: 41 });
  t.deepEqual(judgeFence(fence, '7/40/node-b'), { kind: 'stale', current: 40 });
});
