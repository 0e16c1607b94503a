import test from 'ava';
import type { CapacityMsg, SlotNotice } from '../../src/actors/capacity/index.ts';
import { machineBehavior } from '../../src/actors/machine/index.ts';
import type { MachineKind, MachineMsg } from '../../src/actors/machine/index.ts';
import { ask, createManualClock, spawn, startSystem, stop, tell } from '../../src/actors/runtime/index.ts';
import type { ActorRef, Behavior } from '../../src/actors/runtime/index.ts';
import type { MachineLogic, MachineView, SlotEvent } from '../../src/machines/logic.ts';
import { deferred, waitFor } from '../support/wait.ts';

// A toy kind: a counter that counts up to the target its object names, one backend call per
// unit, each under a slot; between units it rests a second (a requeue).
interface Counter {
  readonly target: number;
  readonly count: number;
  readonly slot: 'none' | 'waiting' | 'held';
  readonly inFlight: number | null;
  readonly seq: number;
  readonly steps: number;
}
type CounterEvent =
  | { type: 'tick' }
  | { type: 'observed'; target: number }
  | { type: 'result'; seq: number; add: number }
  | SlotEvent;
type CounterEffect =
  | { type: 'requestSlot'; op: string }
  | { type: 'releaseSlot' }
  | { type: 'requeue'; afterMs: number }
  | { type: 'call'; seq: number };
type Wake = { type: 'observed'; target: number };
type Snap = { count: number; slot: string; observed: number } | null;

// The object is the target it names; the counter has no world.
const counting = (target: number): Counter => ({ target, count: 0, slot: 'none', inFlight: null, seq: 0, steps: 0 });
const counterLogic: MachineLogic<Counter, CounterEvent, CounterEffect, MachineView, number, null> = {
  kind: 'Counter',
  initial: counting,
  restore: counting,
  step(s, e) {
    const n = { ...s, steps: s.steps + 1 };
    switch (e.type) {
      case 'observed':
      case 'tick': {
        const target = e.type === 'observed' ? e.target : s.target;
        const more = target > s.count && s.slot === 'none' && s.inFlight === null;
        return { state: { ...n, target, slot: more ? 'waiting' : s.slot }, effects: more ? [{ type: 'requestSlot', op: 'count' }] : [] };
      }
      case 'slotGranted':
        if (s.slot !== 'waiting') return { state: n, effects: [] };
        return { state: { ...n, slot: 'held', inFlight: s.seq + 1, seq: s.seq + 1 }, effects: [{ type: 'call', seq: s.seq + 1 }] };
      case 'result': {
        if (e.seq !== s.inFlight) return { state: n, effects: [] };
        const count = s.count + e.add;
        const effects: CounterEffect[] = [{ type: 'releaseSlot' }];
        if (count < s.target) effects.push({ type: 'requeue', afterMs: 1_000 });
        return { state: { ...n, count, slot: 'none', inFlight: null }, effects };
      }
      default:
        return { state: n, effects: [] };
    }
  },
  view: (s) => ({ state: `${s.count}/${s.target}`, power: 'unknown', operationalStatus: s.slot === 'waiting' ? 'delayed' : 'OK', error: null }),
  // A negative target stands for an object deleted from its store.
  isGone: (s) => s.target < 0,
};

// The backend: each call waits for the test to answer it.
function toyKind(calls: Array<{ seq: number; answer: (add: number) => void }>, stored: { target: number }): MachineKind<Counter, CounterEvent, CounterEffect, Wake, Snap, number, null> {
  return {
    actorKind: 'counter',
    logic: counterLogic,
    adapter: (io) => {
      let observed = 0;
      return {
        observe(current, wake) {
          observed += 1;
          // The message carries the object, else it is read from its "store".
          const target = wake?.type === 'observed' ? wake.target : stored.target;
          return { seen: { object: target, world: null }, events: wake === null ? [] : [{ type: 'observed', target }] };
        },
        perform(effect) {
          const { seq } = effect;
          const gate = deferred<number>();
          calls.push({ seq, answer: gate.resolve });
          io.run(() => gate.promise, (add): CounterEvent => ({ type: 'result', seq, add }));
        },
        slotClaim: () => ({ pool: 'toy', exempt: false }),
        snapshot: (s) => (s === null ? null : { count: s.count, slot: s.slot, observed }),
        describe: (s) => ({ count: s.count }),
      };
    },
  };
}

