// `metalfleet actors --tree` on a big cluster: two nodes of 30,000 host actors each. Building the
// tree copied a node's whole list for every actor (and a shard's children for every child), so it
// grew with the square of a node's actors: half a minute for these 60,000 on a 2-core machine, where the table without --tree came at once.
import test from 'ava';
import { actorTree } from '../../src/cli/introspect/index.ts';

interface Row { node: string; path: string; parent: string | null }

function cluster(nodes: number, hostsPerNode: number): Row[] {
  const rows: Row[] = [];
  for (let n = 0; n < nodes; n++) {
    const node = `node-${n}`;
    rows.push({ node, path: '/shard-manager', parent: null });
    for (let s = 0; s < 64; s++) rows.push({ node, path: `/shard-manager/shard-${n * 64 + s}-e1`, parent: '/shard-manager' });
    for (let i = 0; i < hostsPerNode; i++) {
      const shard = `/shard-manager/shard-${n * 64 + (i % 64)}-e1`;
      rows.push({ node, path: `${shard}/fleet~host-${n}-${i}`, parent: shard });
    }
  }
  return rows;
}

// Speed is not asserted here (targets belong to benches): after the fix this takes ~0.5 s, before it ~15 s.
test('introspect actors - the tree of 60,000 actors on two nodes holds each actor once under its parent', (t) => {
  const rows = cluster(2, 30_000);
  const tree = actorTree(rows);
  t.is(tree.length, rows.length);
  t.is(new Set(tree.map((e) => e.row)).size, rows.length, 'each actor once');
  // Depth-first under each node: the manager, then each shard followed by its hosts.
  t.deepEqual(tree.slice(0, 3).map((e) => [e.row.node, e.row.path, e.depth]), [
    ['node-0', '/shard-manager', 0],
    ['node-0', '/shard-manager/shard-0-e1', 1],
    ['node-0', '/shard-manager/shard-0-e1/fleet~host-0-0', 2],
  ]);
  t.true(tree.filter((e) => e.row.path.includes('~host-')).every((e) => e.depth === 2), 'every host actor under its shard');
  const nodesInOrder = tree.map((e) => e.row.node).filter((n, i, all) => n !== all[i - 1]);
  t.deepEqual(nodesInOrder, ['node-0', 'node-1'], 'one node after the other');
});
