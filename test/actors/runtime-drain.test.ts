import test from 'ava';
import { ActorStopped, ask, drainActor, isAlive, spawn, startSystem, tell } from '../../src/actors/runtime/index.ts';
import type { Behavior, Reply } from '../../src/actors/runtime/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

type Msg = { type: 'hold'; gate: Promise<void> } | { type: 'note'; n: number } | { type: 'get'; reply: Reply<number[]> };

const get = (reply: Reply<number[]>): Msg => ({ type: 'get', reply });

function recorder() {
  const stopped: number[][] = [];
  const behavior: Behavior<number[], Msg> = {
    kind: 'recorder',
    init: () => [],
    async receive(seen, msg) {
      if (msg.type === 'hold') await msg.gate;
      if (msg.type === 'note') return [...seen, msg.n];
      if (msg.type === 'get') msg.reply(seen);
      return seen;
    },
    onStop: (seen) => void stopped.push(seen),
  };
  return { stopped, behavior };
}

test('runtime - drain runs queued messages before stopping, and tells after it are dead', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const { stopped, behavior } = recorder();
  const a = spawn(system, 'a', behavior);
  const b = spawn(system, 'b', behavior);
  const gate = deferred();
  tell(a, { type: 'hold', gate: gate.promise });
  for (let n = 1; n <= 5; n++) tell(a, { type: 'note', n });
  tell(b, { type: 'note', n: 9 });
  const draining = system.drain(5_000);
  t.is(system.state, 'draining');
  t.is(tell(a, { type: 'note', n: 6 }), 'dead');
  await t.throwsAsync(ask(b, get, 1_000), { instanceOf: ActorStopped });
  t.is(system.drain(1), draining, 'idempotent');
  gate.resolve();
  t.deepEqual(await draining, { drained: 7, abandoned: 0 });
  t.deepEqual(stopped.sort((x, y) => x.length - y.length), [[9], [1, 2, 3, 4, 5]]);
  t.is(system.state, 'stopped');
  t.is(system.registry.size, 0);
  t.is(tell(b, { type: 'note', n: 1 }), 'dead');
});

test('runtime - drain abandons what is left at the deadline and still stops everything', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const { stopped, behavior } = recorder();
  const a = spawn(system, 'a', behavior);
  tell(a, { type: 'note', n: 1 });
  tell(a, { type: 'hold', gate: new Promise<void>(() => {}) });
  tell(a, { type: 'note', n: 2 });
  tell(a, { type: 'note', n: 3 });
  await waitFor(() => system.registry.get('/a')?.busy === true);
  t.deepEqual(await system.drain(30), { drained: 0, abandoned: 3 });
  t.deepEqual(stopped, [[1]]);
  t.false(isAlive(a));
});

test('runtime - stop during a drain settles the drain', async (t) => {
  const system = startSystem({ onError: () => {} });
  const { behavior } = recorder();
  const a = spawn(system, 'a', behavior);
  tell(a, { type: 'hold', gate: new Promise<void>(() => {}) });
  await waitFor(() => system.registry.get('/a')?.busy === true);
  const draining = system.drain(60_000);
  system.stop();
  t.deepEqual(await draining, { drained: 0, abandoned: 1 });
  t.is(system.state, 'stopped');
});

test('runtime - drainActor drains one subtree and leaves the rest running', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const { stopped, behavior } = recorder();
  const shard = spawn(system, 'shard-1', behavior);
  const host = spawn(shard, 'host-a', behavior);
  const other = spawn(system, 'shard-2', behavior);
  const gate = deferred();
  tell(host, { type: 'hold', gate: gate.promise });
  tell(host, { type: 'note', n: 1 });
  const draining = drainActor(shard, 5_000);
  t.is(tell(host, { type: 'note', n: 2 }), 'dead');
  t.is(tell(other, { type: 'note', n: 7 }), 'delivered');
  gate.resolve();
  t.deepEqual(await draining, { drained: 2, abandoned: 0 });
  t.deepEqual(stopped, [[1], []], 'children stop before their parent');
  t.deepEqual(system.registry.list().map((s) => s.path), ['/shard-2']);
  t.deepEqual(await ask(other, get, 1_000), [7]);
});
