// The one capacity broker (the cluster broker every node runs, the embedded default too), through
// its proxies: what the old in-process broker's tests checked, and the pools without a limit whose
// grants live in the broker's memory only. FIFO order and the hand-off of a freed slot across two
// nodes are in capacity-cluster.test.ts.
import test from 'ava';
import { ask, stop, tell, type ActorRef } from '../../src/actors/runtime/index.ts';
import type { CapacityFigures, CapacityMsg, PoolFigures, SlotNotice } from '../../src/actors/capacity/index.ts';
import { inUse, spawnCapacityProxy, startClusterBroker } from '../../src/actors/capacity/cluster/index.ts';
import { harness, POOL, type Harness, type Holder } from './capacity-cluster-harness.ts';

async function withHarness(t: { teardown(fn: () => void): void }, limit: number, ttlMs?: number): Promise<Harness> {
  const h = await harness(ttlMs === undefined ? { limit } : { limit, ttlMs });
  t.teardown(() => h.stop());
  return h;
}

/** One broker, elected, and one proxy per node named. */
async function oneBroker(t: { teardown(fn: () => void): void }, limit: number, nodes: readonly string[] = ['node-1'], ttlMs?: number) {
  const h = await withHarness(t, limit, ttlMs);
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const proxies = nodes.map((n) => h.proxy(n));
  await h.settle();
  return { h, a, proxies };
}

const figures = (proxy: ActorRef<CapacityMsg>) => ask<CapacityMsg, CapacityFigures>(proxy, (reply) => ({ type: 'figures', reply }), 5_000);

async function poolFigures(proxy: ActorRef<CapacityMsg>): Promise<PoolFigures> {
  const f = await figures(proxy);
  const p = f.pools.find((x) => x.pool === POOL);
  if (!p) throw new Error(`no figures for ${POOL}: ${JSON.stringify(f)}`);
  return p;
}

const summaryOf = (h: Harness, ref: { path: string }) => h.system.registry.get(ref.path)?.summary ?? {};
const types = (x: Holder) => x.heard.map((n) => n.type);
const setLimit = (proxy: ActorRef<CapacityMsg>, limit: number) => tell(proxy, { type: 'setLimit', pool: POOL, limit });

async function acquireAll(h: Harness, holders: readonly Holder[], options?: { exempt?: boolean }): Promise<void> {
  for (const x of holders) {
    x.acquire(options);
    await h.settle();
  }
}

test('capacity - the next waiter is granted in the same write that frees the slot', async (t) => {
  const { h, proxies: [p1, p2] } = await oneBroker(t, 1, ['node-1', 'node-2']);
  const [first, second] = [h.holder(p1!, 'default/h1'), h.holder(p2!, 'default/h2')];
  await acquireAll(h, [first, second]);
  t.is(second.state, 'queued');
  const written = h.versions.length;
  const start = h.clock.now();
  first.release();
  await h.settle();
  t.is(second.state, 'granted');
  t.is(h.clock.now(), start, 'woken by the release, not by a timer');
  // One version: there is never a record with the slot free while someone waits for it.
  t.deepEqual(h.versions.slice(written).map((r) => r.grants.map((g) => g.holder)), [['default/h2']]);
  t.deepEqual(types(second), ['slotQueued', 'slotGranted']);
  t.deepEqual(h.violations, []);
});

test("capacity - a holder's notify that throws does not stop the proxy", async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1);
  const boom = (): void => {
    throw new Error('host mailbox gone');
  };
  const acquire = (holder: string, notify: (n: SlotNotice) => void) =>
    tell(proxy!, { type: 'acquire', holder, pool: POOL, operation: 'provisioning', exempt: false, notify });
  const release = (holder: string) => tell(proxy!, { type: 'release', holder, pool: POOL });
  acquire('default/h1', boom);
  await h.settle();
  acquire('default/h2', boom);
  await h.settle();
  release('default/h1');
  await h.settle();
  const heard: SlotNotice[] = [];
  acquire('default/h3', (n) => heard.push(n));
  await h.settle();
  release('default/h2');
  await h.settle();
  t.deepEqual(heard.map((n) => n.type), ['slotQueued', 'slotGranted']);
  const stats = h.system.registry.get(proxy!.path)!;
  t.is(stats.restarts, 0);
  t.is(stats.lastError, null);
  t.like(stats.summary, { notifyErrors: 3, granted: 1, waiting: 0 });
  t.deepEqual((await h.record())?.grants.map((g) => g.holder), ['default/h3']);
});

