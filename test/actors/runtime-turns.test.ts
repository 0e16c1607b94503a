// A turn runs what an actor has queued, up to a bound, instead of one message per event-loop
// iteration; a busy actor still yields to the others, and a crash mid-turn loses only its message.
import test from 'ava';
import { spawn, startSystem, tell } from '../../src/actors/runtime/index.ts';
import type { ActorRef, Behavior } from '../../src/actors/runtime/index.ts';
import { SLICE_MS, SYSTEM_TURN_MS, THROUGHPUT } from '../../src/actors/runtime/receive.ts';
import { waitFor } from '../support/wait.ts';

/** Counts event-loop iterations (check phases) until stopped. */
function loopCounter(): { readonly count: number; stop(): void } {
  let count = 0;
  let running = true;
  const tick = (): void => {
    count++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { get count() { return count; }, stop: () => { running = false; } };
}

type Note = { n: number };
const recorder = (seen: number[], crashOn = -1, after = (): void => undefined): Behavior<number, Note> => ({
  kind: 'recorder',
  init: () => 0,
  receive(count, msg) {
    if (msg.n === crashOn) throw new Error(`boom at ${msg.n}`);
    seen.push(msg.n);
    after();
    return count + 1;
  },
});

test('runtime - messages queued together run in a few turns, not one event-loop iteration each', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  const N = THROUGHPUT * 4;
  const loops = loopCounter();
  let doneAt = -1;
  const ref = spawn(sys, 'r', recorder(seen, -1, () => {
    if (seen.length === N) doneAt = loops.count;
  }));
  const start = loops.count;
  for (let n = 0; n < N; n++) tell(ref, { n });
  await waitFor(() => seen.length === N);
  loops.stop();
  const iterations = doneAt - start;
  t.deepEqual(seen, Array.from({ length: N }, (_, n) => n), 'in order');
  // One message per iteration took N; a turn of THROUGHPUT takes N / THROUGHPUT (and slack).
  t.true(iterations <= N / THROUGHPUT + 3, `${iterations} event-loop iterations for ${N} messages`);
});

test('runtime - a chain of hops through a busy actor costs a turn per hop, not per queued message', async (t) => {
  // The capacity hand-off: hosts report to a broker that answers each; 50 hosts at once.
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  type HostMsg = { type: 'grant' };
  type BrokerMsg = { type: 'release'; from: ActorRef<HostMsg> };
  const loops = loopCounter();
  let granted = 0;
  let doneAt = -1;
  const host: Behavior<null, HostMsg> = {
    kind: 'host',
    init: () => null,
    receive(s) {
      if (++granted === 50) doneAt = loops.count;
      return s;
    },
  };
  const broker: Behavior<null, BrokerMsg> = {
    kind: 'broker',
    init: () => null,
    receive(s, msg) {
      tell(msg.from, { type: 'grant' });
      return s;
    },
  };
  const b = spawn(sys, 'broker', broker);
  const hosts = Array.from({ length: 50 }, (_, i) => spawn(sys, `h${i}`, host));
  const start = loops.count;
  for (const h of hosts) tell(b, { type: 'release', from: h });
  await waitFor(() => granted === 50);
  loops.stop();
  const iterations = doneAt - start;
  t.true(iterations <= 4, `${iterations} event-loop iterations for 50 release-grant round trips`);
});

test('runtime - an actor with a long queue yields: another actor told later runs before it is done', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  const other: number[] = [];
  const busy = spawn(sys, 'busy', recorder(seen));
  const quiet = spawn(sys, 'quiet', recorder(other));
  const N = THROUGHPUT * 20;
  for (let n = 0; n < N; n++) tell(busy, { n });
  tell(quiet, { n: 1 });
  await waitFor(() => other.length === 1);
  t.true(seen.length < N, `the busy actor had run ${seen.length} of ${N} when the other ran`);
  await waitFor(() => seen.length === N);
});

test('runtime - a crash in the middle of a turn drops that message only; the rest run after the restart', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const seen: number[] = [];
  const ref = spawn(sys, 'r', recorder(seen, 5), { supervision: { backoff: { initialMs: 1, maxMs: 1 } } });
  for (let n = 0; n < 10; n++) tell(ref, { n });
  await waitFor(() => seen.length === 9);
  t.deepEqual(seen, [0, 1, 2, 3, 4, 6, 7, 8, 9]);
});

