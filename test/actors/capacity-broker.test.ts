import test from 'ava';
import {
  ask,
  createManualClock,
  spawn,
  startSystem,
  stop,
  tell,
  type ActorRef,
  type ActorSystem,
} from '../../src/actors/runtime/index.ts';
import {
  spawnCapacityBroker,
  type CapacityFigures,
  type CapacityMsg,
  type SlotNotice,
} from '../../src/actors/capacity/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

const POOL = 'ironic:http://127.0.0.1:6385';

function system(t: { teardown(fn: () => void): void }): ActorSystem {
  const s = startSystem({ name: 'capacity-test', onError: () => {} });
  t.teardown(() => s.stop());
  return s;
}

const figures = (broker: ActorRef<CapacityMsg>) =>
  ask<CapacityMsg, CapacityFigures>(broker, (reply) => ({ type: 'figures', reply }), 2_000);

const summaryOf = (s: ActorSystem, broker: ActorRef<CapacityMsg>) => s.registry.get(broker.path)?.summary ?? {};

type Heard = { holder: string } & SlotNotice;

/** A host stand-in: an actor that writes down every notice it gets, in arrival order. */
function spawnHost(s: ActorSystem, name: string, log: Heard[]): ActorRef<SlotNotice> {
  return spawn<null, SlotNotice>(s, name, {
    kind: 'test-host',
    init: () => null,
    receive: (state, notice) => {
      log.push({ holder: name, ...notice });
      return state;
    },
  });
}

function acquire(broker: ActorRef<CapacityMsg>, holder: string, notify: (n: SlotNotice) => void, exempt = false): void {
  tell(broker, { type: 'acquire', holder, pool: POOL, operation: 'provisioning', exempt, notify });
}

test('capacity - the broker grants in order and a freed slot wakes the oldest waiter', async (t) => {
  const s = system(t);
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: 2 }, defaultLimit: 20 });
  const log: Heard[] = [];
  for (const h of ['h1', 'h2', 'h3', 'h4']) {
    const host = spawnHost(s, h, log);
    acquire(broker, h, (n) => tell(host, n));
  }
  await waitFor(() => log.length === 4, 2_000, 'four answers');
  t.deepEqual(
    log.map((n) => `${n.holder} ${n.type === 'slotQueued' ? `queued ${n.position}` : n.type}`).sort(),
    ['h1 slotGranted', 'h2 slotGranted', 'h3 queued 1', 'h4 queued 2'],
  );

  tell(broker, { type: 'release', holder: 'h1', pool: POOL });
  await waitFor(() => log.length === 5, 2_000, 'the hand-off');
  t.like(log[4], { holder: 'h3', type: 'slotGranted', pool: POOL, operation: 'provisioning' });
  tell(broker, { type: 'release', holder: 'h2', pool: POOL });
  await waitFor(() => log.length === 6, 2_000, 'the second hand-off');
  t.like(log[5], { holder: 'h4', type: 'slotGranted' });

  const f = await figures(broker);
  t.like(f.totals, { pools: 1, inUse: 2, waiting: 0 });
  t.deepEqual(f.pools[0]!.holders.map((h) => h.holder), ['h3', 'h4']);
});

test('capacity - the next waiter is notified in the same turn as the release', async (t) => {
  const s = system(t);
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: 1 }, defaultLimit: 1 });
  const heard: string[] = [];
  acquire(broker, 'h1', (n) => heard.push(`h1 ${n.type}`));
  acquire(broker, 'h2', (n) => heard.push(`h2 ${n.type}`));
  tell(broker, { type: 'release', holder: 'h1', pool: POOL });
  // The mailbox is FIFO: when this reply arrives the release turn is over, so h2 has been told.
  await figures(broker);
  t.deepEqual(heard, ['h1 slotGranted', 'h2 slotQueued', 'h2 slotGranted']);
});

test('capacity - a throwing notify does not stop the broker', async (t) => {
  const s = system(t);
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: 1 }, defaultLimit: 1 });
  const boom = (): void => {
    throw new Error('host mailbox gone');
  };
  acquire(broker, 'h1', boom);
  acquire(broker, 'h2', boom);
  tell(broker, { type: 'release', holder: 'h1', pool: POOL });
  const heard: SlotNotice[] = [];
  acquire(broker, 'h3', (n) => heard.push(n));
  tell(broker, { type: 'release', holder: 'h2', pool: POOL });
  await waitFor(() => heard.length === 2, 2_000, 'h3 to be queued and then granted');
  t.deepEqual(heard.map((n) => n.type), ['slotQueued', 'slotGranted']);
  const stats = s.registry.get(broker.path)!;
  t.is(stats.restarts, 0);
  t.is(stats.lastError, null);
  t.like(stats.summary, { notifyErrors: 3, inUse: 1, waiting: 0 });
});

