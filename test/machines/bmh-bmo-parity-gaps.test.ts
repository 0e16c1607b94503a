import test from 'ava';
import { step } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, BmhState, CredentialsUsed, Step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, grant, lastCall, makeHost, observe, reply, settle, T0, tick, withHost } from '../support/bmh.ts';

// Issue 31 part 4: the last gaps found running BMO's own host_state_machine_test.go cases
// (baremetal-operator 02aa5059) through the machine. Each title names the BMO case it follows.

const image = makeHost().spec.image;
const events = (effects: readonly BmhEffect[]) => effects.flatMap((e) => (e.type === 'event' ? [e.reason] : []));
const creds = (name: string, version: string): CredentialsUsed => ({ name, namespace: 'metal3', version });
const recorded = (name: string, version: string) => ({ credentials: { name, namespace: 'metal3' }, credentialsVersion: version });

function answer(s: Step, result: Parameters<typeof reply>[1], credentials?: CredentialsUsed, now = T0): Step {
  const call = lastCall(s);
  if (!call) throw new Error('no call');
  return step(s.state, { type: 'result', seq: call.seq, result, jitter: 0, ...(credentials ? { credentials } : {}) }, now);
}

// ---- a failed adoption surfaces -------------------------------------------------------------

test('BMO TestErrorCountIncreasedOnActionFailure provisioned-adopt-failed: a provisioned host restored with a provisioned registration error adopts again (restartOnFailure) and clears it', (t) => {
  const base: BmhState = atState('provisioned', { status: { poweredOn: true, operationalStatus: 'error', errorType: 'provisioned registration error', errorMessage: 'Host adoption failed: no image', errorCount: 1, provisioning: { state: 'provisioned', ID: 'node-1', image } } });
  // BMO's actionManageSteadyState calls Adopt on every pass, with restartOnFailure while the
  // status says the last one failed; a host taken over (restart, new owner) is no different.
  const s0 = tick(base);
  t.deepEqual(calls(s0.effects), [{ op: 'adopt', restartOnFailure: true }]);
  const again = reply(s0, { kind: 'failed', message: 'Host adoption failed: still no image' });
  t.is(again.state.host.status.errorType, 'provisioned registration error');
  t.is(again.state.host.status.errorCount, 2);
  t.is(again.state.host.status.errorMessage, 'Host adoption failed: still no image');
  t.is(again.state.host.status.provisioning.state, 'provisioned');
  const retry = tick(again.state, T0 + 4 * 60_000);
  t.deepEqual(calls(retry.effects), [{ op: 'adopt', restartOnFailure: true }]);
  const ok = reply(retry, done, T0 + 4 * 60_000);
  t.is(ok.state.host.status.errorType, '');
  t.is(ok.state.host.status.operationalStatus, 'OK');
  // Then the steady state goes on with its power read, as BMO's manageHostPower after Adopt.
  t.deepEqual(calls(ok.effects), [{ op: 'hardwareState' }]);
});

test('BMO TestErrorCountIncreasedOnActionFailure externally-provisioned-adopt-failed: the power read finding the node not deployed adopts, and the failure is a provisioned registration error counted once', (t) => {
  const base = atState('externally provisioned', { spec: { externallyProvisioned: true }, status: { poweredOn: true, provisioning: { state: 'externally provisioned', ID: 'node-1' } } });
  const read = tick({ ...base, powerCheckAt: null });
  t.deepEqual(calls(read.effects), [{ op: 'hardwareState' }]);
  const adopt = reply(read, { kind: 'done', poweredOn: true, deployed: false });
  t.deepEqual(calls(adopt.effects), [{ op: 'adopt', restartOnFailure: false }]);
  const failed = reply(adopt, { kind: 'failed', message: 'Host adoption failed: some error' });
  const status = failed.state.host.status;
  t.is(status.provisioning.state, 'externally provisioned');
  t.is(status.operationalStatus, 'error');
  t.is(status.errorType, 'provisioned registration error');
  t.is(status.errorMessage, 'Host adoption failed: some error');
  t.is(status.errorCount, 1);
  t.true(events(failed.effects).includes('ProvisionedRegistrationError'));
});

