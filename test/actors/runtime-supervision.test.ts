import test from 'ava';
import { createManualClock, isAlive, spawn, startSystem, stop, tell, children } from '../../src/actors/runtime/index.ts';
import type { ActorFailure, Behavior, Clock, SupervisionOptions } from '../../src/actors/runtime/index.ts';
import { waitFor } from '../support/wait.ts';

type Msg = { type: 'ok'; id: string } | { type: 'fail' } | { type: 'reject' } | { type: 'forget' } | { type: 'child'; name: string };
type State = { incarnation: number; seen: string[] };

/** Counts its incarnations, so a test sees init run again after a crash. */
function fragile() {
  const probe = { inits: 0, stops: [] as State[], last: null as State | null };
  const behavior: Behavior<State, Msg> = {
    kind: 'fragile',
    init: () => ({ incarnation: ++probe.inits, seen: [] }),
    async receive(state, msg, ctx) {
      if (msg.type === 'fail') throw new Error('handler failed');
      if (msg.type === 'reject') return Promise.reject(new Error('async failure'));
      if (msg.type === 'forget') return undefined as unknown as State;
      if (msg.type === 'child') spawn(ctx.self, msg.name, behavior);
      else state.seen.push(msg.id);
      probe.last = state;
      return state;
    },
    onStop: (state) => void probe.stops.push(state),
  };
  return { probe, behavior };
}

function quietSystem(clock?: Clock) {
  const failures: ActorFailure[] = [];
  const system = startSystem({ clock, onError: (f) => failures.push(f) });
  return { system, failures };
}

const instant: Partial<SupervisionOptions> = { backoff: { initialMs: 0, maxMs: 0 } };

test('runtime - a throwing handler restarts the actor with backoff and re-initialised state', async (t) => {
  const clock = createManualClock(1_000);
  const { system, failures } = quietSystem(clock);
  t.teardown(() => system.stop());
  const { probe, behavior } = fragile();
  const ref = spawn(system, 'h', behavior, { supervision: { backoff: { initialMs: 1_000, maxMs: 30_000 } } });
  tell(ref, { type: 'ok', id: 'a' });
  tell(ref, { type: 'fail' });
  tell(ref, { type: 'ok', id: 'b' });
  const stats = () => system.registry.get('/h');
  await waitFor(() => stats()?.restarting === true);
  t.like(stats(), { processed: 2, mailboxDepth: 1, restarts: 1, lastError: 'Error: handler failed', lastErrorAt: 1_000, busy: false });
  t.is(failures[0]?.phase, 'receive');
  t.deepEqual(probe.stops.map((s) => s.seen), [['a']], 'onStop cleans up the crashed incarnation');
  clock.advance(999);
  t.true(stats()?.restarting, 'still waiting out the backoff');
  clock.advance(1);
  await waitFor(() => stats()?.processed === 3);
  t.is(probe.inits, 2);
  t.deepEqual(probe.last, { incarnation: 2, seen: ['b'] }, 'the message told during backoff ran on the new state');
  t.false(stats()?.restarting);
});

test('runtime - backoff grows by the factor up to maxMs', async (t) => {
  const clock = createManualClock();
  const { system } = quietSystem(clock);
  t.teardown(() => system.stop());
  const { behavior } = fragile();
  const ref = spawn(system, 'h', behavior, { supervision: { maxRestarts: 10, backoff: { initialMs: 100, maxMs: 300, factor: 2 } } });
  for (const delay of [100, 200, 300, 300]) {
    const restarts = system.registry.get('/h')?.restarts ?? 0;
    tell(ref, { type: 'fail' });
    await waitFor(() => system.registry.get('/h')?.restarts === restarts + 1);
    clock.advance(delay - 1);
    t.true(system.registry.get('/h')?.restarting, `still waiting at ${delay - 1} ms`);
    clock.advance(1);
    t.false(system.registry.get('/h')?.restarting, `restarted at ${delay} ms`);
  }
});

test('runtime - repeated crashes call onGiveUp once with the error and remove the actor', async (t) => {
  const { system } = quietSystem();
  t.teardown(() => system.stop());
  const calls: { error: unknown; restarts: number; path: string }[] = [];
  const { probe, behavior } = fragile();
  const ref = spawn(system, 'h', behavior, {
    supervision: { ...instant, maxRestarts: 2, onGiveUp: (error, ctx) => void calls.push({ error, ...ctx }) },
  });
  for (let i = 0; i < 5; i++) tell(ref, { type: 'reject' });
  await waitFor(() => !isAlive(ref));
  t.is(calls.length, 1);
  t.is((calls[0]?.error as Error).message, 'async failure');
  t.like(calls[0], { restarts: 2, path: '/h' });
  t.is(system.registry.get('/h'), undefined);
  t.is(system.registry.size, 0);
  t.is(tell(ref, { type: 'ok', id: 'late' }), 'dead');
  t.is(probe.inits, 3);
});