// A broker that records what it is told and grants when the test says so.
function fakeBroker(): { behavior: Behavior<null, CapacityMsg>; log: CapacityMsg[]; notify: Map<string, (n: SlotNotice) => void> } {
  const log: CapacityMsg[] = [];
  const notify = new Map<string, (n: SlotNotice) => void>();
  return {
    log,
    notify,
    behavior: {
      kind: 'fake-broker',
      init: () => null,
      receive: (s, msg) => {
        log.push(msg);
        if (msg.type === 'acquire') notify.set(msg.holder, msg.notify);
        return s;
      },
    },
  };
}

type Msg = MachineMsg<Wake, CounterEvent, Snap>;

async function setup() {
  const system = startSystem({ onError: () => {} });
  const clock = createManualClock(1_000);
  const broker = fakeBroker();
  const brokerRef = spawn(system, 'broker', broker.behavior) as ActorRef<CapacityMsg>;
  const calls: Array<{ seq: number; answer: (add: number) => void }> = [];
  const stored = { target: 2 };
  const ref: ActorRef<Msg> = spawn(system, 'counter', machineBehavior('default/c1', toyKind(calls, stored), { clock, slots: { broker: brokerRef, ttlMs: 30_000 } }));
  const snapshot = () => ask<Msg, Snap>(ref, (reply) => ({ type: 'snapshot', reply }), 1_000);
  const grant = (id: string) => broker.notify.get('default/c1')?.({ type: 'slotGranted', grantId: id, pool: 'toy', operation: 'count', waitedMs: 0 });
  const types = () => broker.log.map((m) => m.type);
  return { system, clock, broker, ref, calls, stored, snapshot, grant, types };
}

test('machine actor - the first tick observes, a granted slot starts a call, its answer comes back through the mailbox', async (t) => {
  const h = await setup();
  t.teardown(() => h.system.stop());
  t.is(await h.snapshot(), null, 'nothing observed before the first tick');
  h.clock.advance(0);
  await waitFor(() => h.types().includes('acquire'), 2_000, 'the first tick asks for a slot');
  t.like(h.broker.log[0], { type: 'acquire', holder: 'default/c1', pool: 'toy', operation: 'count', exempt: false });
  t.like(await h.snapshot(), { count: 0, slot: 'waiting', observed: 1 });

  h.grant('g1');
  await waitFor(() => h.calls.length === 1, 2_000, 'the grant starts a call');
  h.calls[0]!.answer(1);
  await waitFor(() => h.types().includes('release'), 2_000, 'the answer releases the slot');
  t.like(await h.snapshot(), { count: 1, slot: 'none' });
  t.like(h.system.registry.get(h.ref.path)?.summary, { state: '1/2', operationalStatus: 'OK', count: 1 });
});

test('machine actor - a requeue is one timer that ticks the machine again', async (t) => {
  const h = await setup();
  t.teardown(() => h.system.stop());
  h.clock.advance(0);
  await waitFor(() => h.types().length === 1);
  h.grant('g1');
  await waitFor(() => h.calls.length === 1);
  h.calls[0]!.answer(1);
  await waitFor(() => h.types().length === 2);
  t.is(h.clock.pending, 1, 'one timer: the requeue (no renewal once the slot is released)');
  h.clock.advance(999);
  t.deepEqual(h.types(), ['acquire', 'release']);
  h.clock.advance(1);
  await waitFor(() => h.types().length === 3, 2_000, 'the requeue ticks and asks again');
  t.deepEqual(h.types(), ['acquire', 'release', 'acquire']);
  t.like(await h.snapshot(), { count: 1, slot: 'waiting', observed: 2 });
});

test('machine actor - a wake-up carrying the object is observed; a queued notice moves the machine', async (t) => {
  const h = await setup();
  t.teardown(() => h.system.stop());
  tell(h.ref, { type: 'observed', target: 5 });
  await waitFor(() => h.types().length === 1);
  h.broker.notify.get('default/c1')?.({ type: 'slotQueued', pool: 'toy', position: 3 });
  await waitFor(() => h.system.registry.get(h.ref.path)?.summary?.['state'] === '0/5');
  t.like(h.system.registry.get(h.ref.path)?.summary, { operationalStatus: 'delayed' });
});

