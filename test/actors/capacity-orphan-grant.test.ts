// Issue 30.1 (a): an acquire still on its way when its asker stops (the host's shard moved, its
// actor restarted, the node shuts down) was granted after the asker was gone. The proxy kept that
// grant "for the next owner to adopt", but a slot newly given covers no work: nobody held it, it
// idled until its TTL, and for a host deleted before any node took its shard, nobody ever adopted
// it. A grant the asker adopted (live from before, perhaps covering work still running) is kept.
import test from 'ava';
import { isLive } from '../../src/actors/capacity/cluster/index.ts';
import { keyOf, newProxyLedger, proxyStep } from '../../src/actors/capacity/cluster/proxy-ledger.ts';
import type { ProxyEffect } from '../../src/actors/capacity/cluster/proxy-ledger.ts';
import { stop, type AnyActorRef } from '../../src/actors/runtime/index.ts';
import { harness, POOL } from './capacity-cluster-harness.ts';

const HOLDER = 'ns/host-1';
const KEY = keyOf(HOLDER, POOL);
const timings = { ttlMs: 1_000, renewEveryMs: 166, lossMarginMs: 100 };
const granted = (adopted?: boolean) => ({ epoch: 1, status: 'granted' as const, grantId: 'e1-1', waitedMs: 0, validForMs: 1_000, ...(adopted === undefined ? {} : { adopted }) });

function askThenAbandon(): { l: ReturnType<typeof newProxyLedger>; gen: number } {
  const l = newProxyLedger(timings);
  const sent = proxyStep(l, { type: 'acquire', holder: HOLDER, pool: POOL, operation: 'provisioning', exempt: false, notify: () => {} }, 0)[0] as Extract<ProxyEffect, { type: 'sendAcquire' }>;
  proxyStep(l, { type: 'abandon', holder: HOLDER, pool: POOL }, 1);
  return { l, gen: sent.gen };
}

test('capacity orphan grant - a slot newly granted after its asker stopped goes back at once', (t) => {
  const { l, gen } = askThenAbandon();
  const late = proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen, sentAt: 0, reply: granted(false) }, 5);
  t.deepEqual(late, [{ type: 'sendRelease', key: KEY, holder: HOLDER, pool: POOL }]);
  t.false(l.abandoned.has(KEY), 'no longer kept for anybody');
  t.is(l.counts.orphans, 1);
});

test('capacity orphan grant - a grant the stopped asker adopted is kept for the host\'s next owner', (t) => {
  const { l, gen } = askThenAbandon();
  t.deepEqual(proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen, sentAt: 0, reply: granted(true) }, 5), []);
  t.true(l.abandoned.has(KEY));
});

test('capacity orphan grant - a broker that does not say whether it adopted (an older one): the grant is kept, as before', (t) => {
  const { l, gen } = askThenAbandon();
  t.deepEqual(proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen, sentAt: 0, reply: granted() }, 5), []);
  t.true(l.abandoned.has(KEY));
});

test('capacity orphan grant - through broker and proxy: the late grant of a stopped asker frees its slot for the next waiter at once, not at the TTL', async (t) => {
  const h = await harness({ limit: 1 });
  t.teardown(() => h.stop());
  h.broker('broker-a').leadership.elect(1);
  // The acquire reaches the broker, its answer is late on the wire.
  const p1 = h.proxy('node-1', { holdReplies: new Set(['acquire']) });
  const p2 = h.proxy('node-2');
  await h.settle();
  const moved = h.holder(p1, 'ns/moved');
  moved.acquire();
  await h.settle();
  t.is(h.held.length, 1, 'the grant is made, its answer not yet delivered');
  // The shard moves before the answer arrives: the host's actor on node-1 stops.
  moved.lease.abandon();
  await h.settle();
  h.deliverHeld();
  await h.settle();
  const live = async (): Promise<string[]> => ((await h.record())?.grants ?? []).filter((g) => isLive(g, h.clock.now())).map((g) => g.holder);
  t.deepEqual(await live(), [], 'nobody holds a slot granted to nobody');
  const next = h.holder(p2, 'ns/next');
  next.acquire();
  await h.settle();
  t.is(next.state, 'granted', 'the next host gets the slot without waiting for a TTL');
  t.deepEqual(h.violations, []);
});

test('capacity orphan grant - a gone holder\'s release served in one turn with its acquire leaves no grant', async (t) => {
  const h = await harness({ limit: 2 });
  t.teardown(() => h.stop());
  const { broker, leadership } = h.broker('broker-a');
  leadership.elect(1);
  await h.settle();
  // The acquire of a host's last actor, then the release of the host (deleted) in every pool, both
  // gathered for one broker turn: the release must not be served first.
  const acquire = broker.request({ type: 'acquire', holder: 'ns/gone', node: 'node-1', pool: POOL, operation: 'provisioning', exempt: false });
  const release = broker.request({ type: 'release', holder: 'ns/gone' });
  t.truthy(acquire);
  t.truthy(release);
  await Promise.all([acquire, release]);
  await h.settle();
  const live = ((await h.record())?.grants ?? []).filter((g) => isLive(g, h.clock.now())).map((g) => g.holder);
  t.deepEqual(live, []);
});

test('capacity orphan grant - a slot granted after the asker\'s proxy stopped (its node shut down) goes back at once', async (t) => {
  const h = await harness({ limit: 1 });
  t.teardown(() => h.stop());
  h.broker('broker-a').leadership.elect(1);
  const p1 = h.proxy('node-1', { holdReplies: new Set(['acquire']) });
  const p2 = h.proxy('node-2');
  await h.settle();
  h.holder(p1, 'ns/leaving').acquire();
  await h.settle();
  t.is(h.held.length, 1);
  stop(p1 as unknown as AnyActorRef);
  await h.settle();
  h.deliverHeld();
  await h.settle();
  const next = h.holder(p2, 'ns/next');
  next.acquire();
  await h.settle();
  t.is(next.state, 'granted', 'the slot granted to the stopped node went back');
  t.deepEqual(h.violations, []);
});

test('capacity orphan grant - a place queued for a proxy that stopped goes back, so its grant is never pushed to nobody', async (t) => {
  const h = await harness({ limit: 1 });
  t.teardown(() => h.stop());
  h.broker('broker-a').leadership.elect(1);
  const p1 = h.proxy('node-1', { holdReplies: new Set(['acquire']) });
  const p2 = h.proxy('node-2');
  await h.settle();
  const first = h.holder(p2, 'ns/first');
  first.acquire();
  await h.settle();
  h.holder(p1, 'ns/queued').acquire();
  await h.settle();
  stop(p1 as unknown as AnyActorRef);
  await h.settle();
  h.deliverHeld();
  await h.settle();
  const next = h.holder(p2, 'ns/next');
  next.acquire();
  await h.settle();
  t.is(next.state, 'queued');
  first.release();
  await h.settle();
  t.is(next.state, 'granted', 'the freed slot goes to the live waiter, not to the stopped node\'s');
  t.deepEqual(h.violations, []);
});
