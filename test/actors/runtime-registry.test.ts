import test from 'ava';
import { ActorStopped, SpawnFailed, children, lookup, spawn, startSystem, stop, tell } from '../../src/actors/runtime/index.ts';
import type { ActorFailure, Behavior } from '../../src/actors/runtime/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

type Msg = { type: 'hold'; gate: Promise<void> } | { type: 'inc' } | { type: 'fail' };

const tally: Behavior<{ count: number }, Msg> = {
  kind: 'tally',
  init: () => ({ count: 0 }),
  async receive(state, msg) {
    if (msg.type === 'fail') throw new TypeError('bad input');
    if (msg.type === 'hold') await msg.gate;
    return { count: state.count + 1 };
  },
  describe: (state) => ({ count: state.count }),
};

test('runtime - the registry reports processed, depth, restarts, lastError and busy', async (t) => {
  let now = 5_000;
  const clock = { now: () => now, setTimeout: (fn: () => void) => setTimeout(fn, 0), clearTimeout: (h: object | number) => clearTimeout(h as NodeJS.Timeout) };
  const system = startSystem({ clock, onError: () => {} });
  t.teardown(() => system.stop());
  const parent = spawn(system, 'shard-1', tally);
  const ref = spawn(parent, 'host-a', tally);
  t.like(system.registry.get('/shard-1/host-a'), {
    path: '/shard-1/host-a', name: 'host-a', kind: 'tally', parent: '/shard-1', mailboxDepth: 0, highWater: 0,
    processed: 0, restarts: 0, lastError: null, lastErrorAt: null, busy: false, dropped: 0, startedAt: 5_000, summary: { count: 0 },
  });
  tell(ref, { type: 'inc' });
  now = 6_000;
  tell(ref, { type: 'fail' });
  await waitFor(() => system.registry.get('/shard-1/host-a')?.processed === 2);
  const gate = deferred();
  tell(ref, { type: 'hold', gate: gate.promise });
  tell(ref, { type: 'inc' });
  tell(ref, { type: 'inc' });
  await waitFor(() => system.registry.get('/shard-1/host-a')?.busy === true);
  t.like(system.registry.get('/shard-1/host-a'), {
    processed: 2, mailboxDepth: 2, highWater: 3, restarts: 1, lastError: 'TypeError: bad input', lastErrorAt: 6_000, busy: true,
    summary: { count: 0 },
  });
  gate.resolve();
  await waitFor(() => system.registry.get('/shard-1/host-a')?.processed === 5);
  t.like(system.registry.get('/shard-1/host-a'), { mailboxDepth: 0, busy: false, summary: { count: 3 } });
  t.is(system.registry.size, 2);
  t.deepEqual(system.registry.list({ prefix: '/shard-1/' }).map((s) => s.path), ['/shard-1/host-a']);
  t.is(system.registry.list({ summary: false })[0]?.summary, undefined);
});

test('runtime - a throwing describe is reported and the summary left out', (t) => {
  const failures: ActorFailure[] = [];
  const system = startSystem({ onError: (f) => failures.push(f) });
  t.teardown(() => system.stop());
  spawn(system, 'x', { ...tally, describe: () => { throw new Error('no summary'); } });
  t.is(system.registry.get('/x')?.summary, undefined);
  t.deepEqual(failures.map((f) => f.phase), ['describe']);
});

test('runtime - stopped actors leave the registry with their children; lookup and children follow', (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const shard = spawn(system, 'shard-1', tally);
  spawn(shard, 'host-a', tally);
  spawn(shard, 'host-b', tally);
  t.deepEqual(children(shard).map((r) => r.path), ['/shard-1/host-a', '/shard-1/host-b']);
  t.deepEqual(children(system).map((r) => r.path), ['/shard-1']);
  const host = lookup<Msg>(system, '/shard-1/host-b');
  t.is(host?.path, '/shard-1/host-b');
  if (host) stop(host);
  t.deepEqual(system.registry.list().map((s) => s.path), ['/shard-1', '/shard-1/host-a']);
  stop(shard);
  t.is(system.registry.size, 0);
  t.is(lookup(system, '/shard-1/host-a'), undefined);
});

test('runtime - spawn refuses a taken path, a bad name and a stopped parent', (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const shard = spawn(system, 'shard-1', tally);
  t.throws(() => spawn(system, 'shard-1', tally), { instanceOf: SpawnFailed });
  t.throws(() => spawn(system, 'a/b', tally), { instanceOf: SpawnFailed });
  t.throws(() => spawn(system, '', tally), { instanceOf: SpawnFailed });
  stop(shard);
  t.throws(() => spawn(shard, 'host-a', tally), { instanceOf: ActorStopped });
  spawn(system, 'shard-1', tally);
  t.is(system.registry.size, 1);
});
