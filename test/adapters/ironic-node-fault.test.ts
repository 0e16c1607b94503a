import test from 'ava';
import { provisionArgs, provisionerOnNode as withNode, stubHost as host } from '../support/ironic-node-stub.ts';
import { invoke } from '../../src/ports/index.ts';
import { step } from '../../src/machines/bmh/index.ts';
import type { Step } from '../../src/machines/bmh/index.ts';
import { atState, calls, lastCall, makeHost, T0, tick } from '../support/bmh.ts';

// Ironic's last_error and fault reach the host's error message (status.errorMessage is the
// failed result's message: machines/bmh results.ts onFailed → recordError).

const noRaid = { target: null, actual: null };

test('ironic fault - a failed deployment carries last_error and the fault', async (t) => {
  const { p } = withNode({ provision_state: 'deploy failed', last_error: 'Agent returned error for deploy step', fault: null });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'failed', message: 'deployment failed: Agent returned error for deploy step' });
  const faulted = withNode({ provision_state: 'deploy failed', last_error: 'Timeout reached', fault: 'power failure' });
  t.deepEqual(await faulted.p.provision(host(), provisionArgs), { kind: 'failed', message: 'deployment failed: Timeout reached (Ironic fault: power failure)' });
});

test('ironic fault - failed cleaning, inspection, adoption and deprovisioning say Ironic fault and reason', async (t) => {
  const clean = withNode({ provision_state: 'clean failed', maintenance: true, last_error: 'Clean step failed', fault: 'clean failure' });
  t.deepEqual(await clean.p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: noRaid }), { kind: 'failed', message: 'cleaning failed: Clean step failed (Ironic fault: clean failure)' });
  t.deepEqual(await clean.p.deprovision(host(), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true }), { kind: 'failed', message: 'cleaning failed: Clean step failed (Ironic fault: clean failure)' });
  const inspect = withNode({ provision_state: 'inspect failed', last_error: null, fault: null });
  t.deepEqual(await inspect.p.inspect(host(), { op: 'inspect', restartOnFailure: false, refresh: false }), { kind: 'failed', message: 'inspection failed: Ironic gave no reason' });
  const adopt = withNode({ provision_state: 'adopt failed', last_error: 'no image', fault: 'rescue abort failure' });
  t.deepEqual(await adopt.p.adopt(host(), { op: 'adopt', restartOnFailure: false }), { kind: 'failed', message: 'Host adoption failed: no image (Ironic fault: rescue abort failure)' });
  const error = withNode({ provision_state: 'error', last_error: 'Failed to tear down', fault: 'service failure' });
  t.deepEqual(await error.p.deprovision(host(), { op: 'deprovision', restartOnFailure: false, automatedCleaning: true }), { kind: 'failed', message: 'deprovisioning failed: Failed to tear down (Ironic fault: service failure)' });
});

test('ironic fault - a retry after failed cleaning clears the maintenance Ironic set with the fault', async (t) => {
  const { p, writes } = withNode({ provision_state: 'clean failed', maintenance: true, last_error: 'x', fault: 'clean failure' });
  t.deepEqual(await p.prepare(host(), { op: 'prepare', restartOnFailure: true, raid: noRaid }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['unsetMaintenance []', 'setProvisionState ["manage"]']);
});

test('ironic fault - a node Ironic holds with a fault is not moved, and the status says why', async (t) => {
  const { p, writes } = withNode({ provision_state: 'available', maintenance: true, maintenance_reason: 'Power sync failed 3 times', fault: 'power failure' });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'failed', message: 'Ironic holds node ns~h1 in maintenance with fault "power failure": Power sync failed 3 times; retrying once Ironic clears it', retryAfterMs: 10 });
  t.deepEqual(await p.inspect(host(), { op: 'inspect', restartOnFailure: false, refresh: false }), { kind: 'failed', message: 'Ironic holds node ns~h1 in maintenance with fault "power failure": Power sync failed 3 times; retrying once Ironic clears it', retryAfterMs: 10 });
  t.deepEqual(writes, []);
  const manageable = withNode({ provision_state: 'manageable', maintenance: true, fault: 'power failure' });
  const r = await manageable.p.provision(host(), provisionArgs);
  t.is(r.kind, 'failed');
  t.deepEqual(manageable.writes, []);
  // The power poll reports it for the Manageable condition, as before.
  const power = await manageable.p.hardwareState(host(), { op: 'hardwareState' });
  t.like(power, { kind: 'done', hints: { powerFailure: true } });
});

test('ironic fault - an active node with a fault is still deployed', async (t) => {
  const { p, writes } = withNode({ provision_state: 'active', power_state: 'power on', maintenance: true, fault: 'power failure' });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'done', poweredOn: true });
  t.deepEqual(writes, []);
});

// Issue 31.4: BMO's Adopt on every steady-state pass is what shows a node stuck in "adopt failed";
// here the power read tells it, the machine adopts, and the failure lands in status as BMO's.
test('ironic adopt failed - a provisioned host whose node failed adoption shows a provisioned registration error with BMO\'s message, counted once, and no write to Ironic', async (t) => {
  const { p, writes } = withNode({ provision_state: 'adopt failed', power_state: 'power on', last_error: 'Failed to adopt: image source missing', fault: null });
  const image = makeHost().spec.image;
  let s: Step = tick({ ...atState('provisioned', { status: { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image } } }), powerCheckAt: null });
  const ops: string[] = [];
  for (let call = lastCall(s); call; call = lastCall(s)) {
    ops.push(call.args.op);
    s = step(s.state, { type: 'result', seq: call.seq, result: await invoke(p, host(), call.args), jitter: 0 }, T0);
  }
  t.deepEqual(ops, ['hardwareState', 'adopt']);
  const status = s.state.host.status;
  t.is(status.provisioning.state, 'provisioned');
  t.is(status.operationalStatus, 'error');
  t.is(status.errorType, 'provisioned registration error');
  t.is(status.errorMessage, 'Host adoption failed: Failed to adopt: image source missing');
  t.is(status.errorCount, 1);
  t.deepEqual(writes, [], 'without restartOnFailure nothing is asked of Ironic');
  // After the backoff the retry restarts the adoption, as BMO's Adopt(restartOnFailure).
  const retry = tick(s.state, T0 + 2 * 60_000);
  t.deepEqual(calls(retry.effects), [{ op: 'adopt', restartOnFailure: true }]);
  t.deepEqual(await invoke(p, host(), { op: 'adopt', restartOnFailure: true }), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['setProvisionState ["adopt"]']);
});