test('machine actor - drain waits for the call in flight, starts nothing new, then replies', async (t) => {
  const h = await setup();
  t.teardown(() => h.system.stop());
  h.stored.target = 1;
  h.clock.advance(0);
  await waitFor(() => h.types().length === 1);
  h.grant('g1');
  await waitFor(() => h.calls.length === 1);
  let drained = false;
  const draining = ask<Msg, void>(h.ref, (reply) => ({ type: 'drain', reply }), 2_000).then(() => (drained = true));
  // Wake-ups wait for the next owner while draining.
  tell(h.ref, { type: 'observed', target: 9 });
  await new Promise((resolve) => setImmediate(resolve));
  t.false(drained, 'the call is still in flight');
  h.calls[0]!.answer(1);
  await draining;
  t.true(drained);
  t.like(await h.snapshot(), { count: 1, slot: 'none', observed: 1 });
  t.deepEqual(h.types(), ['acquire', 'release']);
});

// Stopped while its object lives on (its shard moved, the node stops): the work it asked a slot for
// may run on at the backend, so the slot is abandoned (kept for the next owner), not released.
test('machine actor - stopping abandons the slot and clears the timer', async (t) => {
  const h = await setup();
  t.teardown(() => h.system.stop());
  h.clock.advance(0);
  await waitFor(() => h.types().length === 1);
  t.is(h.clock.pending, 1, 'the slot lease renews while waiting');
  stop(h.ref);
  await waitFor(() => h.types().length === 2, 2_000, 'the release');
  t.like(h.broker.log[1], { type: 'abandon', holder: 'default/c1', pool: 'toy' });
  t.is(h.clock.pending, 0);
});

test('machine actor - stopping with its object gone releases the slot', async (t) => {
  const h = await setup();
  t.teardown(() => h.system.stop());
  h.clock.advance(0);
  await waitFor(() => h.types().length === 1);
  tell(h.ref, { type: 'observed', target: -1 });
  await waitFor(() => h.system.registry.get(h.ref.path)?.summary?.state === '0/-1', 2_000, 'the deletion observed');
  stop(h.ref);
  await waitFor(() => h.types().length === 2, 2_000, 'the release');
  t.like(h.broker.log[1], { type: 'release', holder: 'default/c1', pool: 'toy' });
  t.is(h.clock.pending, 0);
});

test('machine actor - a call that rejects crashes the actor, which restarts and observes again', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const clock = createManualClock(0);
  let observed = 0;
  let started = 0;
  const built: string[] = [];
  const kind: MachineKind<{ n: number }, { type: 'tick' } | { type: 'done' }, { type: 'call' }, never, number, null, null> = {
    actorKind: 'flaky',
    logic: {
      kind: 'Flaky',
      initial: () => (built.push('initial'), { n: 0 }),
      restore: () => (built.push('restore'), { n: 0 }),
      step: (s, e) => ({ state: { n: s.n + 1 }, effects: e.type === 'tick' && s.n === 0 ? [{ type: 'call' }] : [] }),
      view: () => ({ state: 'x', power: 'unknown', operationalStatus: 'OK', error: null }),
      isGone: () => false,
    },
    adapter: (io) => ({
      observe(current, wake) {
        observed += 1;
        return { seen: { object: null, world: null }, events: wake === null ? [] : [wake] };
      },
      perform() {
        io.run(() => {
          started += 1;
          return Promise.reject(new Error('broken backend'));
        }, () => ({ type: 'done' }));
      },
      snapshot: () => observed,
    }),
  };
  spawn(system, 'flaky', machineBehavior('default/f', kind, { clock }), { supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 1, maxMs: 1 } } });
  clock.advance(0);
  await waitFor(() => started === 1);
  // The restart's init queues its own first tick.
  await waitFor(() => clock.pending === 1, 2_000, 'the restarted actor waits for its first tick');
  clock.advance(0);
  await waitFor(() => started === 2, 2_000, 'the restarted actor observes and calls again');
  t.is(observed, 2);
  // Its first life starts from the object; the life after the crash restores from the store.
  t.deepEqual(built, ['initial', 'restore']);
});

