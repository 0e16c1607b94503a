import test from 'ava';
import { desiredShards, ownerOf } from '../../src/cluster/index.ts';

const SHARDS = 256;
const owners = (nodes: string[]): Array<string | undefined> => Array.from({ length: SHARDS }, (_, s) => ownerOf(s, nodes));

test('rendezvous - no nodes, no owner; one node owns everything', (t) => {
  t.is(ownerOf(3, []), undefined);
  t.is(desiredShards('a', ['a'], SHARDS).size, SHARDS);
  t.is(desiredShards('z', ['a'], SHARDS).size, 0);
});

test('rendezvous - the owner does not depend on the order of the member list', (t) => {
  t.deepEqual(owners(['node-1', 'node-2', 'node-3']), owners(['node-3', 'node-1', 'node-2']));
});

test('rendezvous - 3 nodes split 256 shards within 25% of even, and desiredShards partitions them', (t) => {
  for (const nodes of [['node-1', 'node-2', 'node-3'], ['a', 'b', 'c'], ['ctrl-0', 'ctrl-1', 'ctrl-2']]) {
    const sets = nodes.map((n) => desiredShards(n, nodes, SHARDS));
    const even = SHARDS / nodes.length;
    for (const s of sets) t.true(Math.abs(s.size - even) <= even * 0.25, `${nodes.join(',')}: ${sets.map((x) => x.size).join('/')}`);
    t.is(sets.reduce((n, s) => n + s.size, 0), SHARDS);
    t.is(new Set(sets.flatMap((s) => [...s])).size, SHARDS);
  }
});

test('rendezvous - a joining node takes shards only for itself and about 1/N of them', (t) => {
  const before = owners(['node-1', 'node-2', 'node-3']);
  const after = owners(['node-1', 'node-2', 'node-3', 'node-4']);
  const moved = before.map((o, s) => [o, after[s]] as const).filter(([a, b]) => a !== b);
  t.true(moved.every(([, b]) => b === 'node-4'));
  t.true(moved.length >= SHARDS / 4 * 0.75 && moved.length <= SHARDS / 4 * 1.25, `moved ${moved.length}`);
});

test('rendezvous - a leaving node moves only its own shards', (t) => {
  const before = owners(['node-1', 'node-2', 'node-3', 'node-4']);
  const after = owners(['node-1', 'node-2', 'node-4']);
  for (let s = 0; s < SHARDS; s++) {
    if (before[s] !== 'node-3') t.is(after[s], before[s]);
    else t.not(after[s], 'node-3');
  }
});
