import test from 'ava';
import { formatOwner, parseOwner } from '../../src/adapters/kube/owner-fence.ts';

const fence = { shard: 7, epoch: 40, holder: 'node-a' };

test('owner fence - the annotation reads back as the fence it was written from', (t) => {
  t.is(formatOwner(fence), '7/40/node-a');
  t.deepEqual(parseOwner('7/40/node-a'), fence);
  t.is(parseOwner('seven/40/a'), null);
  t.is(parseOwner(undefined), null);
});
