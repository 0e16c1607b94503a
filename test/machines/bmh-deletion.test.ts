import test from 'ava';
import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { BmhState } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, makeHost, observe, reply, settle, T0, tick, types, withHost } from '../support/bmh.ts';

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
  test(`bmh - deleting a host in ${state} deprovisions it first, once a deprovisioning slot is free (BMO's capacity check)`, (t) => {
    const s = tick(atState(state, deleted));
    t.is(s.state.host.status.provisioning.state, state);
    t.deepEqual(s.effects.filter((e) => e.type === 'requestSlot').length, 1);
    const delayed = step(s.state, { type: 'slotQueued', position: 1 }, T0);
    t.is(delayed.state.host.status.operationalStatus, 'delayed');
    const granted = grant(delayed.state);
    t.is(granted.state.host.status.provisioning.state, 'deprovisioning');
    t.deepEqual(calls(granted.effects).map((c) => c.op), ['deprovision']);
  });
}

for (const state of ['inspecting', 'preparing', 'available', 'externally provisioned', 'match profile'] as const) {
  test(`bmh - deleting a host in ${state} powers it off first`, (t) => {
    const s = tick(atState(state, deleted));
    t.is(s.state.host.status.provisioning.state, 'powering off before delete');
    // BMO's actionPowerOffBeforeDeleting: always hard, forced only after a power management error.
    t.deepEqual(calls(s.effects), [{ op: 'powerOff', mode: 'hard', force: false }]);
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

// Issue 14 point 1: deletion and detach as BMO orders them (host_state_machine.go).
const DETACHED = 'baremetalhost.metal3.io/detached';
const image = makeHost().spec.image;
const ops = (effects: Parameters<typeof calls>[0]) => calls(effects).map((c) => c.op);
const removals = (effects: Parameters<typeof calls>[0]) => effects.filter((e) => e.type === 'removeFinalizer').length;
const deletedHost = (s: BmhState) => withHost(s, (h) => ({ ...h, metadata: { ...h.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }));

test('bmh - BMO checkInitiateDelete (#3213): a deleted host with the detached annotation whose detach is pending is detached, never deprovisioned', (t) => {
  const s0 = tick(atState('provisioned', { ...deleted, annotations: { [DETACHED]: '' }, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image } } }));
  t.is(s0.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(calls(s0.effects), [{ op: 'detach', force: false }]);
  const s1 = reply(s0, done);
  t.true(s1.state.gone);
  t.is(removals(s1.effects), 1);
  t.deepEqual(calls(s1.effects), []);
});

test('bmh - BMO checkInitiateDelete: a delete arriving while a detach call is under way waits for the detach, then deletes without deprovisioning', (t) => {
  const s0 = tick(atState('provisioned', { annotations: { [DETACHED]: '{"force":true}' }, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image } } }));
  t.deepEqual(ops(s0.effects), ['detach']);
  const s1 = reply(s0, { kind: 'continuing', afterMs: 10_000 });
  // The delete wakes the host (as a watch event does BMO): it polls the detach, as a delete.
  const s2 = observe(s1.state, deletedHost(s1.state), T0 + 1_000);
  t.is(s2.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(calls(s2.effects), [{ op: 'detach', force: true }]);
  const s3 = reply(s2, { kind: 'continuing', afterMs: 10_000 }, T0 + 1_000);
  t.deepEqual(ops(s3.effects), []);
  t.deepEqual(ops(tick(s3.state, T0 + 5_000).effects), []);
  const s4 = tick(s3.state, T0 + 11_000);
  t.deepEqual(calls(s4.effects), [{ op: 'detach', force: true }]);
  const { last, all } = settle(s4, () => done, T0 + 11_000);
  t.true(last.state.gone);
  t.false(all.some((e) => e.type === 'call' && (e.args.op === 'deprovision' || e.args.op === 'powerOff')));
  t.is(removals(all), 1);
});

for (const result of [done, { kind: 'needsRegistration' } as const]) {
  test(`bmh - BMO actionDeleting: a detached host's finalizer goes once the backend says its record is gone (${result.kind})`, (t) => {
    const s0 = tick(atState('available', { ...deleted, annotations: { [DETACHED]: '' }, status: { operationalStatus: 'detached' } }));
    t.deepEqual(ops(s0.effects), ['delete']);
    const s1 = reply(s0, result);
    t.true(s1.state.gone);
    t.is(removals(s1.effects), 1);
  });
}

test('bmh - BMO delayDeleteForDetachedHost: detached in status without the annotation is re-attached (registered again), then deleted as an attached host', (t) => {
  const s0 = tick(atState('provisioned', { ...deleted, status: { operationalStatus: 'detached', poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image } } }));
  t.not(s0.state.host.status.operationalStatus, 'detached');
  t.is(s0.state.host.status.provisioning.state, 'provisioned');
  t.true(types(s0.effects).includes('requestSlot'));
  const s1 = grant(s0.state);
  t.is(s1.state.host.status.provisioning.state, 'deprovisioning');
  t.deepEqual(ops(s1.effects), ['register']);
  const { last, all } = settle(s1);
  t.true(last.state.gone);
  t.deepEqual(all.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), ['register', 'deprovision', 'powerOff', 'delete']);
});

