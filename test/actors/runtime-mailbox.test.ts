import test from 'ava';
import { spawn, startSystem, tell } from '../../src/actors/runtime/index.ts';
import type { ActorSystem, Behavior } from '../../src/actors/runtime/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

type Msg = { type: 'hold'; gate: Promise<void> } | { type: 'note'; n: number };

function recorder() {
  const seen: number[] = [];
  const behavior: Behavior<null, Msg> = {
    kind: 'recorder',
    init: () => null,
    async receive(state, msg) {
      if (msg.type === 'hold') await msg.gate;
      else seen.push(msg.n);
      return state;
    },
  };
  return { seen, behavior };
}

/** An actor stuck in its first handler until the gate opens, so tells pile up in its mailbox. */
async function blocked(system: ActorSystem, behavior: Behavior<null, Msg>, mailbox: { capacity: number; overflow?: 'reject' | 'drop-oldest' }) {
  const gate = deferred();
  const ref = spawn(system, 'r', behavior, { mailbox });
  tell(ref, { type: 'hold', gate: gate.promise });
  await waitFor(() => system.registry.get('/r')?.busy === true);
  return { ref, open: () => gate.resolve() };
}

test('runtime - a full mailbox (capacity 3, reject) answers overflow and counts the drop', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const { seen, behavior } = recorder();
  const { ref, open } = await blocked(system, behavior, { capacity: 3 });
  const outcomes = [1, 2, 3, 4, 5].map((n) => tell(ref, { type: 'note', n }));
  t.deepEqual(outcomes, ['delivered', 'delivered', 'delivered', 'overflow', 'overflow']);
  t.like(system.registry.get('/r'), { mailboxDepth: 3, highWater: 3, dropped: 2, busy: true });
  open();
  await waitFor(() => seen.length === 3);
  t.deepEqual(seen, [1, 2, 3]);
  t.like(system.registry.get('/r'), { mailboxDepth: 0, highWater: 3, dropped: 2, processed: 4, busy: false });
});

test('runtime - drop-oldest keeps the newest messages in order', async (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const { seen, behavior } = recorder();
  const { ref, open } = await blocked(system, behavior, { capacity: 3, overflow: 'drop-oldest' });
  const outcomes = [1, 2, 3, 4, 5].map((n) => tell(ref, { type: 'note', n }));
  t.deepEqual(outcomes, ['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
  t.like(system.registry.get('/r'), { mailboxDepth: 3, highWater: 3, dropped: 2 });
  open();
  await waitFor(() => system.registry.get('/r')?.processed === 4);
  t.deepEqual(seen, [3, 4, 5]);
  tell(ref, { type: 'note', n: 6 });
  await waitFor(() => seen.length === 4);
  t.deepEqual(seen, [3, 4, 5, 6]);
});

test('runtime - mailbox options are checked at spawn', (t) => {
  const system = startSystem({ onError: () => {} });
  t.teardown(() => system.stop());
  const { behavior } = recorder();
  t.throws(() => spawn(system, 'r', behavior, { mailbox: { capacity: 0 } }), { instanceOf: RangeError });
  t.is(system.registry.size, 0);
});
