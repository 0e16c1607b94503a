// Issue 30.1 at the broker's ledger: a grant an earlier incarnation of a holder left on one node is
// released by the holder's next owner on another (release, inherited), where a plain release from
// that node is refused; and an inherited release for a holder with no grant is answered from memory,
// with no KV read (most resumed hosts hold none).
import test from 'ava';
import { beginWrite, dirtyPools, ledgerTimings, newLedger, step } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import type { Ledger, LedgerEffect, LedgerEvent } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import type { PoolRecord } from '../../src/actors/capacity/cluster/index.ts';

const POOL = 'ironic:http://127.0.0.1:6385';
const TTL = 30_000;

function ledgerWith(limit: number): Ledger {
  const l = newLedger(ledgerTimings(TTL));
  step(l, { type: 'elected', epoch: 1 }, 0);
  const record: PoolRecord = { v: 1, pool: POOL, limit, epoch: 0, grants: [] };
  step(l, { type: 'loaded', pool: POOL, v: { revision: null, record } }, 0);
  return l;
}

function run(l: Ledger, event: LedgerEvent, now: number): { effects: LedgerEffect[]; record: PoolRecord } {
  const effects = [...step(l, event, now)];
  for (const pool of dirtyPools(l)) {
    const write = beginWrite(l, pool);
    if (write === null) continue;
    effects.push(...step(l, { type: 'written', write, v: { revision: (write.base.revision ?? 0) + 1, record: write.record } }, now));
  }
  return { effects, record: l.pools.get(POOL)!.durable.record };
}

const acquire = (holder: string, node: string): LedgerEvent => ({ type: 'acquire', req: { type: 'acquire', holder, node, pool: POOL, operation: 'provision', exempt: false } });
const replies = (effects: readonly LedgerEffect[]) => effects.flatMap((e) => (e.type === 'reply' ? [e.value] : []));

test('capacity inherited release - the next owner frees the grant its holder\'s old node left, and the waiter gets the slot', (t) => {
  const l = ledgerWith(1);
  run(l, acquire('ns/h1', 'node-a'), 1);
  const waiter = run(l, acquire('ns/h2', 'node-b'), 2);
  t.like(replies(waiter.effects)[0], { status: 'queued' });
  const plain = run(l, { type: 'release', req: { type: 'release', holder: 'ns/h1', pool: POOL, node: 'node-b' }, reread: new Set() }, 3);
  t.like(replies(plain.effects)[0], { outcome: 'unknown' }, 'a plain release from another node frees nothing');
  const inherited = run(l, { type: 'release', req: { type: 'release', holder: 'ns/h1', pool: POOL, inherited: true }, reread: new Set() }, 4);
  t.like(replies(inherited.effects)[0], { outcome: 'released' });
  t.deepEqual(inherited.record.grants.map((g) => g.holder), ['ns/h2']);
});

test('capacity inherited release - no grant held: answered unknown at once, without reading KV again', (t) => {
  const l = ledgerWith(1);
  const effects = step(l, { type: 'release', req: { type: 'release', holder: 'ns/none', pool: POOL, inherited: true }, reread: new Set() }, 1);
  t.deepEqual(effects.map((e) => e.type), ['reply']);
  t.like(replies(effects)[0], { outcome: 'unknown' });
});