// A holder that falls silent may have crashed with its backend work still running: the slot is not
// given back, it lapses a TTL after the proxy stopped renewing it (or the host's next owner adopts it).
test('capacity - a grant its holder stops renewing lapses a TTL after the proxy gives up on it, and its slot passes on', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1, ['node-1'], 3_000);
  // A holder that never renews: its acquire goes to the proxy directly, without a SlotLease.
  const silent: SlotNotice[] = [];
  tell(proxy!, { type: 'acquire', holder: 'default/silent', pool: POOL, operation: 'provisioning', exempt: false, notify: (n) => silent.push(n) });
  await h.settle();
  const waiter = h.holder(proxy!, 'default/waiter');
  await acquireAll(h, [waiter]);
  t.is(waiter.state, 'queued');
  await h.advance(h.ttlMs - 1);
  t.is(waiter.state, 'queued', 'not before a TTL without a renewal');
  await h.advance(h.ttlMs / 3);
  t.is(waiter.state, 'queued', 'not given back when the proxy stops renewing it');
  await h.advance(h.ttlMs);
  t.is(waiter.state, 'granted');
  const granted = waiter.heard.at(-1) as Extract<SlotNotice, { type: 'slotGranted' }>;
  t.true(granted.waitedMs >= h.ttlMs * 4 / 3);
  t.deepEqual(silent.map((n) => n.type), ['slotGranted']);
  t.deepEqual((await h.record())?.grants.map((g) => g.holder), ['default/waiter']);
  t.deepEqual(h.violations, []);
});

test('capacity - raising a limit through a proxy wakes waiters at once; a bad limit is refused', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1);
  const holders = ['h1', 'h2', 'h3', 'h4'].map((k) => h.holder(proxy!, `default/${k}`));
  await acquireAll(h, holders);
  t.deepEqual(holders.map((x) => x.state), ['granted', 'queued', 'queued', 'queued']);
  const start = h.clock.now();
  setLimit(proxy!, 3);
  await h.settle();
  t.deepEqual(holders.map((x) => x.state), ['granted', 'granted', 'granted', 'queued']);
  t.is(h.clock.now(), start);
  for (const bad of [-2, 1.5, Number.NaN]) {
    setLimit(proxy!, bad);
    await h.settle();
  }
  const r = await h.record();
  t.is(r?.limit, 3, 'no bad limit reached the record');
  t.like(await poolFigures(proxy!), { limit: 3, inUse: 3, waiting: 1 });
  t.is(h.system.registry.get(proxy!.path)?.restarts, 0);
  t.deepEqual(h.violations, []);
});

// Known failure: the proxy hands setLimit to its own node's broker in process (localBroker), which,
// unlike the bus, does not parse it: a limit of -2 is written to KV and the pool's record becomes
// unreadable. No caller sends setLimit yet. Remove `.failing` when ClusterBroker.request (or the
// proxy) refuses what BrokerRequest refuses.
test("capacity - a bad limit is refused by the proxy's own broker in process too", async (t) => {
  const h = await withHarness(t, 1);
  const a = h.broker('broker-a');
  a.leadership.elect(1);
  const proxy = h.proxy('node-a', { localBroker: a.broker });
  await h.settle();
  const first = h.holder(proxy, 'default/h1');
  await acquireAll(h, [first]);
  setLimit(proxy, -2);
  await h.settle();
  t.deepEqual(h.violations, []);
  t.is((await h.record())?.limit, 1);
});

test('capacity - exempt holders pass a full pool and are not counted', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1);
  const [h1, vm1, vm2, h2] = ['h1', 'vm1', 'vm2', 'h2'].map((k) => h.holder(proxy!, `default/${k}`));
  await acquireAll(h, [h1!]);
  await acquireAll(h, [vm1!, vm2!], { exempt: true });
  await acquireAll(h, [h2!]);
  t.deepEqual([h1, vm1, vm2, h2].map((x) => x!.state), ['granted', 'granted', 'granted', 'queued']);
  const r = await h.record();
  t.is(r?.grants.length, 3);
  t.is(inUse(r!, h.clock.now()), 1);
  t.like(await poolFigures(proxy!), { inUse: 1, exempt: 2, waiting: 1 });
  vm1!.release();
  await h.settle();
  t.is(h2!.state, 'queued', 'an exempt release frees no counted slot');
  h1!.release();
  await h.settle();
  t.is(h2!.state, 'granted');
  t.deepEqual(h.violations, []);
});

