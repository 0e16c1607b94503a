// tellExpress: an idle receiver runs its turn in the same task as the tell, ahead of everything
// nact holds for the iteration; a busy or restarting receiver still takes messages one turn at a
// time, in order, and a crash in an express turn is supervised like any other.
import test from 'ava';
import { spawn, startSystem, stop, tell, tellExpress, tellFirst, tellUrgent } from '../../src/actors/runtime/index.ts';
import type { ActorRef, Behavior } from '../../src/actors/runtime/index.ts';
import { SLICE_MS } from '../../src/actors/runtime/receive.ts';
import { waitFor } from '../support/wait.ts';

type Note = { n: number };

const recorder = (seen: number[], opts: { crashOn?: number; slow?: () => Promise<void> } = {}): Behavior<number, Note> => ({
  kind: 'recorder',
  init: () => 0,
  async receive(count, msg) {
    if (msg.n === opts.crashOn) throw new Error(`boom at ${msg.n}`);
    seen.push(msg.n);
    if (opts.slow) await opts.slow();
    return count + 1;
  },
});

/** A recorder whose first message waits at a gate until release(); counts turns that overlap. */
function gatedRecorder(): { seen: number[]; release: () => void; overlaps: { count: number; inFlight: number; gate: Promise<void> } } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { seen: [], release, overlaps: { count: 0, inFlight: 0, gate } };
}

function gatedBehavior(seen: number[], o: { count: number; inFlight: number; gate: Promise<void> }): Behavior<number, Note> {
  return recorder(seen, {
    slow: async () => {
      if (++o.inFlight > 1) o.count++;
      if (seen.length === 1) await o.gate;
      o.inFlight--;
    },
  });
}

test('express - an idle actor runs the message before the next task', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  const ref = spawn(sys, 'r', recorder(seen));
  const order: string[] = [];
  setImmediate(() => order.push(`immediate saw ${seen.length}`));
  t.is(tellExpress(ref, { n: 1 }), 'delivered');
  // Not synchronously: the turn never runs inside the caller's own code.
  t.deepEqual(seen, []);
  await Promise.resolve();
  await Promise.resolve();
  t.deepEqual(seen, [1], 'ran in a microtask of the telling task');
  await new Promise((r) => setImmediate(r));
  t.deepEqual(order, ['immediate saw 1']);
});

test('express - a plain tell to the same idle actor waits for nact\'s next iteration', async (t) => {
  // The contrast that makes the lane worth having.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  const ref = spawn(sys, 'r', recorder(seen));
  tell(ref, { n: 1 });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  t.deepEqual(seen, []);
  await waitFor(() => seen.length === 1);
});

test('express - a busy actor gets the message after what it is doing, in mailbox order', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const { seen, release, overlaps } = gatedRecorder();
  const ref = spawn(sys, 'r', gatedBehavior(seen, overlaps));
  tellExpress(ref, { n: 1 });
  await waitFor(() => seen.length === 1);
  // n=1 is awaiting the gate: these queue behind it, express or not.
  tell(ref, { n: 2 });
  tellExpress(ref, { n: 3 });
  tellExpress(ref, { n: 4 });
  await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, [1], 'nothing ran beside the awaited handler');
  release();
  await waitFor(() => seen.length === 4);
  t.deepEqual(seen, [1, 2, 3, 4]);
  t.is(overlaps.count, 0, 'never two turns of one actor at once');
});

test('express - an actor whose turn waits in nact behind others runs now, and its waiting turn finds nothing left', async (t) => {
  // A broker with acquires queued while a thousand hosts start up: the release must not wait.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const order: string[] = [];
  const others = Array.from({ length: 50 }, (_, i) => spawn(sys, `o${i}`, {
    kind: 'other',
    init: () => null,
    receive(s: null) {
      order.push('other');
      return s;
    },
  } satisfies Behavior<null, Note>));
  const seen: number[] = [];
  const broker = spawn(sys, 'broker', {
    kind: 'broker',
    init: () => 0,
    receive(count: number, msg: Note) {
      seen.push(msg.n);
      order.push(`broker ${msg.n}`);
      return count + 1;
    },
  } satisfies Behavior<number, Note>);
  for (const o of others) tell(o, { n: 0 });
  tell(broker, { n: 1 });
  t.is(tellExpress(broker, { n: 2 }), 'delivered');
  await Promise.resolve();
  t.deepEqual(seen, [1, 2], 'both ran in the telling task, in mailbox order');
  await waitFor(() => order.filter((o) => o === 'other').length === 50);
  t.deepEqual(order.slice(0, 2), ['broker 1', 'broker 2'], 'ahead of the turns queued before');
  // The token nact held ran an empty turn; later messages still arrive, once each.
  tell(broker, { n: 3 });
  tellExpress(broker, { n: 4 });
  await waitFor(() => seen.length === 4);
  await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, [1, 2, 3, 4]);
});

