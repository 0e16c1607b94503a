// A power action MAAS refuses (409, 403, 400) is not repeated on the view read before it: MAAS is
// read again first, as CAPMAAS's next reconcile reads the machine (findMachine) before it acts.
// "Can't start node: it hasn't been allocated." (capmaas.md §3.2) means the machine was released
// behind our back; powering it on again and again on the old view never shows that.
import test from 'ava';
import type { MaasMachineStep } from '../../src/machines/maas-machine/index.ts';
import { POWER_OFF_ANNOTATION } from '../../src/machines/maas-machine/index.ts';
import { T0, calls, condition, deploying, observe, reply, tick, view } from './maas-fixtures.ts';

const NOT_ALLOCATED = { kind: 'failed', reason: 'conflict', message: "POST /machines/abc123/op-power_on answered 409: Can't start node: it hasn't been allocated." } as const;

// A worker Deployed and on, then found off at the next steady poll: the power-on call is in flight.
function foundOff(): MaasMachineStep {
  const d = deploying();
  const ready = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  const poll = tick(ready.state, T0 + 70_000);
  return reply(poll, { kind: 'done', machine: view('Deployed', 'off') }, T0 + 70_000);
}

test('maas machine power hunt - a refused power-on reads MAAS again before anything else is asked', (t) => {
  const off = foundOff();
  t.deepEqual(calls(off), [{ op: 'powerOn', systemId: 'abc123' }]);
  const refused = reply(off, NOT_ALLOCATED, T0 + 70_000);
  t.deepEqual(calls(refused), []);
  const retryAt = refused.state.retryAt;
  t.truthy(retryAt);
  // Nothing before the backoff ends; then a read, not the same power-on on the old view.
  t.deepEqual(calls(tick(refused.state, (retryAt ?? 0) - 1)), []);
  t.deepEqual(calls(tick(refused.state, retryAt ?? 0)), [{ op: 'get', systemId: 'abc123' }]);
});

test('maas machine power hunt - the read after a refused power-on shows the machine released: it is terminated, not powered on for ever', (t) => {
  const refused = reply(foundOff(), NOT_ALLOCATED, T0 + 70_000);
  const at = refused.state.retryAt ?? 0;
  const released = reply(tick(refused.state, at), { kind: 'done', machine: { ...view('Ready', 'off'), ipAddresses: [] } }, at);
  t.is(released.state.phase, 'failed');
  t.is(released.state.status.machineState, 'Ready');
  t.is(released.state.status.failureReason, 'UpdateError');
  t.is(condition(released.state, 'MachineDeployed')?.reason, 'MachineTerminatedReason');
  t.deepEqual(calls(released), []);
});

test('maas machine power hunt - a machine still Deployed and off after the read is powered on again', (t) => {
  const refused = reply(foundOff(), { kind: 'failed', reason: 'forbidden', message: 'POST /machines/abc123/op-power_on answered 403' }, T0 + 70_000);
  const at = refused.state.retryAt ?? 0;
  const again = reply(tick(refused.state, at), { kind: 'done', machine: view('Deployed', 'off') }, at);
  t.deepEqual(calls(again), [{ op: 'powerOn', systemId: 'abc123' }]);
});

test('maas machine power hunt - a refused power-off asked by annotation reads MAAS again too', (t) => {
  const d = deploying();
  const ready = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  const annotated = { ...ready.state.object, metadata: { ...ready.state.object.metadata, annotations: { [POWER_OFF_ANNOTATION]: '' } } };
  const looked = observe(ready.state, annotated, ready.state.world, T0 + 11_000);
  t.deepEqual(calls(looked), [{ op: 'get', systemId: 'abc123' }]);
  const asked = reply(looked, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 11_000);
  t.deepEqual(calls(asked), [{ op: 'powerOff', systemId: 'abc123' }]);
  const refused = reply(asked, { kind: 'failed', reason: 'conflict', message: 'POST /machines/abc123/op-power_off answered 409' }, T0 + 11_000);
  const at = refused.state.retryAt ?? 0;
  t.deepEqual(calls(tick(refused.state, at)), [{ op: 'get', systemId: 'abc123' }]);
});