// reconcile() stops at the first candidate that does not fit (FIFO, and a write costs only what it
// grants): the broker puts an exempt acquire ahead of the queue, where no limit holds it up.
test('capacity - an exempt holder passes a full pool even when others wait', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1);
  const [h1, h2, vm] = ['h1', 'h2', 'vm'].map((k) => h.holder(proxy!, `default/${k}`));
  await acquireAll(h, [h1!, h2!]);
  await acquireAll(h, [vm!], { exempt: true });
  t.deepEqual([h1, h2, vm].map((x) => x!.state), ['granted', 'queued', 'granted']);
});

test('capacity - starting a broker or proxy with a bad limit or TTL fails at once', async (t) => {
  const h = await withHarness(t, 1);
  const start = (o: { limits?: Record<string, number>; defaultLimit?: number; ttlMs?: number }) => () =>
    startClusterBroker(h.system, { transport: h.bus.connect('bad'), kv: h.kv, leadership: { onElected: () => {}, onDeposed: () => {} }, defaultLimit: 1, ...o, name: 'bad' });
  t.throws(start({ limits: { [POOL]: -1 } }), { instanceOf: RangeError, message: /limit of pool ironic:http:\/\/127\.0\.0\.1:6385/ });
  t.throws(start({ defaultLimit: 1.5 }), { instanceOf: RangeError, message: /defaultLimit/ });
  t.throws(start({ ttlMs: -1 }), { instanceOf: RangeError, message: /ttlMs/ });
  t.throws(start({ ttlMs: Number.POSITIVE_INFINITY }), { instanceOf: RangeError, message: /ttlMs/ });
  t.throws(() => spawnCapacityProxy(h.system, { transport: h.bus.connect('bad'), node: 'bad', ttlMs: 0 }), { instanceOf: RangeError, message: /ttlMs/ });
  t.falsy(h.system.registry.list().find((a) => a.path.endsWith('/bad')), 'nothing was spawned');
});

test('capacity - pools are independent, a new pool takes the default limit, Infinity means no limit', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1);
  const OTHER = 'fixture:other';
  const heard = new Map<string, string[]>();
  const acquire = (holder: string, pool: string) => {
    heard.set(holder, []);
    tell(proxy!, { type: 'acquire', holder, pool, operation: 'provisioning', exempt: false, notify: (n) => heard.get(holder)!.push(n.type) });
  };
  for (const [holder, pool] of [['h1', POOL], ['h2', OTHER], ['h3', OTHER]] as const) {
    acquire(holder, pool);
    await h.settle();
  }
  t.deepEqual([...heard.values()], [['slotGranted'], ['slotGranted'], ['slotQueued']], 'a full pool does not hold up another');
  tell(proxy!, { type: 'setLimit', pool: OTHER, limit: Number.POSITIVE_INFINITY });
  await h.settle();
  t.deepEqual(heard.get('h3'), ['slotQueued', 'slotGranted']);
  const f = await figures(proxy!);
  t.deepEqual(f.pools.map((p) => [p.pool, p.limit, p.inUse]), [['fixture:other', Number.POSITIVE_INFINITY, 2], [POOL, 1, 1]]);
});

test('capacity - a pool without a limit grants at once and writes no grant to KV', async (t) => {
  const { h, proxies: [p1, p2] } = await oneBroker(t, 0, ['node-1', 'node-2']);
  const holders = Array.from({ length: 6 }, (_, i) => h.holder(i % 2 === 0 ? p1! : p2!, `default/host-${i}`));
  for (const x of holders) x.acquire();
  await h.settle();
  t.deepEqual(holders.map(types), holders.map(() => ['slotGranted']));
  t.true(h.versions.every((r) => r.grants.length === 0), 'no version of the record holds a grant');
  t.deepEqual((await h.record())?.grants ?? [], []);
  const f = await poolFigures(p1!);
  t.like(f, { limit: Number.POSITIVE_INFINITY, inUse: 6, waiting: 0 });
  t.deepEqual(f.holders.map((x) => `${x.holder} ${x.grantId}`).sort(), holders.map((x) => `${x.key} ${x.grantId}`).sort());
  holders[0]!.release();
  await h.settle();
  t.is((await poolFigures(p2!)).inUse, 5);
});