test('express - a token nact runs while an express turn awaits its handler waits for that turn', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const { seen, release, overlaps } = gatedRecorder();
  const ref = spawn(sys, 'r', gatedBehavior(seen, overlaps));
  tell(ref, { n: 1 });          // a token in nact
  tellExpress(ref, { n: 2 });   // runs now, takes 1 and stops at the gate
  tell(ref, { n: 3 });
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, [1], 'the token did not start a turn beside the awaiting one');
  release();
  await waitFor(() => seen.length === 3);
  t.deepEqual(seen, [1, 2, 3]);
  t.is(overlaps.count, 0);
});

// Serial: the hog holds the loop, which would disturb the other tests' timing.
test.serial('express - a turn parked past the slice waits for an express turn that took the actor meanwhile', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const { seen, release, overlaps } = gatedRecorder();
  const ref = spawn(sys, 'r', gatedBehavior(seen, overlaps));
  // A hog uses up the slice, so r's token is parked until the next iteration; an immediate
  // queued by the hog runs first there and sends r an express message.
  const hog = spawn(sys, 'hog', {
    kind: 'hog',
    init: () => null,
    receive(st: null) {
      const until = performance.now() + SLICE_MS + 10;
      while (performance.now() < until) { /* hold the loop */ }
      setImmediate(() => tellExpress(ref, { n: 2 }));
      return st;
    },
  } satisfies Behavior<null, Note>);
  tell(hog, { n: 0 });
  tell(ref, { n: 1 });
  await waitFor(() => seen.length === 1);
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, [1], 'the resumed turn did not run beside the awaiting express turn');
  release();
  await waitFor(() => seen.length === 2);
  t.deepEqual(seen, [1, 2]);
  t.is(overlaps.count, 0);
});

test('express - a chain of express hops completes in one task', async (t) => {
  // The capacity hand-off: a release to the broker, a grant from it to the next host.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  type HostMsg = { type: 'grant' };
  type BrokerMsg = { type: 'release'; next: ActorRef<HostMsg> };
  const granted: string[] = [];
  const host = (name: string): Behavior<null, HostMsg> => ({
    kind: 'host',
    init: () => null,
    receive(s) {
      granted.push(name);
      return s;
    },
  });
  const b = spawn(sys, 'broker', {
    kind: 'broker',
    init: () => null,
    receive(s: null, msg: BrokerMsg) {
      tellExpress(msg.next, { type: 'grant' });
      return s;
    },
  } satisfies Behavior<null, BrokerMsg>);
  const hosts = Array.from({ length: 20 }, (_, i) => spawn(sys, `h${i}`, host(`h${i}`)));
  let sawBeforeImmediate = -1;
  setImmediate(() => (sawBeforeImmediate = granted.length));
  for (const next of hosts) tellExpress(b, { type: 'release', next });
  await waitFor(() => sawBeforeImmediate >= 0);
  t.is(sawBeforeImmediate, 20, 'every grant landed before the next task');
  t.deepEqual(granted, hosts.map((_, i) => `h${i}`), 'in release order');
});

test('express - a crash in an express turn restarts after backoff; later messages wait for it', async (t) => {
  const crashes: string[] = [];
  const sys = startSystem({ onError: (f) => crashes.push(f.path) });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  let inits = 0;
  const behavior: Behavior<number, Note> = { ...recorder(seen, { crashOn: 1 }), init: () => (inits++, 0) };
  const ref = spawn(sys, 'r', behavior, { supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 300, maxMs: 300 } } });
  const crashedAt = performance.now();
  tellExpress(ref, { n: 1 });
  await waitFor(() => crashes.length === 1);
  // During the backoff: neither lane may run a turn on the crashed incarnation.
  tellExpress(ref, { n: 2 });
  tell(ref, { n: 3 });
  await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, []);
  await waitFor(() => seen.length === 2);
  t.true(performance.now() - crashedAt >= 290, 'the backoff was waited out');
  t.is(inits, 2, 'a new incarnation took the messages');
  t.deepEqual(seen, [2, 3]);
});

test('express - a stopped or forged receiver is dead, and nothing runs', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  const ref = spawn(sys, 'r', recorder(seen));
  t.is(tellExpress({ path: '/r' } as unknown as ActorRef<Note>, { n: 0 }), 'dead');
  stop(ref);
  t.is(tellExpress(ref, { n: 1 }), 'dead');
  await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, []);
});

