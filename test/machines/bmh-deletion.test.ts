import test from 'ava';
import { initialState } from '../../src/machines/bmh/index.ts';
import { atState, calls, makeHost, settle, tick } from '../support/bmh.ts';

// reference/bmo.md §1.4: where a deleted host goes from each state.
const deleted = { deletionTimestamp: '2026-01-01T00:00:00Z' };

for (const state of ['unmanaged', 'registering'] as const) {
  test(`bmh - deleting a host in ${state} goes straight to deleting`, (t) => {
    const s = tick(atState(state, deleted));
    t.is(s.state.host.status.provisioning.state, 'deleting');
    t.deepEqual(calls(s.effects).map((c) => c.op), ['delete']);
  });
}

test('bmh - deleting a brand-new host goes straight to deleting', (t) => {
  const s = tick(initialState(makeHost(deleted)));
  t.is(s.state.host.status.provisioning.state, 'deleting');
});

for (const state of ['provisioning', 'provisioned'] as const) {
  test(`bmh - deleting a host in ${state} deprovisions it first`, (t) => {
    const s = tick(atState(state, deleted));
    t.is(s.state.host.status.provisioning.state, 'deprovisioning');
    t.deepEqual(s.effects.filter((e) => e.type === 'requestSlot').length, 1);
  });
}

for (const state of ['inspecting', 'preparing', 'available', 'externally provisioned', 'match profile'] as const) {
  test(`bmh - deleting a host in ${state} powers it off first`, (t) => {
    const s = tick(atState(state, deleted));
    t.is(s.state.host.status.provisioning.state, 'powering off before delete');
    t.deepEqual(calls(s.effects), [{ op: 'powerOff', mode: 'hard', force: true }]);
  });
}

test('bmh - deleting a detached host skips deprovisioning and power-off', (t) => {
  const s = tick(atState('provisioned', { ...deleted, annotations: { 'baremetalhost.metal3.io/detached': '' }, status: { operationalStatus: 'detached' } }));
  t.is(s.state.host.status.provisioning.state, 'deleting');
});

test('bmh - a detached host with deleteAction delay is not deleted until re-attached', (t) => {
  const s = tick(atState('provisioned', { ...deleted, annotations: { 'baremetalhost.metal3.io/detached': '{"deleteAction":"delay"}' }, status: { operationalStatus: 'detached' } }));
  t.is(s.state.host.status.provisioning.state, 'provisioned');
  t.deepEqual(calls(s.effects), []);
});

test('bmh - a host without our finalizer is gone on deletion without backend calls', (t) => {
  const s = tick(atState('available', { ...deleted, finalizers: [] }));
  t.true(s.state.gone);
  t.deepEqual(calls(s.effects), []);
});

test('bmh - a host is given the finalizer on first sight', (t) => {
  const s = tick(initialState(makeHost({ finalizers: [] })));
  t.true(s.effects.some((e) => e.type === 'addFinalizer' && e.finalizer === 'baremetalhost.metal3.io'));
});

test('bmh - full deletion from provisioned deprovisions, powers off, deletes and removes the finalizer', (t) => {
  const { last, all } = settle(tick(atState('provisioned', deleted)));
  t.true(last.state.gone);
  t.deepEqual(all.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), ['deprovision', 'powerOff', 'delete']);
  t.is(all.filter((e) => e.type === 'removeFinalizer').length, 1);
});