test('runtime - a throwing onGiveUp or onStop is reported and does not crash the process', async (t) => {
  const { system, failures } = quietSystem();
  t.teardown(() => system.stop());
  const { behavior } = fragile();
  const ref = spawn(system, 'h', { ...behavior, onStop: () => { throw new Error('onStop broke'); } }, {
    supervision: { ...instant, maxRestarts: 0, onGiveUp: () => { throw new Error('onGiveUp broke'); } },
  });
  tell(ref, { type: 'fail' });
  await waitFor(() => !isAlive(ref));
  t.deepEqual(failures.map((f) => `${f.phase}: ${f.message}`), [
    'receive: Error: handler failed',
    'onStop: Error: onStop broke',
    'onGiveUp: Error: onGiveUp broke',
  ]);
});

test('runtime - one actor crashing leaves its siblings alone', async (t) => {
  const { system } = quietSystem();
  t.teardown(() => system.stop());
  const a = fragile();
  const b = fragile();
  const parent = spawn(system, 'shard', a.behavior);
  const bad = spawn(parent, 'bad', a.behavior, { supervision: { ...instant, maxRestarts: 1 } });
  const good = spawn(parent, 'good', b.behavior);
  for (let i = 0; i < 3; i++) {
    tell(bad, { type: 'fail' });
    tell(good, { type: 'ok', id: String(i) });
  }
  await waitFor(() => !isAlive(bad) && system.registry.get('/shard/good')?.processed === 3);
  t.deepEqual(b.probe.last, { incarnation: 1, seen: ['0', '1', '2'] });
  t.like(system.registry.get('/shard/good'), { restarts: 0, lastError: null });
  t.like(system.registry.get('/shard'), { restarts: 0, lastError: null });
  t.true(isAlive(parent));
});

test('runtime - a handler returning undefined is a crash with a clear error', async (t) => {
  const { system } = quietSystem();
  t.teardown(() => system.stop());
  const { behavior } = fragile();
  const ref = spawn(system, 'h', behavior, { supervision: instant });
  tell(ref, { type: 'forget' });
  await waitFor(() => system.registry.get('/h')?.restarts === 1);
  t.regex(system.registry.get('/h')?.lastError ?? '', /BehaviorError: .*fragile receive returned undefined/);
});

test('runtime - a throwing init restarts with backoff while messages wait', async (t) => {
  const clock = createManualClock();
  const { system, failures } = quietSystem(clock);
  t.teardown(() => system.stop());
  const { probe, behavior } = fragile();
  let attempts = 0;
  const flaky: Behavior<State, Msg> = {
    ...behavior,
    init: (ctx) => {
      if (attempts++ === 0) throw new Error('store unreachable');
      return behavior.init(ctx);
    },
  };
  const ref = spawn(system, 'h', flaky, { supervision: { backoff: { initialMs: 50, maxMs: 50 } } });
  t.is(tell(ref, { type: 'ok', id: 'early' }), 'delivered');
  t.like(system.registry.get('/h'), { restarting: true, mailboxDepth: 1, lastError: 'Error: store unreachable' });
  t.is(failures[0]?.phase, 'init');
  clock.advance(50);
  await waitFor(() => system.registry.get('/h')?.processed === 1);
  t.deepEqual(probe.last?.seen, ['early']);
});

test('runtime - a restart stops the children of the failed incarnation; stop takes the subtree', async (t) => {
  const { system } = quietSystem();
  t.teardown(() => system.stop());
  const { behavior } = fragile();
  const parent = spawn(system, 'p', behavior, { supervision: instant });
  tell(parent, { type: 'child', name: 'c1' });
  await waitFor(() => system.registry.get('/p/c1') !== undefined);
  const [c1] = children(parent);
  t.is(c1?.path, '/p/c1');
  tell(parent, { type: 'fail' });
  await waitFor(() => system.registry.get('/p')?.restarts === 1);
  t.is(system.registry.get('/p/c1'), undefined);
  tell(parent, { type: 'child', name: 'c2' });
  await waitFor(() => system.registry.get('/p/c2') !== undefined);
  stop(parent);
  t.is(system.registry.size, 0);
});