test('express - tellFirst jumps the queue of a busy actor: it is the next message taken', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const g = gatedRecorder();
  const ref = spawn(sys, 'r', gatedBehavior(g.seen, g.overlaps));
  tell(ref, { n: 1 });
  await waitFor(() => g.seen.length === 1, 2_000, 'first message in its turn');
  for (let n = 2; n <= 5; n++) tell(ref, { n });
  t.is(tellFirst(ref, { n: 99 }), 'delivered');
  g.release();
  await waitFor(() => g.seen.length === 6, 2_000, 'all taken');
  t.deepEqual(g.seen, [1, 99, 2, 3, 4, 5]);
  t.is(g.overlaps.count, 0, 'still one message at a time');
});

/** A behavior whose one turn holds the loop past the slice, then runs `after` (still in its turn). */
function hogBehavior(after: () => void): Behavior<null, Note> {
  return {
    kind: 'hog',
    init: () => null,
    receive(st) {
      const until = performance.now() + SLICE_MS + 10;
      while (performance.now() < until) { /* hold the loop */ }
      after();
      return st;
    },
  };
}

const named = (seen: string[], name: string): Behavior<null, Note> => ({
  kind: 'named',
  init: () => null,
  receive(st) {
    seen.push(name);
    return st;
  },
});

// Serial: the hogs hold the loop.
test.serial('express - an urgent message runs in the telling task even once the slice is spent; an express one waits for the next iteration', async (t) => {
  // A slot freed in the timers phase after a full slice of host turns: its hand-off must not wait
  // behind the next slice.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: string[] = [];
  const plain = spawn(sys, 'plain', named(seen, 'express'));
  const urgent = spawn(sys, 'urgent', named(seen, 'urgent'));
  const first = spawn(sys, 'first', named(seen, 'first'));
  let atNextTask: string[] | null = null;
  const hog = spawn(sys, 'hog', hogBehavior(() => {
    setImmediate(() => (atNextTask = [...seen]));
    tellExpress(plain, { n: 1 });
    tellUrgent(urgent, { n: 2 });
    tellFirst(first, { n: 3 });
  }));
  tell(hog, { n: 0 });
  await waitFor(() => seen.length === 3);
  t.deepEqual(atNextTask, ['urgent', 'first'], 'the urgent ones ran before the next task; the express one after');
});

test('express - an urgent message told while a system actor awaits is taken by that turn, past its budget, with what is queued ahead of it', async (t) => {
  // The broker awaiting its KV write when a release arrives: through nact the release would wait
  // for the next iteration, behind a slice of host turns.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const g = gatedRecorder();
  const ref = spawn(sys, 'broker', gatedBehavior(g.seen, g.overlaps), { priority: 'system' });
  tellExpress(ref, { n: 1 });
  await waitFor(() => g.seen.length === 1);
  // The turn began with one message: its budget is spent once 1 is done.
  tell(ref, { n: 2 });
  tellUrgent(ref, { n: 3 });
  let atNextTask: number[] | null = null;
  setImmediate(() => (atNextTask = [...g.seen]));
  g.release();
  await waitFor(() => atNextTask !== null);
  t.deepEqual(atNextTask, [1, 2, 3], 'taken in the same turn, in mailbox order');
  // Without the urgent one, a message told meanwhile waits for a turn of its own.
  const h = gatedRecorder();
  const other = spawn(sys, 'other', gatedBehavior(h.seen, h.overlaps), { priority: 'system' });
  tellExpress(other, { n: 1 });
  await waitFor(() => h.seen.length === 1);
  tell(other, { n: 2 });
  let plainAtNextTask: number[] | null = null;
  setImmediate(() => (plainAtNextTask = [...h.seen]));
  h.release();
  await waitFor(() => h.seen.length === 2);
  t.deepEqual(plainAtNextTask, [1]);
  t.is(g.overlaps.count + h.overlaps.count, 0);
});

// Serial: the hog holds the loop.
test.serial('express - a parked turn that tells urgent lets that run before the rest of the parked turns', async (t) => {
  // A host resumed from the parked queue asks for a free slot: its acquire (and the grant) must not
  // wait for every other parked host of the slice.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: string[] = [];
  const urgent = spawn(sys, 'urgent', named(seen, 'urgent'));
  const asker = spawn(sys, 'p0', {
    kind: 'asker',
    init: () => null,
    receive(st: null) {
      seen.push('p0');
      tellUrgent(urgent, { n: 1 });
      return st;
    },
  } satisfies Behavior<null, Note>);
  const rest = Array.from({ length: 5 }, (_, i) => spawn(sys, `p${i + 1}`, named(seen, `p${i + 1}`)));
  const hog = spawn(sys, 'hog', hogBehavior(() => undefined));
  tell(hog, { n: 0 });
  // Told after the hog: their turns find the slice spent and are parked, in this order.
  tell(asker, { n: 0 });
  for (const r of rest) tell(r, { n: 0 });
  await waitFor(() => seen.length === 7);
  t.deepEqual(seen, ['p0', 'urgent', 'p1', 'p2', 'p3', 'p4', 'p5']);
});
