// Bugs found by a hunt through the capacity broker's ledger, each pinned by the reducer driven
// directly (step(ledger, event, now)), every staged write landing at once: no actors, no bus, no
// timers, the time passed in.
import test from 'ava';
import { beginWrite, dirtyPools, ledgerTimings, newLedger, step } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import type { Ledger, LedgerEffect, LedgerEvent } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import { figuresOf } from '../../src/actors/capacity/cluster/ledger-views.ts';
import type { AcquireReply } from '../../src/actors/capacity/cluster/messages.ts';

const POOL = 'ironic:http://127.0.0.1:6385';
const TTL = 30_000;

function ledgerWith(limit: number): Ledger {
  const l = newLedger(ledgerTimings(TTL));
  step(l, { type: 'elected', epoch: 1 }, 0);
  step(l, { type: 'loaded', pool: POOL, v: { revision: null, record: { v: 1, pool: POOL, limit, epoch: 0, grants: [] } } }, 0);
  return l;
}

/** One event, then every staged write lands. */
function run(l: Ledger, event: LedgerEvent, now: number): LedgerEffect[] {
  const effects = [...step(l, event, now)];
  for (const pool of dirtyPools(l)) {
    const write = beginWrite(l, pool);
    if (write === null) continue;
    effects.push(...step(l, { type: 'written', write, v: { revision: (write.base.revision ?? 0) + 1, record: write.record } }, now));
  }
  return effects;
}

function replyOf(effects: readonly LedgerEffect[]): unknown {
  for (const e of effects) if (e.type === 'reply') return e.value;
  throw new Error(`no answer among ${JSON.stringify(effects)}`);
}

const acquire = (holder: string, node: string): LedgerEvent => ({ type: 'acquire', req: { type: 'acquire', holder, node, pool: POOL, operation: 'provisioning', exempt: false } });

test('capacity hunt - a host holding a slot granted while its pool had no limit keeps it when it asks again after a limit was set', (t) => {
  // Granted in memory (no limit), then the operator sets a limit; the host's shard moves and its
  // new owner asks again for the same holder, as it does to adopt a grant mid-operation.
  const l = ledgerWith(0);
  const first = replyOf(run(l, acquire('default/x', 'node-1'), 1)) as Extract<AcquireReply, { status: 'granted' }>;
  t.is(first.status, 'granted');
  run(l, { type: 'setLimit', pool: POOL, limit: 5 }, 2);
  const again = replyOf(run(l, acquire('default/x', 'node-2'), 3)) as AcquireReply;
  t.like(again, { status: 'granted', grantId: first.grantId, adopted: true }, 'its live grant, adopted, not a second slot');
  const f = figuresOf(l, 4).pools[0]!;
  t.is(f.inUse, 1, 'one host holds one slot');
  t.deepEqual(f.holders.map((h) => `${h.holder} ${h.grantId} ${h.node}`), [`default/x ${first.grantId} node-2`]);
});

test('capacity hunt - a host holding a slot granted without a limit is not queued behind its own slot when the new limit is full', (t) => {
  const l = ledgerWith(0);
  const first = replyOf(run(l, acquire('default/x', 'node-1'), 1)) as Extract<AcquireReply, { status: 'granted' }>;
  run(l, acquire('default/y', 'node-1'), 1);
  run(l, { type: 'setLimit', pool: POOL, limit: 1 }, 2);
  const again = replyOf(run(l, acquire('default/x', 'node-2'), 3)) as AcquireReply;
  t.like(again, { status: 'granted', grantId: first.grantId, adopted: true }, 'the slot it holds, not a place in the queue');
  const f = figuresOf(l, 4).pools[0]!;
  t.like(f, { inUse: 2, waiting: 0 });
});

const renew = (node: string, holder: string, grantId: string): LedgerEvent => ({ type: 'renew', req: { type: 'renew', node, holders: [{ holder, pool: POOL, grantId }] }, reread: new Set() });
const release = (node: string, holder: string): LedgerEvent => ({ type: 'release', req: { type: 'release', holder, pool: POOL, node }, reread: new Set([POOL]) });

test('capacity hunt - in a pool without a limit, a late renew from the old owner does not take a moved grant back, so the new owner can give it back', (t) => {
  const l = ledgerWith(0);
  const first = replyOf(run(l, acquire('default/x', 'node-1'), 1)) as Extract<AcquireReply, { status: 'granted' }>;
  // The host's shard moves to node-2, whose acquire adopts the grant; node-1's renew batch, sent
  // before it stopped the host, arrives after.
  t.like(replyOf(run(l, acquire('default/x', 'node-2'), 2)), { status: 'granted', grantId: first.grantId, adopted: true });
  t.like(replyOf(run(l, renew('node-1', 'default/x', first.grantId), 3)), { results: [{ holder: 'default/x', status: 'unknown' }] }, 'not node-1\'s any more, as for a grant in the record');
  t.like(replyOf(run(l, renew('node-2', 'default/x', first.grantId), 4)), { results: [{ status: 'renewed', grantId: first.grantId }] });
  t.like(replyOf(run(l, release('node-2', 'default/x'), 5)), { outcome: 'released' }, 'the new owner gives it back');
  t.like(figuresOf(l, 6).pools[0], { inUse: 0, holders: [] });
});

test('capacity hunt - after a failover, a grant of a pool without a limit the broker learned from a renewal goes to the node that renews it', (t) => {
  // A new broker knows in-memory grants only from their holders' renewals: the first one to speak
  // is not proof of where the host runs, so a renewal from its new owner takes it over, as before.
  const l = ledgerWith(0);
  t.like(replyOf(run(l, renew('node-1', 'default/x', 'e0-7'), 1)), { results: [{ status: 'renewed', grantId: 'e0-7' }] });
  t.like(replyOf(run(l, renew('node-2', 'default/x', 'e0-7'), 2)), { results: [{ status: 'renewed', grantId: 'e0-7' }] });
  t.like(replyOf(run(l, release('node-2', 'default/x'), 3)), { outcome: 'released' });
  t.like(figuresOf(l, 4).pools[0], { inUse: 0 });
});