test('capacity - an unrenewed grant expires and its slot passes on', async (t) => {
  const s = system(t);
  const clock = createManualClock(1_000_000);
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: 1 }, defaultLimit: 1, ttlMs: 1_000, clock });
  const heard: Heard[] = [];
  const notify = (holder: string) => (n: SlotNotice) => heard.push({ holder, ...n });
  acquire(broker, 'h1', notify('h1'));
  acquire(broker, 'h2', notify('h2'));
  await waitFor(() => heard.length === 2);
  t.is(clock.pending, 1, 'one timer, for the earliest expiry');

  clock.advance(500);
  tell(broker, { type: 'renew', holder: 'h1', pool: POOL });
  await figures(broker);
  // The timer armed for the first expiry fires, finds the renewed grant not yet due and re-arms.
  clock.advance(600);
  await waitFor(() => s.registry.get(broker.path)?.processed === 5, 2_000, 'the early tick');
  t.is(heard.length, 2);
  t.is(clock.pending, 1);

  clock.advance(400);
  await waitFor(() => heard.length === 4, 2_000, 'expiry');
  const [first, , lost] = heard;
  t.like(first, { holder: 'h1', type: 'slotGranted' });
  t.like(lost, { holder: 'h1', type: 'slotLost', pool: POOL });
  t.is(lost && 'grantId' in lost ? lost.grantId : 'none', first && 'grantId' in first ? first.grantId : 'missing');
  t.regex(lost?.type === 'slotLost' ? lost.reason : '', /expired.*1000 ms/);
  t.like(heard[3], { holder: 'h2', type: 'slotGranted', waitedMs: 1_500 });

  tell(broker, { type: 'release', holder: 'h2', pool: POOL });
  await figures(broker);
  t.is(clock.pending, 0, 'no timer while nothing is held');
});

test('capacity - a real short TTL takes back the slot of a silent holder', async (t) => {
  const s = system(t);
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: 1 }, defaultLimit: 1, ttlMs: 40 });
  const heard: Heard[] = [];
  acquire(broker, 'h1', (n) => heard.push({ holder: 'h1', ...n }));
  acquire(broker, 'h2', (n) => heard.push({ holder: 'h2', ...n }));
  const said = () => heard.map((n) => `${n.holder} ${n.type}`);
  await waitFor(() => said().includes('h2 slotLost'), 2_000, 'both grants to lapse');
  // h2 is normally queued first, but a stalled box may let h1's grant lapse before h2 asks.
  t.deepEqual(said().filter((x) => x !== 'h2 slotQueued'), ['h1 slotGranted', 'h1 slotLost', 'h2 slotGranted', 'h2 slotLost']);
  t.like(summaryOf(s, broker), { inUse: 0, nextExpiryInMs: null });
});

test('capacity - raising a limit wakes waiters and a bad limit is refused', async (t) => {
  const s = system(t);
  const broker = spawnCapacityBroker(s, { limits: {}, defaultLimit: 1 });
  const granted: string[] = [];
  for (const h of ['h1', 'h2', 'h3', 'h4']) acquire(broker, h, (n) => n.type === 'slotGranted' && granted.push(h));
  tell(broker, { type: 'setLimit', pool: POOL, limit: 3 });
  tell(broker, { type: 'setLimit', pool: POOL, limit: -2 });
  await figures(broker);
  t.deepEqual(granted, ['h1', 'h2', 'h3']);
  t.like(summaryOf(s, broker), { inUse: 3, waiting: 1, rejected: 1 });
  t.is((await figures(broker)).pools[0]!.limit, 3);
});

test('capacity - exempt holders pass a full pool', async (t) => {
  const s = system(t);
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: 1 }, defaultLimit: 1 });
  const heard: string[] = [];
  acquire(broker, 'h1', (n) => heard.push(`h1 ${n.type}`));
  acquire(broker, 'vm1', (n) => heard.push(`vm1 ${n.type}`), true);
  await figures(broker);
  t.deepEqual(heard, ['h1 slotGranted', 'vm1 slotGranted']);
  t.like(summaryOf(s, broker), { inUse: 1, exempt: 1 });
});

test('capacity - stopping the broker clears its timer', async (t) => {
  const s = system(t);
  const clock = createManualClock();
  const broker = spawnCapacityBroker(s, { limits: {}, defaultLimit: 5, ttlMs: 1_000, clock });
  acquire(broker, 'h1', () => {});
  await figures(broker);
  t.is(clock.pending, 1);
  stop(broker);
  t.is(clock.pending, 0);
});

test('capacity - spawning with a bad limit fails at once', (t) => {
  const s = system(t);
  t.throws(() => spawnCapacityBroker(s, { limits: { [POOL]: -1 }, defaultLimit: 5 }), {
    instanceOf: RangeError,
    message: /limit of pool ironic:http:\/\/127\.0\.0\.1:6385/,
  });
  t.throws(() => spawnCapacityBroker(s, { limits: {}, defaultLimit: 1.5, name: 'other' }), { instanceOf: RangeError });
});

test('capacity - many hosts through one pool never exceed the limit', async (t) => {
  const s = system(t);
  const LIMIT = 20;
  const HOSTS = 300;
  const broker = spawnCapacityBroker(s, { limits: { [POOL]: LIMIT }, defaultLimit: 1 });
  let active = 0;
  let peak = 0;
  let done = 0;
  const full = deferred();
  for (let i = 0; i < HOSTS; i++) {
    const holder = `host-${i}`;
    const host = spawn<null, SlotNotice>(s, holder, {
      kind: 'test-host',
      init: () => null,
      receive: (state, n) => {
        if (n.type !== 'slotGranted') return state;
        active++;
        peak = Math.max(peak, active);
        if (active === LIMIT) full.resolve();
        // Nobody lets go before the pool has been full once, so the peak is exactly the limit.
        void full.promise.then(() =>
          setTimeout(() => {
            active--;
            done++;
            tell(broker, { type: 'release', holder, pool: POOL });
          }, i % 3),
        );
        return state;
      },
    });
    acquire(broker, holder, (n) => tell(host, n));
  }
  await waitFor(() => done === HOSTS, 10_000, 'every host to finish');
  t.is(peak, LIMIT);
  t.like((await figures(broker)).totals, { inUse: 0, waiting: 0 });
});

test('capacity - spawning with a bad TTL fails at once', (t) => {
  const s = system(t);
  t.throws(() => spawnCapacityBroker(s, { limits: {}, defaultLimit: 5, ttlMs: -1 }), { instanceOf: RangeError, message: /ttlMs/ });
});
