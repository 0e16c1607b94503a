// The broker's grant ledger on its own: the reducer step(ledger, event, now) driven directly, with
// every staged write landing at once (the broker actor's happy path). What the cluster property
// tests check through actors and a bus, here over many more histories: never more grants than the
// limit, FIFO except exempt holders, and a freed slot goes to the head waiter in the same write.
import test from 'ava';
import fc from 'fast-check';
import { assertShowingCause } from '../support/fast-check.ts';
import { beginWrite, dirtyPools, ledgerTimings, newLedger, step } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import type { Ledger, LedgerEffect, LedgerEvent } from '../../src/actors/capacity/cluster/grant-ledger.ts';
import { inUse, type PoolRecord } from '../../src/actors/capacity/cluster/index.ts';

const POOL = 'ironic:http://127.0.0.1:6385';
// Long enough that nothing lapses within a history: lapses are the cluster tests' business.
const TTL = 600_000;

/** A ledger serving epoch 1 with one pool of this limit loaded. */
function ledgerWith(limit: number): Ledger {
  const l = newLedger(ledgerTimings(TTL));
  step(l, { type: 'elected', epoch: 1 }, 0);
  const record: PoolRecord = { v: 1, pool: POOL, limit, epoch: 0, grants: [] };
  step(l, { type: 'loaded', pool: POOL, v: { revision: null, record } }, 0);
  return l;
}

/** One event, then every staged write lands: the effects of both, and the record as written. */
function run(l: Ledger, event: LedgerEvent, now: number): { effects: LedgerEffect[]; record: PoolRecord } {
  const effects = [...step(l, event, now)];
  for (const pool of dirtyPools(l)) {
    const write = beginWrite(l, pool);
    if (write === null) continue;
    effects.push(...step(l, { type: 'written', write, v: { revision: (write.base.revision ?? 0) + 1, record: write.record } }, now));
  }
  return { effects, record: l.pools.get(POOL)!.durable.record };
}

const granted = (effects: readonly LedgerEffect[]): string[] =>
  effects.flatMap((e) => (e.type === 'notify' && e.push.type === 'slotGranted' ? [e.push.holder] : []));
function replyOf(effects: readonly LedgerEffect[]): unknown {
  for (const e of effects) if (e.type === 'reply') return e.value;
  throw new Error(`no answer among ${JSON.stringify(effects)}`);
}

type Op =
  | { t: 'acquire'; h: number; exempt: boolean }
  | { t: 'release'; h: number }
  | { t: 'raise'; by: number };

const HOLDERS = 8;