test('bmh - BMO deleteAction delay: a deleted host is detached, then kept with its finalizer until the annotation goes, then re-attached and deleted', (t) => {
  const s0 = tick(atState('provisioned', { ...deleted, annotations: { [DETACHED]: '{"deleteAction":"delay"}' }, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image } } }));
  t.deepEqual(calls(s0.effects), [{ op: 'detach', force: false }]);
  const s1 = reply(s0, done);
  t.is(s1.state.host.status.operationalStatus, 'detached');
  t.is(s1.state.host.status.provisioning.state, 'provisioned');
  t.false(s1.state.gone);
  t.deepEqual(calls(tick(s1.state, T0 + 3_600_000).effects), []);
  // The annotation goes: re-attached (registered again), then deleted as an attached host.
  const s2 = observe(s1.state, withHost(s1.state, (h) => ({ ...h, metadata: { ...h.metadata, annotations: {} } })), T0 + 3_600_000);
  const s3 = grant(s2.state, T0 + 3_600_000);
  t.is(s3.state.host.status.provisioning.state, 'deprovisioning');
  t.deepEqual(ops(s3.effects), ['register']);
});

test('bmh - BMO checkDetachedHost: a detach error clears once the detached annotation is removed', (t) => {
  const s0 = tick(atState('provisioned', { annotations: { [DETACHED]: '' }, status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'n', image } } }));
  const s1 = reply(s0, { kind: 'failed', message: 'node is locked' });
  t.is(s1.state.host.status.errorType, 'detach error');
  const s2 = observe(s1.state, withHost(s1.state, (h) => ({ ...h, metadata: { ...h.metadata, annotations: {} } })), T0 + 1_000);
  t.is(s2.state.host.status.errorType, '');
  t.is(s2.state.host.status.errorCount, 0);
  t.is(s2.state.host.status.operationalStatus, 'OK');
  t.false(ops(s2.effects).includes('detach'));
});

// The known bug: deprovision → needs registration → deprovision, at once, for ever.
test('bmh - BMO ensureRegistered during deletion: a vanished node is registered again after a backoff, then the host is deprovisioned and deleted', (t) => {
  const s0 = grant(tick(atState('deprovisioning', deleted)).state);
  t.deepEqual(ops(s0.effects), ['deprovision']);
  const s1 = reply(s0, { kind: 'needsRegistration' });
  t.deepEqual(ops(s1.effects), []);
  const wait = s1.effects.find((e) => e.type === 'requeue');
  t.true(wait !== undefined && wait.type === 'requeue' && wait.afterMs >= 50);
  t.deepEqual(ops(tick(s1.state, T0 + 49).effects), []);
  const s2 = tick(s1.state, T0 + 50);
  t.deepEqual(calls(s2.effects), [{ op: 'register', restartOnFailure: false, credentialsChanged: false }]);
  const { last, all } = settle(s2, () => done, T0 + 50);
  t.true(last.state.gone);
  t.deepEqual(all.flatMap((e) => (e.type === 'call' ? [e.args.op] : [])), ['register', 'deprovision', 'powerOff', 'delete']);
});