// ---- leaving registering --------------------------------------------------------------------

for (const [scenario, spec, next] of [
  ['registering-to-inspecting', {}, 'inspecting'],
  ['registering-to-preparing', { inspectionMode: 'disabled' }, 'preparing'],
  ['registering-to-externally-provisioned', { externallyProvisioned: true }, 'externally provisioned'],
] as const) {
  test(`BMO TestErrorCountClearedOnStateTransition ${scenario}: leaving registering clears errorCount (BMO's clearError keeps it; handleRegistering zeroes it)`, (t) => {
    // Credentials already validated (goodCredentials matches), no errorType: nothing but the
    // state handler clears the count BMO's earlier attempts left.
    const base = atState('registering', { spec, status: { errorCount: 1, goodCredentials: recorded('worker-0-bmc', '1'), triedCredentials: recorded('worker-0-bmc', '1') } });
    const registered = answer(tick(base), done, creds('worker-0-bmc', '1'));
    const left = registered.effects.some((e) => e.type === 'requestSlot') ? grant(registered.state) : registered;
    t.is(left.state.host.status.provisioning.state, next);
    t.is(left.state.host.status.errorCount, 0);
  });
}

// ---- another credentials Secret -------------------------------------------------------------

test('BMO ensureRegistered (GoodCredentials.Match): pointing spec.bmc.credentialsName at another Secret registers the provisioned host again with it, which stays provisioned', (t) => {
  const base = atState('provisioned', { status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image }, goodCredentials: recorded('worker-0-bmc', '1'), triedCredentials: recorded('worker-0-bmc', '1') } });
  const moved = observe(base, withHost(base, (h) => ({ ...h, metadata: { ...h.metadata, generation: 2 }, spec: { ...h.spec, bmc: { ...h.spec.bmc!, credentialsName: 'worker-0-bmc-rotated' } } })));
  t.deepEqual(calls(moved.effects), [{ op: 'register', restartOnFailure: false, credentialsChanged: false }]);
  const registered = answer(moved, done, creds('worker-0-bmc-rotated', '7'));
  t.deepEqual(registered.state.host.status.goodCredentials, recorded('worker-0-bmc-rotated', '7'));
  t.deepEqual(registered.state.host.status.triedCredentials, recorded('worker-0-bmc-rotated', '7'));
  t.true(events(registered.effects).includes('BMCAccessValidated'));
  const { last, all } = settle(registered);
  t.is(last.state.host.status.provisioning.state, 'provisioned');
  t.false(all.some((e) => e.type === 'call' && (e.args.op === 'register' || e.args.op === 'deprovision' || e.args.op === 'provision')), 'registered once, nothing redeployed');
});

test('BMO TestErrorClean clean-after-creds-change: an available host with an inspection error registers with the new Secret and the error clears', (t) => {
  const base = atState('available', { status: { operationalStatus: 'error', errorType: 'inspection error', errorMessage: 'some error', errorCount: 1, goodCredentials: recorded('worker-0-bmc', '1'), triedCredentials: recorded('worker-0-bmc', '1') } });
  const moved = observe(base, withHost(base, (h) => ({ ...h, spec: { ...h.spec, bmc: { ...h.spec.bmc!, credentialsName: 'new-creds' } } })), T0 + 1_000);
  t.deepEqual(calls(moved.effects).map((c) => c.op), ['register']);
  const registered = answer(moved, done, creds('new-creds', '3'), T0 + 1_000);
  t.is(registered.state.host.status.errorType, '');
  t.is(registered.state.host.status.operationalStatus, 'OK');
  t.is(registered.state.host.status.errorMessage, '');
});

test('BMO ensureRegistered: a host taken over whose goodCredentials name another Secret than its spec registers once; one whose Secret matches does not', (t) => {
  const stale = atState('provisioned', { status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image }, goodCredentials: recorded('old-bmc', '4') } });
  t.deepEqual(calls(tick(stale).effects).map((c) => c.op), ['register']);
  const current = atState('provisioned', { status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image }, goodCredentials: recorded('worker-0-bmc', '4') } });
  t.deepEqual(calls(tick({ ...current, powerCheckAt: null }).effects).map((c) => c.op), ['hardwareState']);
});