/** An actor whose every turn takes `eachMs` of real CPU, then calls `after` with its turn count. */
function busyFor(eachMs: number, after: (turns: number) => void, kind = 'busy'): Behavior<null, Note> {
  let turns = 0;
  return {
    kind,
    init: () => null,
    receive(s) {
      const until = performance.now() + eachMs;
      while (performance.now() < until) { /* a turn that really takes the CPU */ }
      after(++turns);
      return s;
    },
  };
}

test('runtime - turns yield to timers once an iteration has run them for SLICE_MS', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const each = Math.ceil(SLICE_MS / 10);
  let ran = 0;
  // Forty actors ready at once, each turn busy for SLICE_MS / 10: four slices of work.
  // The timer is set during the first turn: it can fire only once the loop leaves this iteration.
  const busy = (): Behavior<null, Note> => busyFor(each, () => { if (++ran === 1) setTimeout(() => (ranWhenTimerFired = ran), 0); });
  const refs = Array.from({ length: 40 }, (_, i) => spawn(sys, `b${i}`, busy()));
  let ranWhenTimerFired = -1;
  for (const ref of refs) tell(ref, { n: 0 });
  await waitFor(() => ran === 40 && ranWhenTimerFired !== -1, 10_000);
  t.true(ranWhenTimerFired >= 1 && ranWhenTimerFired < 40, `a 0 ms timer fired after ${ranWhenTimerFired} of 40 turns`);
});

test('runtime - a system actor is not parked behind a slice of busy host turns, and takes its whole backlog in a turn', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  const each = Math.ceil(SLICE_MS / 10);
  let hostTurns = 0;
  const busy = (): Behavior<null, Note> => busyFor(each, () => void hostTurns++);
  const seen: number[] = [];
  let hostTurnsWhenServed = -1;
  const broker = spawn(sys, 'broker', recorder(seen, -1, () => { if (hostTurnsWhenServed < 0) hostTurnsWhenServed = hostTurns; }), { priority: 'system' });
  const normal: number[] = [];
  let hostTurnsWhenNormalServed = -1;
  const plain = spawn(sys, 'plain', recorder(normal, -1, () => { if (hostTurnsWhenNormalServed < 0) hostTurnsWhenNormalServed = hostTurns; }));
  // Eighty busy turns: eight slices. Both actors are told after them, in the same instant.
  const refs = Array.from({ length: 80 }, (_, i) => spawn(sys, `h${i}`, busy()));
  for (const ref of refs) tell(ref, { n: 0 });
  const N = THROUGHPUT * 10;
  for (let i = 0; i < N; i++) {
    tell(broker, { n: i });
    tell(plain, { n: i });
  }
  await waitFor(() => seen.length === N && normal.length === N && hostTurns === 80, 20_000);
  // The plain actor waits for its place behind the parked hosts; the system one does not.
  t.true(hostTurnsWhenServed < 20, `the system actor first ran after ${hostTurnsWhenServed} of 80 host turns`);
  t.true(hostTurnsWhenNormalServed > hostTurnsWhenServed, `plain first ran after ${hostTurnsWhenNormalServed} host turns, system after ${hostTurnsWhenServed}`);
  t.deepEqual(seen, Array.from({ length: N }, (_, i) => i));
});

test('runtime - a system actor\'s turn yields to timers after SYSTEM_TURN_MS, however long its backlog', async (t) => {
  const sys = startSystem({ onError: () => undefined });
  t.teardown(() => sys.stop());
  let ran = 0;
  let ranWhenTimerFired = -1;
  // 2 ms of CPU per message.
  const busy = busyFor(2, (turns) => { ran = turns; if (turns === 1) setTimeout(() => (ranWhenTimerFired = ran), 0); }, 'busy-system');
  const ref = spawn(sys, 'broker', busy, { priority: 'system' });
  const N = Math.ceil((SYSTEM_TURN_MS * 4) / 2);
  for (let i = 0; i < N; i++) tell(ref, { n: i });
  await waitFor(() => ran === N && ranWhenTimerFired !== -1, 20_000);
  // One turn of N messages would hold the loop for 4 x SYSTEM_TURN_MS before the timer could fire.
  t.true(ranWhenTimerFired < N, `a 0 ms timer fired after ${ranWhenTimerFired} of ${N} messages`);
});
