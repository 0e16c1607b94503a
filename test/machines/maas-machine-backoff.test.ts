import test from 'ava';
import type { MaasMachineStep } from '../../src/machines/maas-machine/index.ts';
import { calls, grant, maasMachine, noneEarlier, reply, start, tick, view, world } from './maas-fixtures.ts';

// CAPMAAS returns the error and controller-runtime backs off exponentially (capmaas.md §2.6).
// The look at MAAS that comes before each retry (what MAAS holds under our agent name, the
// machine's state) succeeds every time: it must not start the backoff over, or a MaasMachine
// nothing matches asks MAAS to allocate every backoffBaseMs for ever.

const base = { backoffBaseMs: 5_000, backoffMaxMs: 300_000 };

/** The delay before the next call: what drive() waits after a failure (retryAt). */
const waitOf = (st: MaasMachineStep, now: number): number => (st.state.retryAt ?? now) - now;

test('maas machine backoff - allocate refused again and again (409) waits longer each time', (t) => {
  let now = 0;
  let st = grant(noneEarlier(tick(start(maasMachine(), world(), base), now), now).state, now);
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    t.is(calls(st)[0]?.op, 'allocate');
    st = reply(st, { kind: 'failed', message: 'No available machine matches constraints', reason: 'noMatch' }, now);
    waits.push(waitOf(st, now));
    now = st.state.retryAt ?? now;
    // After the backoff: the look for an earlier allocation, then a slot, then allocate again.
    st = grant(noneEarlier(tick(st.state, now), now).state, now);
  }
  t.deepEqual(waits, [5_000, 10_000, 20_000, 40_000]);
});

test('maas machine backoff - a deploy MAAS keeps refusing waits longer each time, though the get before it succeeds', (t) => {
  let now = 0;
  const s1 = grant(noneEarlier(tick(start(maasMachine(), world(), { ...base, skipSwap: true }), now), now).state, now);
  let st = reply(s1, { kind: 'done', machine: view('Allocated', 'off') }, now);
  const waits: number[] = [];
  for (let i = 0; i < 3; i++) {
    t.is(calls(st)[0]?.op, 'deploy');
    st = reply(st, { kind: 'failed', message: "Can't deploy: bad series", reason: 'conflict' }, now);
    waits.push(waitOf(st, now));
    now = st.state.retryAt ?? now;
    st = grant(reply(tick(st.state, now), { kind: 'done', machine: view('Allocated', 'off') }, now).state, now);
  }
  t.deepEqual(waits, [5_000, 10_000, 20_000]);
});

test('maas machine backoff - a call that succeeds after failing starts the backoff over', (t) => {
  let now = 0;
  let st = grant(noneEarlier(tick(start(maasMachine(), world(), { ...base, skipSwap: true }), now), now).state, now);
  st = reply(st, { kind: 'failed', message: 'No available machine matches constraints', reason: 'noMatch' }, now);
  now = st.state.retryAt ?? now;
  st = grant(noneEarlier(tick(st.state, now), now).state, now);
  st = reply(st, { kind: 'done', machine: view('Allocated', 'off') }, now);
  t.is(st.state.attempts, 0);
  st = reply(st, { kind: 'failed', message: "Can't deploy: bad series", reason: 'conflict' }, now);
  t.is(waitOf(st, now), 5_000);
});
