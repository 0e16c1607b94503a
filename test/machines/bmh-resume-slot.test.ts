import test from 'ava';
import type { BmhEffect, OpResult } from '../../src/machines/bmh/index.ts';
import { atState, done, grant, reply, T0, tick } from '../support/bmh.ts';

// A host observed already inside an operation (its shard's new owner, a restart) was admitted
// before: its first slot request carries since when the operation runs, so the capacity queue
// finishes admitted work before it starts new work (a NATS restart had such hosts wait behind
// every new request although their deploy had finished at the backend).

const requests = (effects: readonly BmhEffect[]) => effects.filter((e): e is Extract<BmhEffect, { type: 'requestSlot' }> => e.type === 'requestSlot');
const STARTED = T0 - 90_000;

test('bmh resume - a host found provisioning asks for its slot since its provisioning began', (t) => {
  const s = tick(atState('provisioning', { status: { operationHistory: { provision: { start: new Date(STARTED).toISOString() } } } }), T0);
  t.deepEqual(requests(s.effects), [{ type: 'requestSlot', op: 'provision', since: STARTED }]);
});

test('bmh resume - only the first request says since; a later request of this actor queues from now', (t) => {
  const first = tick(atState('provisioning', { status: { operationHistory: { provision: { start: new Date(STARTED).toISOString() } } } }), T0);
  t.is(requests(first.effects)[0]?.since, STARTED);
  // Granted, then the provisioning fails: deprovisioning is work of this actor's own.
  const granted = grant(first.state, T0);
  const failed = reply(granted, { kind: 'failed', message: 'deploy failed' } as OpResult, T0 + 10);
  const again = tick(failed.state, T0 + 3_600_000);
  const asked = requests(again.effects);
  t.deepEqual(asked.map((r) => r.op), ['deprovision'], 'asked again once');
  t.is(asked[0]?.since, undefined);
});

test('bmh resume - a host whose operation history is not recorded asks as any other', (t) => {
  const s = tick(atState('provisioning'), T0);
  t.deepEqual(requests(s.effects), [{ type: 'requestSlot', op: 'provision' }]);
});

test('bmh resume - a host that enters provisioning under this actor asks from now', (t) => {
  const ready = tick(atState('available', { status: { operationHistory: { provision: { start: new Date(STARTED).toISOString() } } } }), T0);
  const granted = grant(ready.state, T0);
  const s = reply(granted, done, T0 + 5);
  t.true(requests([...ready.effects, ...s.effects]).every((r) => r.since === undefined));
});