test('capacity - after a failover a holder in a pool without a limit keeps its grant id and hears no slotLost', async (t) => {
  const h = await withHarness(t, 0);
  const a = h.broker('broker-a');
  const b = h.broker('broker-b');
  a.leadership.elect(1);
  const [p1, p2] = [h.proxy('node-1'), h.proxy('node-2')];
  await h.settle();
  const holders = Array.from({ length: 4 }, (_, i) => h.holder(i % 2 === 0 ? p1 : p2, `default/host-${i}`));
  await acquireAll(h, holders);
  const ids = holders.map((x) => x.grantId);
  t.true(ids.every((id) => id !== null));

  a.leadership.depose('lease lost');
  b.leadership.elect(2);
  await h.settle();
  // Two TTLs: every grant lives only in the memory of broker A, gone; B learns them from renewals.
  await h.advance(2 * h.ttlMs);
  t.deepEqual(holders.map(types), holders.map(() => ['slotGranted']), 'one grant each, never lost or granted again');
  t.deepEqual(holders.map((x) => x.grantId), ids);
  const f = await poolFigures(p1);
  t.deepEqual(f.holders.map((x) => `${x.holder} ${x.grantId}`).sort(), holders.map((x, i) => `${x.key} ${ids[i]}`).sort());
  t.like(summaryOf(h, b.broker.ref), { epoch: 2, inUse: 4, expired: 0 });
  // A newcomer is granted by B at once, as before.
  const late = h.holder(p2, 'default/late');
  await acquireAll(h, [late]);
  t.is(late.state, 'granted');
  t.true(h.versions.every((r) => r.grants.length === 0));
  t.deepEqual(h.violations, []);
});

test('capacity - a grant in a pool without a limit lapses after the TTL once its node stops renewing', async (t) => {
  const { h, a, proxies: [p1, p2] } = await oneBroker(t, 0, ['node-1', 'node-2'], 3_000);
  const live = h.holder(p1!, 'default/live');
  const dead = h.holder(p2!, 'default/dead');
  await acquireAll(h, [live, dead]);
  // node-2 dies: its proxy stops, nothing renews or releases its holder's grant.
  stop(p2!);
  await h.advance(h.ttlMs - h.ttlMs / 6);
  t.deepEqual((await poolFigures(p1!)).holders.map((x) => x.holder).sort(), ['default/dead', 'default/live']);
  await h.advance(h.ttlMs / 3);
  const f = await poolFigures(p1!);
  t.deepEqual(f.holders.map((x) => x.holder), ['default/live']);
  t.is(f.inUse, 1);
  t.like(summaryOf(h, a.broker.ref), { expired: 1, released: 0, inUse: 1 });
  t.is(live.state, 'granted');
  t.deepEqual(types(live), ['slotGranted']);
});

// Known failure: releasing a grant held in the broker's memory writes nothing, so a waiter queued
// after the limit was set is not handed the freed slot (ClusterBroker release/sweepFree commit only
// when the record changes). Remove `.failing` when such a release hands the slot on.
test('capacity - a limit set on a pool without one counts the holders it granted in memory', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 0);
  const holders = ['h1', 'h2', 'h3'].map((k) => h.holder(proxy!, `default/${k}`));
  await acquireAll(h, holders);
  t.deepEqual(holders.map((x) => x.state), ['granted', 'granted', 'granted']);
  setLimit(proxy!, 2);
  await h.settle();
  t.is((await h.record())?.limit, 2);
  const next = h.holder(proxy!, 'default/h4');
  await acquireAll(h, [next]);
  t.is(next.state, 'queued', 'three in memory already, over the new limit of 2');
  t.like(await poolFigures(proxy!), { limit: 2, inUse: 3, waiting: 1 });
  holders[0]!.release();
  await h.settle();
  t.is(next.state, 'queued', 'two in use: still full');
  holders[1]!.release();
  await h.settle();
  t.is(next.state, 'granted', 'one in use: the waiter is granted');
  t.like(await poolFigures(proxy!), { inUse: 2, waiting: 0 });
  t.deepEqual((await h.record())?.grants.map((g) => g.holder), ['default/h4']);
  // The holders still in memory keep their grants through renewals, counted against the limit.
  await h.advance(2 * h.ttlMs);
  t.deepEqual([holders[2]!.state, next.state], ['granted', 'granted']);
  t.like(await poolFigures(proxy!), { inUse: 2 });
  t.deepEqual(h.violations, []);
});

