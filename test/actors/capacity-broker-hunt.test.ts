// Bugs found by a hunt through the capacity broker, seen through its proxies as a node sees it:
// memory bus and KV, a manual clock, hand-driven leadership (capacity-cluster-harness.ts).
import test from 'ava';
import { ask, type ActorRef } from '../../src/actors/runtime/index.ts';
import type { CapacityFigures, CapacityMsg, PoolFigures } from '../../src/actors/capacity/index.ts';
import { createManualLeadership, startClusterBroker, type ClusterBroker } from '../../src/actors/capacity/cluster/index.ts';
import type { Logger } from '../../src/ports/index.ts';
import { harness, POOL, type Harness, type Holder } from './capacity-cluster-harness.ts';

async function poolFigures(proxy: ActorRef<CapacityMsg>): Promise<PoolFigures> {
  const f = await ask<CapacityMsg, CapacityFigures>(proxy, (reply) => ({ type: 'figures', reply }), 5_000);
  const p = f.pools.find((x) => x.pool === POOL);
  if (!p) throw new Error(`no figures for ${POOL}: ${JSON.stringify(f)}`);
  return p;
}

async function acquireAll(h: Harness, holders: readonly Holder[]): Promise<void> {
  for (const x of holders) {
    x.acquire();
    await h.settle();
  }
}

const restarted: ClusterBroker[] = [];
test.after.always(() => {
  for (const b of restarted) b.stop();
});

/** The cluster restarted with another --limit / PROVISIONING_LIMIT: a broker configured so takes over. */
function restartedBroker(h: Harness, defaultLimit: number, epoch: number): Array<{ level: string; obj: object; msg: string | undefined }> {
  const logged: Array<{ level: string; obj: object; msg: string | undefined }> = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (obj, msg) => void logged.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => void logged.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => void logged.push({ level: 'error', obj, msg }),
    child: () => logger,
  };
  const leadership = createManualLeadership();
  const broker = startClusterBroker(h.system, { transport: h.bus.connect(`broker-${epoch}`), kv: h.kv, leadership, defaultLimit, ttlMs: h.ttlMs, clock: h.clock, name: `broker-${epoch}`, requestTimeoutMs: 10_000, logger });
  restarted.push(broker);
  leadership.elect(epoch);
  return logged;
}

test('capacity hunt - a limit lowered by restarting with a lower --limit takes effect: nothing is granted until the pool is under it', async (t) => {
  const h = await harness({ limit: 3 });
  t.teardown(() => h.stop());
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const proxy = h.proxy('node-1');
  await h.settle();
  const holders = ['h1', 'h2', 'h3', 'h4'].map((k) => h.holder(proxy, `default/${k}`));
  await acquireAll(h, holders);
  t.deepEqual(holders.map((x) => x.state), ['granted', 'granted', 'granted', 'queued']);

  // Every node restarts with --limit 1 (the pool records in KV outlive them).
  a.leadership.depose('restarting');
  a.broker.stop();
  const logged = restartedBroker(h, 1, 2);
  await h.settle();
  await h.advance(h.ttlMs / 3);
  t.like(logged.find((x) => x.level === 'warn'), { obj: { pool: POOL, limit: 1, was: 3, inUse: 3 } }, 'the broker says the pool is over its new limit');
  t.is((await h.record())?.limit, 1, 'the configured limit, not the one the record was first created with');
  t.deepEqual(holders.map((x) => x.state), ['granted', 'granted', 'granted', 'queued'], 'a lowered limit revokes nothing');
  t.like(await poolFigures(proxy), { limit: 1, inUse: 3, waiting: 1 });

  holders[0]!.release();
  await h.settle();
  t.is(holders[3]!.state, 'queued', 'two in use over a limit of 1: no grant');
  holders[1]!.release();
  await h.settle();
  t.is(holders[3]!.state, 'queued', 'one in use, the limit: no grant');
  holders[2]!.release();
  await h.settle();
  t.is(holders[3]!.state, 'granted', 'under the limit: the waiter is granted');
  // The harness flags every version over its limit; over a lowered one only the grants held before
  // may be (a lowered limit revokes nothing), and no version added one beside them.
  t.true(h.versions.every((r) => !r.grants.some((g) => g.holder === 'default/h4') || r.grants.length === 1), 'the waiter never held a slot beside the others');
  t.true(h.violations.length > 0 && h.violations.every((v) => /: [23] in use over limit 1$/.test(v)), h.violations.join('; '));
});

test('capacity hunt - restarting with --limit 0 makes a limited pool unlimited, as the README promises', async (t) => {
  const h = await harness({ limit: 1 });
  t.teardown(() => h.stop());
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const proxy = h.proxy('node-1');
  await h.settle();
  const holders = ['h1', 'h2'].map((k) => h.holder(proxy, `default/${k}`));
  await acquireAll(h, holders);
  t.deepEqual(holders.map((x) => x.state), ['granted', 'queued']);

  a.leadership.depose('restarting');
  a.broker.stop();
  restartedBroker(h, Number.POSITIVE_INFINITY, 2);
  await h.settle();
  await h.advance(h.ttlMs / 3);
  const late = h.holder(proxy, 'default/h3');
  await acquireAll(h, [late]);
  t.is(late.state, 'granted', 'no limit: granted at once');
  t.is(holders[1]!.state, 'granted', 'the waiter too');
  t.like(await poolFigures(proxy), { limit: Number.POSITIVE_INFINITY, waiting: 0 });
  t.deepEqual(h.violations, []);
});
