// The one Turn every kind's step extends (src/machines/turn.ts): one "dirty" rule, BMO's Dirty(),
// decides whether a step writes status; one requeue per step, the soonest asked for.
import test from 'ava';
import { MachineTurn, statusDiffers } from '../../src/machines/turn.ts';
import type { TurnEffect } from '../../src/machines/turn.ts';

type Status = { ready: boolean; conditions?: Array<{ type: string; status: string }>; note?: string };
type State = { readonly status: Status; readonly n: number };

class ToyTurn extends MachineTurn<State, TurnEffect<Status>, Status> {
  protected statusOf(state: State): Status {
    return state.status;
  }
}

const before: State = { status: { ready: false, conditions: [{ type: 'Ready', status: 'False' }] }, n: 0 };
const types = (t: ToyTurn): string[] => t.finish().effects.map((e) => e.type);

test('turn - a status set again to equal data, in another key order or with an undefined field, is not written', (t) => {
  const turn = new ToyTurn(before, 0);
  turn.s.status = { conditions: [{ status: 'False', type: 'Ready' }], note: undefined, ready: false };
  t.false(turn.dirty);
  t.deepEqual(types(turn), []);
});

test('turn - a changed status is written once, as the step leaves it', (t) => {
  const turn = new ToyTurn(before, 0);
  turn.s.status = { ...turn.s.status, ready: true };
  turn.s.status = { ...turn.s.status, note: 'deployed' };
  t.true(turn.dirty);
  const { effects } = turn.finish();
  t.deepEqual(effects, [{ type: 'writeStatus', status: { ready: true, conditions: [{ type: 'Ready', status: 'False' }], note: 'deployed' } }]);
});

test('turn - of several requeues one stands, the soonest, after the status write', (t) => {
  const turn = new ToyTurn(before, 0);
  turn.requeue(5_000);
  turn.event('Normal', 'Looked', 'looked at MAAS');
  turn.requeue(1_000.4);
  turn.s.status = { ready: true };
  t.deepEqual(turn.finish().effects, [
    { type: 'event', severity: 'Normal', reason: 'Looked', message: 'looked at MAAS' },
    { type: 'writeStatus', status: { ready: true } },
    { type: 'requeue', afterMs: 1_000 },
  ]);
});

test('turn - the rule the status writer asks of the store is the same', (t) => {
  t.false(statusDiffers({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1, c: undefined }));
  t.true(statusDiffers({ a: 1 }, { a: 2 }));
});
