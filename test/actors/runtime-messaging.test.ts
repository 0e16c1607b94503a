import test from 'ava';
import { ActorStopped, AskTimeout, MailboxFull, ask, spawn, startSystem, stop, tell } from '../../src/actors/runtime/index.ts';
import type { ActorFailure, ActorRef, Behavior, Reply } from '../../src/actors/runtime/index.ts';
import { deferred, waitFor } from '../support/wait.ts';

type CounterMsg =
  | { type: 'add'; n: number }
  | { type: 'get'; reply: Reply<number> }
  | { type: 'ignore'; reply: Reply<number> }
  | { type: 'hold'; gate: Promise<void> };

const counter: Behavior<number, CounterMsg> = {
  kind: 'counter',
  init: () => 0,
  async receive(n, msg) {
    if (msg.type === 'add') return n + msg.n;
    if (msg.type === 'get') msg.reply(n);
    if (msg.type === 'hold') await msg.gate;
    return n;
  },
};

// Message constructors give ask both M and R with no annotation at the call.
const get = (reply: Reply<number>): CounterMsg => ({ type: 'get', reply });
const ignore = (reply: Reply<number>): CounterMsg => ({ type: 'ignore', reply });

const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

function system(name?: string) {
  const failures: ActorFailure[] = [];
  return { system: startSystem({ name, onError: (f) => failures.push(f) }), failures };
}

// Node reports an unhandled rejection after the microtask queue drains; two macrotask turns is ample.
const turns = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));

test('runtime - tell and ask round trip with typed messages', async (t) => {
  const { system: sys } = system();
  t.teardown(() => sys.stop());
  const ref = spawn(sys, 'counter', counter);
  t.is(tell(ref, { type: 'add', n: 2 }), 'delivered');
  t.is(tell(ref, { type: 'add', n: 3 }), 'delivered');
  t.is(await ask(ref, get, 1_000), 5);
  // Inline, R comes from the expected result and `as const` keeps the discriminant literal.
  const total: number = await ask(ref, (reply) => ({ type: 'get' as const, reply }), 1_000);
  t.is(total, 5);
  t.is(ref.path, '/counter');

  // @ts-expect-error a message the actor does not accept does not compile
  tell(ref, { type: 'nope' });
  type OtherMsg = { type: 'other' };
  // @ts-expect-error refs are branded by message type
  const other: ActorRef<OtherMsg> = ref;
  t.truthy(other);
});

test('runtime - ask timeout rejects with AskTimeout and leaves no unhandled rejection', async (t) => {
  const { system: sys } = system();
  t.teardown(() => sys.stop());
  const ref = spawn(sys, 'counter', counter);
  // Fire and forget: nobody ever handles this one.
  void ask(ref, ignore, 5);
  const error = await t.throwsAsync(ask(ref, ignore, 20), { instanceOf: AskTimeout });
  t.true(error?.retryable);
  t.is(error?.path, '/counter');
  await turns();
  t.deepEqual(unhandled, []);
});

test('runtime - ask to a stopped actor rejects with ActorStopped and tell says dead', async (t) => {
  const { system: sys } = system();
  t.teardown(() => sys.stop());
  const ref = spawn(sys, 'counter', counter);
  stop(ref);
  const error = await t.throwsAsync(ask(ref, get, 1_000), { instanceOf: ActorStopped });
  t.false(error?.retryable);
  t.is(tell(ref, { type: 'add', n: 1 }), 'dead');
  t.is(tell({ path: '/forged' } as unknown as typeof ref, { type: 'add', n: 1 }), 'dead');
});

test('runtime - asks pending when their actor stops reject with ActorStopped at once', async (t) => {
  const { system: sys } = system();
  t.teardown(() => sys.stop());
  const ref = spawn(sys, 'counter', counter);
  const first = ask(ref, ignore, 60_000);
  const answered = ask(ref, get, 60_000);
  const last = ask(ref, ignore, 60_000);
  await waitFor(() => sys.registry.get('/counter')?.processed === 3);
  t.is(await answered, 0);
  stop(ref);
  await t.throwsAsync(first, { instanceOf: ActorStopped });
  await t.throwsAsync(last, { instanceOf: ActorStopped });
});

test('runtime - ask on a full mailbox rejects with MailboxFull', async (t) => {
  const { system: sys } = system();
  t.teardown(() => sys.stop());
  const ref = spawn(sys, 'counter', counter, { mailbox: { capacity: 1 } });
  const gate = deferred();
  tell(ref, { type: 'hold', gate: gate.promise });
  await waitFor(() => sys.registry.get('/counter')?.busy === true);
  t.is(tell(ref, { type: 'add', n: 1 }), 'delivered');
  const error = await t.throwsAsync(ask(ref, get, 1_000), { instanceOf: MailboxFull });
  t.true(error?.retryable);
  gate.resolve();
  await waitFor(() => sys.registry.get('/counter')?.mailboxDepth === 0);
  t.is(await ask(ref, get, 1_000), 1);
});

test('runtime - messages to one actor run one at a time, in order, async handlers awaited', async (t) => {
  const { system: sys } = system();
  t.teardown(() => sys.stop());
  let running = 0;
  let overlap = false;
  const seen: number[] = [];
  const slow: Behavior<null, number> = {
    kind: 'slow',
    init: () => null,
    async receive(state, n) {
      running++;
      overlap ||= running > 1;
      await new Promise((r) => setTimeout(r, n % 3));
      seen.push(n);
      running--;
      return state;
    },
  };
  const ref = spawn(sys, 'slow', slow);
  for (let i = 0; i < 20; i++) tell(ref, i);
  await waitFor(() => seen.length === 20);
  t.false(overlap);
  t.deepEqual(seen, [...Array(20).keys()]);
});

test('runtime - two systems with the same name coexist', async (t) => {
  const a = system('node').system;
  const b = system('node').system;
  t.teardown(() => (a.stop(), b.stop()));
  t.not(a.id, b.id);
  const ra = spawn(a, 'counter', counter);
  const rb = spawn(b, 'counter', counter);
  tell(ra, { type: 'add', n: 1 });
  tell(rb, { type: 'add', n: 10 });
  t.is(await ask(ra, get, 1_000), 1);
  t.is(await ask(rb, get, 1_000), 10);
  a.stop();
  t.is(a.state, 'stopped');
  t.is(tell(ra, { type: 'add', n: 1 }), 'dead');
  t.is(await ask(rb, get, 1_000), 10);
});
