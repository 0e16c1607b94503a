// The broker holds a release that hands no slot over for one shared write (turn-pacer.ts); its
// figures are answered at once from the ledger. A fleet that is done must not show its last
// holders still in use meanwhile: the figures count a release the broker has as given back.
import test from 'ava';
import { beginWrite, dirtyPools, ledgerTimings, newLedger, step } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import type { Ledger, LedgerEvent } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import { figuresOf } from '../../src/actors/capacity/cluster/ledger-views.ts';
import type { PoolRecord } from '../../src/actors/capacity/cluster/index.ts';

const POOL = 'fixture:default';
const OTHER = 'maas:http://maas';

function ledger(): Ledger {
  const l = newLedger(ledgerTimings(30_000));
  step(l, { type: 'elected', epoch: 1 }, 0);
  for (const pool of [POOL, OTHER]) {
    const record: PoolRecord = { v: 1, pool, limit: 10, epoch: 0, grants: [] };
    step(l, { type: 'loaded', pool, v: { revision: null, record } }, 0);
  }
  return l;
}

function granted(l: Ledger, holder: string, pool: string, exempt = false): void {
  const event: LedgerEvent = { type: 'acquire', req: { type: 'acquire', holder, node: 'n1', pool, operation: 'provision', exempt } };
  step(l, event, 1);
  for (const p of dirtyPools(l)) {
    const write = beginWrite(l, p);
    if (write) step(l, { type: 'written', write, v: { revision: (write.base.revision ?? 0) + 1, record: write.record } }, 1);
  }
}

test('capacity figures - a release the broker holds is counted as given back, in its pool only', (t) => {
  const l = ledger();
  granted(l, 'ns/a', POOL);
  granted(l, 'ns/b', POOL);
  granted(l, 'ns/a', OTHER);
  const before = figuresOf(l, 2);
  t.deepEqual(before.pools.map((p) => [p.pool, p.inUse]), [[POOL, 2], [OTHER, 1]]);
  const held = figuresOf(l, 2, [{ holder: 'ns/a', pool: POOL }]);
  t.deepEqual(held.pools.map((p) => [p.pool, p.inUse, p.holders.map((h) => h.holder)]), [[POOL, 1, ['ns/b']], [OTHER, 1, ['ns/a']]]);
});

test('capacity figures - a pool-less release (a deleted holder) is given back in every pool; an exempt grant leaves inUse alone', (t) => {
  const l = ledger();
  granted(l, 'ns/a', POOL);
  granted(l, 'ns/x', POOL, true);
  granted(l, 'ns/a', OTHER);
  const f = figuresOf(l, 2, [{ holder: 'ns/a' }, { holder: 'ns/x', pool: POOL }]);
  t.deepEqual(f.pools.map((p) => [p.pool, p.inUse, p.exempt, p.holders.length]), [[POOL, 0, 0, 0], [OTHER, 0, 0, 0]]);
});