test("capacity - a proxy asks its own node's broker in process while it serves, the bus otherwise", async (t) => {
  const h = await withHarness(t, 1);
  const a = h.broker('broker-a');
  const b = h.broker('broker-b');
  a.leadership.elect(1);
  const p1 = h.proxy('node-a', { localBroker: a.broker });
  await h.settle();
  const first = h.holder(p1, 'default/h1');
  const second = h.holder(p1, 'default/h2');
  await acquireAll(h, [first, second]);
  await h.advance(h.ttlMs / 2);
  t.deepEqual([first.state, second.state], ['granted', 'queued']);
  t.is(h.busRequests.get('node-a') ?? 0, 0, 'acquires and renewals answered in process');

  a.leadership.depose('lease lost');
  b.leadership.elect(2);
  await h.settle();
  await h.advance(h.ttlMs);
  t.true((h.busRequests.get('node-a') ?? 0) > 0, 'broker B is reached over the bus');
  t.deepEqual([first.state, second.state], ['granted', 'queued']);
  first.release();
  await h.settle();
  t.is(second.state, 'granted');
  t.is((await h.record())?.epoch, 2);
  t.deepEqual(types(first), ['slotGranted']);
  t.deepEqual(h.violations, []);
});

// A host resumed by its shard's new owner asks with `since` its operation began: it queues ahead
// of hosts that asked after that, so admitted work finishes before new work starts.
test('capacity - an acquire with since queues by since, ahead of later requests', async (t) => {
  const { h, proxies: [proxy] } = await oneBroker(t, 1, ['node-1']);
  const holding = h.holder(proxy!, 'default/holding');
  const early = h.holder(proxy!, 'default/early');
  const late = h.holder(proxy!, 'default/late');
  await acquireAll(h, [holding]);
  t.is(holding.state, 'granted');
  const before = h.clock.now();
  await h.advance(1_000);
  late.acquire();
  await h.settle();
  // Resumed work, begun before `late` asked.
  early.lease.request(POOL, 'provisioning', false, (n) => early.heard.push(n), before);
  await h.settle();
  const queuedAt = (x: typeof early) => (x.heard.at(-1) as Extract<SlotNotice, { type: 'slotQueued' }> | undefined)?.position;
  t.is(queuedAt(early), 1);
  holding.release();
  await h.settle();
  t.is(early.heard.at(-1)?.type, 'slotGranted', 'the resumed work has the freed slot');
  t.is(late.heard.at(-1)?.type, 'slotQueued');
});

// Issue 30.1: a holder whose object is gone names no pool. The broker gives back its grant and its
// place in a queue in every pool, made for whichever node, from memory, in the turn it arrives.
test('capacity - releaseGone frees a gone holder in every pool, whichever node its grant was made for', async (t) => {
  const { h, proxies: [p1, p2] } = await oneBroker(t, 1, ['node-1', 'node-2']);
  const OTHER = 'ironic:http://127.0.0.2:6385';
  const gone = h.holder(p1!, 'default/gone');
  const next = h.holder(p2!, 'default/next');
  await acquireAll(h, [gone, next]);
  t.is(gone.state, 'granted');
  t.is(next.state, 'queued');
  // Its place in a second pool's queue, behind a holder of that pool's one slot.
  const other: SlotNotice[] = [];
  tell(p2!, { type: 'acquire', holder: 'default/busy', pool: OTHER, operation: 'provisioning', exempt: false, notify: () => undefined });
  await h.settle();
  tell(p1!, { type: 'acquire', holder: 'default/gone', pool: OTHER, operation: 'provisioning', exempt: false, notify: (n) => other.push(n) });
  await h.settle();
  t.is(other.at(-1)?.type, 'slotQueued');
  // Its actor stopped without knowing why (it abandons: the work might run on), then its object
  // was found gone by another node.
  gone.lease.abandon();
  tell(p1!, { type: 'abandon', holder: 'default/gone', pool: OTHER });
  await h.settle();
  const start = h.clock.now();
  tell(p2!, { type: 'releaseGone', holder: 'default/gone' });
  await h.settle();
  t.is(next.state, 'granted');
  t.is(h.clock.now(), start, 'freed by the release, not by the TTL');
  const f = await figures(p2!);
  t.deepEqual(f.pools.find((p) => p.pool === POOL)?.holders.map((x) => x.holder), ['default/next']);
  t.deepEqual(f.pools.find((p) => p.pool === OTHER)?.queue.map((x) => x.holder), []);
  t.deepEqual(f.pools.find((p) => p.pool === OTHER)?.holders.map((x) => x.holder), ['default/busy']);
  t.deepEqual(h.violations, []);
});