test('capacity ledger - never more grants than the limit, FIFO except exempt, a freed slot goes to the head waiter in the same write', async (t) => {
  const runs = 500;
  let checked = 0;
  let handedOff = 0;
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ t: fc.constant('acquire' as const), h: fc.nat(HOLDERS - 1), exempt: fc.nat(4).map((n) => n === 0) }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('release' as const), h: fc.nat(HOLDERS - 1) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('raise' as const), by: fc.integer({ min: 1, max: 2 }) }) },
  );
  await assertShowingCause(fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(op, { minLength: 1, maxLength: 30 }), async (initial, ops) => {
    const l = ledgerWith(initial);
    let limit = initial;
    let now = 1;
    // The model: non-exempt holders in the order they queued, and who holds a counted slot.
    let queue: string[] = [];
    const counted = new Set<string>();
    const exempt = new Set<string>();
    for (const o of ops) {
      now += 1;
      const what = `${JSON.stringify(o)} at limit ${limit}, queue [${queue.join(',')}]`;
      let out: ReturnType<typeof run>;
      if (o.t === 'acquire') {
        const holder = `ns/host-${o.h}`;
        out = run(l, { type: 'acquire', req: { type: 'acquire', holder, node: `node-${o.h % 2}`, pool: POOL, operation: 'provisioning', exempt: o.exempt } }, now);
        const reply = replyOf(out.effects) as { status: string; position?: number };
        if (o.exempt && !counted.has(holder)) {
          if (reply.status !== 'granted') throw new Error(`${what}: an exempt acquire was ${reply.status}`);
          queue = queue.filter((k) => k !== holder);
          exempt.add(holder);
        } else if (reply.status === 'granted') {
          if (!counted.has(holder) && !exempt.has(holder)) {
            // A fresh acquire never passes a waiter.
            if (queue.length > 0) throw new Error(`${what}: ${holder} granted past waiters`);
            counted.add(holder);
          }
        } else {
          if (!queue.includes(holder)) queue.push(holder);
          if (reply.position !== queue.indexOf(holder) + 1) throw new Error(`${what}: ${holder} told position ${reply.position}, model ${queue.indexOf(holder) + 1}`);
        }
      } else if (o.t === 'release') {
        const holder = `ns/host-${o.h}`;
        const freed = counted.has(holder);
        out = run(l, { type: 'release', req: { type: 'release', holder, pool: POOL }, reread: new Set([POOL]) }, now);
        queue = queue.filter((k) => k !== holder);
        counted.delete(holder);
        exempt.delete(holder);
        // The hand-off: a counted slot freed beside a waiter is the head waiter's in this very write.
        if (freed && queue.length > 0) {
          if (granted(out.effects)[0] !== queue[0]) throw new Error(`${what}: the freed slot went to [${granted(out.effects).join(',')}], not ${queue[0]}`);
          handedOff++;
        }
      } else {
        limit += o.by;
        out = run(l, { type: 'setLimit', pool: POOL, limit }, now);
      }
      // FIFO: whoever the write promoted is the head of the queue, in order.
      const promoted = granted(out.effects);
      if (promoted.join(',') !== queue.slice(0, promoted.length).join(',')) throw new Error(`${what}: promoted [${promoted.join(',')}], not the oldest waiters`);
      queue = queue.slice(promoted.length);
      for (const k of promoted) counted.add(k);
      const used = inUse(out.record, now);
      if (used > limit) throw new Error(`${what}: ${used} slots in use over limit ${limit}`);
      if (used !== counted.size) throw new Error(`${what}: record counts ${used}, model ${counted.size}`);
      // Never a free slot beside a waiter.
      if (queue.length > 0 && used < limit) throw new Error(`${what}: ${queue.length} waiting beside ${limit - used} free slots`);
      if ([...l.pools.get(POOL)!.queue].map((w) => w.holder).join(',') !== queue.join(',')) throw new Error(`${what}: ledger queue differs from the model's`);
    }
    checked++;
    return true;
  }), { numRuns: runs });
  t.is(checked, runs, 'every generated history was checked to its end');
  t.true(handedOff > 0, 'some releases handed a slot to a waiter');
});

test('capacity ledger - a release it cannot find asks for the pool to be read again, once', (t) => {
  const l = ledgerWith(1);
  const req = { type: 'release', holder: 'ns/nobody', pool: POOL } as const;
  t.deepEqual(step(l, { type: 'release', req, reread: new Set() }, 1), [{ type: 'reread', pools: [POOL] }]);
  t.deepEqual(step(l, { type: 'release', req, reread: new Set([POOL]) }, 1), [{ type: 'reply', value: { epoch: 1, outcome: 'unknown' } }]);
});

test('capacity ledger - a staged grant is announced only once its write lands, and not at all if it fails', (t) => {
  const l = ledgerWith(1);
  const acquire = (holder: string): LedgerEvent => ({ type: 'acquire', req: { type: 'acquire', holder, node: 'node-1', pool: POOL, operation: 'provisioning', exempt: false } });
  run(l, acquire('ns/a'), 1);
  run(l, acquire('ns/b'), 2);
  step(l, { type: 'release', req: { type: 'release', holder: 'ns/a', pool: POOL }, reread: new Set() }, 3);
  const write = beginWrite(l, POOL)!;
  t.deepEqual(write.record.grants.map((g) => g.holder), ['ns/b'], 'the release and the hand-off are one write');
  const failed = { error: new Error('kv down'), reply: { ok: false, code: 'unavailable', message: 'kv down', retryable: true } } as never;
  t.deepEqual(step(l, { type: 'writeFailed', write, failed }, 3), []);
  t.deepEqual([...l.pools.get(POOL)!.queue].map((w) => w.holder), ['ns/b'], 'the promoted waiter queues again');
  t.deepEqual(l.pools.get(POOL)!.v.record.grants.map((g) => g.holder), ['ns/a'], 'the working record is what KV has');
});