test('machine actor - an effect answered within the turn is stepped at once, before the next message', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const clock = createManualClock(0);
  type E = { type: 'tick' } | { type: 'looked'; value: number };
  // A kind whose lookup answers inline (as MaasCluster's DNS calls do): the snapshot asked right
  // after the wake-up already sees the answer.
  const kind: MachineKind<{ value: number | null; looks: number }, E, { type: 'look' }, never, number | null, null, null> = {
    actorKind: 'inline',
    logic: {
      kind: 'Inline',
      initial: () => ({ value: null, looks: 0 }),
      restore: () => ({ value: null, looks: 0 }),
      step: (s, e) => (e.type === 'looked'
        ? { state: { value: e.value, looks: s.looks }, effects: [] }
        : { state: { value: s.value, looks: s.looks + 1 }, effects: [{ type: 'look' }] }),
      view: () => ({ state: 'x', power: 'unknown', operationalStatus: 'OK', error: null }),
      isGone: () => false,
    },
    adapter: () => ({
      observe: (_current, wake) => ({ seen: { object: null, world: null }, events: wake === null ? [] : [wake] }),
      perform: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { type: 'looked', value: 42 };
      },
      snapshot: (s) => s?.value ?? null,
    }),
  };
  const ref: ActorRef<MachineMsg<never, E, number | null>> = spawn(system, 'inline', machineBehavior('default/i', kind, { clock }));
  tell(ref, { type: 'tick' });
  t.is(await ask<MachineMsg<never, E, number | null>, number | null>(ref, (reply) => ({ type: 'snapshot', reply }), 1_000), 42);
});

// Issue 30.1: an actor restarted after a crash abandons its slot (the work may run on); its next
// life, once its machine has read the backend and found no work of its own, gives that grant back
// (releaseGrant): to the broker as an inherited release in the pool the kind claims, under a
// request count newer than the earlier life's acquire.
test('machine actor - a restarted actor\'s releaseGrant gives the grant its earlier life left back to the broker', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const clock = createManualClock(0);
  const broker = fakeBroker();
  const brokerRef = spawn(system, 'broker', broker.behavior) as ActorRef<CapacityMsg>;
  type S = { life: 'first' | 'restored'; done: boolean };
  type F = { type: 'requestSlot'; op: string } | { type: 'releaseGrant' } | { type: 'call' };
  const kind: MachineKind<S, { type: 'tick' }, F, never, null, null, null> = {
    actorKind: 'holder',
    logic: {
      kind: 'Holder',
      initial: () => ({ life: 'first', done: false }),
      restore: () => ({ life: 'restored', done: false }),
      step: (s) => (s.done ? { state: s, effects: [] } : {
        state: { ...s, done: true },
        effects: s.life === 'first' ? [{ type: 'requestSlot', op: 'work' }, { type: 'call' }] : [{ type: 'releaseGrant' }],
      }),
      view: () => ({ state: 'x', power: 'unknown', operationalStatus: 'OK', error: null }),
      isGone: () => false,
    },
    adapter: (io) => ({
      observe: (_current, wake) => ({ seen: { object: null, world: null }, events: wake === null ? [] : [wake] }),
      perform: () => void io.run(() => Promise.reject(new Error('broken backend')), () => ({ type: 'tick' })),
      slotClaim: () => ({ pool: 'toy', exempt: false }),
      snapshot: () => null,
    }),
  };
  spawn(system, 'holder', machineBehavior('default/h', kind, { clock, slots: { broker: brokerRef, ttlMs: 30_000 } }), { supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 1, maxMs: 1 } } });
  clock.advance(0);
  await waitFor(() => broker.log.length === 2, 2_000, 'acquire, then abandon as the actor crashes');
  await waitFor(() => clock.pending === 1, 2_000, 'the restarted actor waits for its first tick');
  clock.advance(0);
  await waitFor(() => broker.log.length === 3, 2_000, 'the inherited release');
  const [acquire, abandon, release] = broker.log;
  t.like(acquire, { type: 'acquire', holder: 'default/h', pool: 'toy' });
  t.like(abandon, { type: 'abandon', holder: 'default/h', pool: 'toy' });
  t.like(release, { type: 'release', holder: 'default/h', pool: 'toy', inherited: true });
  t.true((release as { gen: number }).gen > (acquire as { gen: number }).gen);
});