for (const state of ['deprovisioning', 'powering off before delete'] as const) {
  test(`bmh - BMO checkInitiateDelete: registration failing more than 3 times during deletion (${state}) goes on to deleting without the backend`, (t) => {
    let s = tick(atState(state, deleted));
    if (state === 'deprovisioning') s = grant(s.state);
    s = reply(s, { kind: 'needsRegistration' });
    let now = T0;
    const registers: number[] = [];
    for (let i = 0; i < 10 && !s.state.host.status.provisioning.state.startsWith('deleting'); i++) {
      now = Math.max(now, s.state.retryAt ?? now);
      s = tick(s.state, now);
      if (ops(s.effects)[0] !== 'register') break;
      registers.push(now);
      s = reply(s, { kind: 'failed', message: 'BMC unreachable' }, now);
      t.true((s.state.retryAt ?? 0) > now, 'each registration failure backs off');
    }
    t.is(registers.length, 4);
    t.is(s.state.host.status.provisioning.state, 'deleting');
    t.deepEqual(ops(s.effects), ['delete']);
    t.true(reply(s, done, now).state.gone);
  });
}

test('bmh - BMO handleDeprovisioning: a vanished node whose credentials are missing goes straight to deleting', (t) => {
  const s0 = reply(grant(tick(atState('deprovisioning', deleted)).state), { kind: 'needsRegistration' });
  const s1 = tick(s0.state, T0 + 50);
  t.deepEqual(ops(s1.effects), ['register']);
  const s2 = reply(s1, { kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 10_000 }, T0 + 50);
  t.is(s2.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(ops(s2.effects), ['delete']);
});

test('bmh - BMO handlePoweringOffBeforeDelete: a registration that cannot work without a change (no retry) goes straight to deleting', (t) => {
  const s0 = reply(tick(atState('powering off before delete', deleted)), { kind: 'needsRegistration' });
  const s1 = tick(s0.state, T0 + 50);
  t.deepEqual(ops(s1.effects), ['register']);
  const s2 = reply(s1, { kind: 'failed', message: 'spec.bmc.address: unknown BMC type', retryAfterMs: null }, T0 + 50);
  t.is(s2.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(ops(s2.effects), ['delete']);
});

const giveUps = [
  { state: 'deprovisioning', op: 'deprovision', next: 'powering off before delete', nextOp: 'powerOff', rule: 'handleDeprovisioning' },
  { state: 'powering off before delete', op: 'powerOff', next: 'deleting', nextOp: 'delete', rule: 'handlePoweringOffBeforeDelete' },
] as const;
for (const g of giveUps) {
  test(`bmh - BMO ${g.rule} retryCount: ${g.op} failing more than 3 times during deletion goes on to ${g.next}, each retry after its backoff`, (t) => {
    const first = tick(atState(g.state, deleted));
    let s = g.state === 'deprovisioning' ? grant(first.state) : first;
    let now = T0;
    for (let i = 0; i < 4; i++) {
      t.deepEqual(ops(s.effects), [g.op]);
      s = reply(s, { kind: 'failed', message: 'BMC timeout' }, now);
      if (i === 3) break;
      const retryAt = s.state.retryAt ?? now;
      t.deepEqual(ops(tick(s.state, retryAt - 1).effects), []);
      now = retryAt;
      s = tick(s.state, now);
      if (g.state === 'deprovisioning') s = grant(s.state, now);
    }
    t.is(s.state.host.status.provisioning.state, g.next);
    t.deepEqual(ops(s.effects), [g.nextOp]);
  });
}

test('bmh - BMO actionDeprovisioning: a restarted deprovision the backend took clears the error, so failures keep counting and a deletion goes on after more than 3', (t) => {
  // Ironic's answer to a BMC that refuses the credentials: each teardown fails (provision state
  // `error`); a restart sends `deleted` again, which the provisioner reports as continuing.
  let s = grant(tick(atState('deprovisioning', deleted)).state);
  let now = T0;
  let failures = 0;
  for (let i = 0; i < 40 && s.state.host.status.provisioning.state === 'deprovisioning'; i++) {
    const call = calls(s.effects)[0];
    if (call === undefined) {
      now = Math.max(now + 1, s.state.retryAt ?? now);
      s = tick(s.state, now);
      if (s.effects.some((e) => e.type === 'requestSlot')) s = grant(s.state, now);
      continue;
    }
    t.is(call.op, 'deprovision');
    if (call.op !== 'deprovision') return;
    if (call.restartOnFailure) {
      s = reply(s, { kind: 'continuing', afterMs: 100 }, now);
      t.is(s.state.host.status.errorType, '', 'BMO clearError on a Dirty result');
      t.is(s.state.host.status.errorCount, failures, 'the count is kept');
    } else {
      failures++;
      s = reply(s, { kind: 'failed', message: 'deprovisioning failed: Failed to tear down: 401' }, now);
    }
  }
  t.is(failures, 4);
  t.is(s.state.host.status.provisioning.state, 'powering off before delete');
});

test('bmh - BMO actionPowerOffBeforeDeleting: the retry after a power-off failure is forced; its Dirty answer clears the error, the count kept, so failures keep counting to more than 3', (t) => {
  let s = tick(atState('powering off before delete', deleted));
  let now = T0;
  const forced: boolean[] = [];
  for (let i = 0; i < 40 && s.state.host.status.provisioning.state === 'powering off before delete'; i++) {
    const call = calls(s.effects)[0];
    if (call === undefined) {
      now = Math.max(now + 1, s.state.retryAt ?? now);
      s = tick(s.state, now);
      continue;
    }
    if (call.op !== 'powerOff') return t.fail(`unexpected ${call.op}`);
    forced.push(call.force);
    if (call.force) {
      // Ironic took the forced power-off (202); it fails in the background again.
      const count = s.state.host.status.errorCount;
      s = reply(s, { kind: 'continuing', afterMs: 3_000 }, now);
      t.is(s.state.host.status.errorType, '', 'BMO clearError on a Dirty result');
      t.is(s.state.host.status.operationalStatus, 'OK');
      t.is(s.state.host.status.errorCount, count, 'the count is kept');
    } else {
      s = reply(s, { kind: 'failed', message: 'Failed to change power state to power off' }, now);
    }
  }
  t.deepEqual(forced, [false, true, false, true, false, true, false]);
  t.is(s.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(ops(s.effects), ['delete']);
});

test('bmh - BMO handlePoweringOffBeforeDelete: a vanished node whose credentials Secret is gone goes straight to deleting', (t) => {
  const s0 = reply(tick(atState('powering off before delete', deleted)), { kind: 'needsRegistration' });
  const s1 = tick(s0.state, T0 + 50);
  t.deepEqual(ops(s1.effects), ['register']);
  const s2 = reply(s1, { kind: 'waitForSecret', secret: 'metal3/worker-0-bmc', field: 'spec.bmc.credentialsName', message: 'BMC credentials Secret metal3/worker-0-bmc not found', retryAfterMs: 10_000 }, T0 + 50);
  t.is(s2.state.host.status.provisioning.state, 'deleting');
  t.deepEqual(ops(s2.effects), ['delete']);
  t.true(reply(s2, done, T0 + 50).state.gone);
});
