// A BareMetalHost step copies the host and its status once, on its first status patch, and writes
// later patches into that copy (issue 30: a copy of both on every patch was 1.7% of the scale
// bench's CPU); the state the step started from keeps its own status, untouched.
import test from 'ava';
import { initialState } from '../../src/machines/bmh/index.ts';
import { Turn } from '../../src/machines/bmh/turn.ts';
import { makeHost, T0 } from '../support/bmh.ts';

test('bmh turn - patches after the first write into the step\'s own copy; the state it started from is untouched', (t) => {
  const before = initialState(makeHost());
  const held = structuredClone(before.host.status);
  const turn = new Turn(before, T0);

  turn.patchStatus({ errorMessage: 'one' });
  const copy = turn.status;
  t.not(copy, before.host.status);
  turn.patchStatus({ errorCount: 2 });
  turn.transition('registering', 'test');
  turn.patchProvisioning({ ID: 'node-1' });
  t.is(turn.status, copy, 'one copy a step');
  t.like(turn.status, { errorMessage: 'one', errorCount: 2, provisioning: { state: 'registering', ID: 'node-1' } });
  t.deepEqual(before.host.status, held, 'the state it started from keeps its status');

  // The step's result is its own: the next step copies again rather than writing into it.
  const { state } = turn.finish();
  const next = new Turn(state, T0 + 1000);
  const settled = structuredClone(state.host.status);
  next.patchStatus({ errorMessage: 'two' });
  t.not(next.status, state.host.status);
  t.deepEqual(state.host.status, settled);
});
