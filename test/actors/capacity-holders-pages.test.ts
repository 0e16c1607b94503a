// Issue 30.1 (a, b): the broker's list of holders a new shard owner's sweep pages through: every
// holder by name once (a grant in any pool, a place in any queue), the acquires it has received and
// not yet served among them (served, they become grants a sweep must not miss), sorted, in pages.
import test from 'ava';
import { beginWrite, dirtyPools, ledgerTimings, newLedger, step } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import type { Ledger } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import { holdersOf } from '../../src/actors/capacity/cluster/ledger-views.ts';
import type { PoolRecord } from '../../src/actors/capacity/cluster/index.ts';

const POOL = 'fixture:default';
const OTHER = 'maas:http://maas';

function ledger(limit: number): Ledger {
  const l = newLedger(ledgerTimings(30_000));
  step(l, { type: 'elected', epoch: 1 }, 0);
  for (const pool of [POOL, OTHER]) {
    const record: PoolRecord = { v: 1, pool, limit, epoch: 0, grants: [] };
    step(l, { type: 'loaded', pool, v: { revision: null, record } }, 0);
  }
  return l;
}

function ask(l: Ledger, holder: string, pool: string): void {
  step(l, { type: 'acquire', req: { type: 'acquire', holder, node: 'n1', pool, operation: 'provision', exempt: false } }, 1);
  for (const p of dirtyPools(l)) {
    const write = beginWrite(l, p);
    if (write) step(l, { type: 'written', write, v: { revision: (write.base.revision ?? 0) + 1, record: write.record } }, 1);
  }
}

test('capacity holders - grants, queued places and acquires on their way, each name once, sorted, page by page', (t) => {
  const l = ledger(1);
  ask(l, 'ns/c', POOL);
  ask(l, 'ns/a', POOL);
  ask(l, 'ns/c', OTHER);
  ask(l, 'ns/b', OTHER);
  const all = holdersOf(l, 2, ['ns/d'], undefined);
  t.deepEqual(all, { epoch: 1, holders: ['ns/a', 'ns/b', 'ns/c', 'ns/d'], next: null });
  const first = holdersOf(l, 2, ['ns/d'], undefined, 3);
  t.deepEqual(first, { epoch: 1, holders: ['ns/a', 'ns/b', 'ns/c'], next: 'ns/c' });
  t.deepEqual(holdersOf(l, 2, ['ns/d'], first.next ?? undefined, 3), { epoch: 1, holders: ['ns/d'], next: null });
});
