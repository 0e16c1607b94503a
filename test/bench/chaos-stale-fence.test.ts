import test from 'ava';
import { staleFenceRetakes } from '../../bench/chaos-analysis.ts';
import type { OwnershipRecord } from '../../src/cluster/index.ts';

test('chaos analysis - give-ups for a stale fence are counted with the epoch retaken above', (t) => {
  const records: OwnershipRecord[] = [
    { kind: 'acquired', node: 'a', shard: 3, epoch: 40, at: 1 },
    { kind: 'released', node: 'a', shard: 3, at: 2, why: 'stale-fence' },
    { kind: 'acquired', node: 'a', shard: 3, epoch: 58, revision: 44, at: 3 },
    // A plain handoff is not one, nor is a lost lease.
    { kind: 'acquired', node: 'b', shard: 4, epoch: 41, at: 1 },
    { kind: 'released', node: 'b', shard: 4, at: 5 },
    { kind: 'acquired', node: 'b', shard: 5, epoch: 42, at: 1 },
    { kind: 'lost', node: 'b', shard: 5, at: 6 },
    // Given up at the end of the run, not yet retaken.
    { kind: 'acquired', node: 'c', shard: 6, epoch: 50, at: 1 },
    { kind: 'released', node: 'c', shard: 6, at: 9, why: 'stale-fence' },
  ];
  const r = staleFenceRetakes(records);
  t.is(r.gaveUp, 2);
  t.is(r.retaken, 1);
  t.deepEqual(r.epochs, [{ node: 'a', shard: 3, from: 40, to: 58 }, { node: 'c', shard: 6, from: 50, to: null }]);
});
