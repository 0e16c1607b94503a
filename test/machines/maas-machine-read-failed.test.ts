import test from 'ava';
import { condition, deploying, reply, start, tick, view, T0 } from './maas-fixtures.ts';

// A read of MAAS that MAAS refuses for good (401: the API key is wrong; 403) is not retried into
// silence: CAPMAAS's findMachine marks MachineDeployed Unknown/MachineNotFound with the error
// (capmaas.md §2.3 step 5), so a user reading the MaasMachine sees why nothing moves.

const UNAUTHORIZED = 'GET /machines/: MAAS answered HTTP 401: Authorization Error: Invalid API key. (MAAS did not accept the API key or its signature: check MAAS_API_KEY, consumer_key:token_key:token_secret)';

test('maas machine read failed - a pending machine whose look at MAAS is refused (401) says so in MachineDeployed', (t) => {
  const st = reply(tick(start()), { kind: 'failed', message: UNAUTHORIZED });
  const c = condition(st.state, 'MachineDeployed');
  t.is(c?.reason, 'MachineNotFound');
  t.is(c?.status, 'Unknown');
  t.regex(c?.message ?? '', /401: Authorization Error: Invalid API key/);
  t.is(condition(st.state, 'Ready')?.status, 'Unknown');
  t.not(st.state.retryAt, null);
  t.is(st.state.phase, 'pending');
});

test('maas machine read failed - a deployed machine MAAS refuses to show (401) says so, and recovers on the next good read', (t) => {
  const d = deploying();
  const deployed = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  t.is(condition(deployed.state, 'MachineDeployed')?.status, 'True');
  const look = tick(deployed.state, T0 + 200_000);
  const refused = reply(look, { kind: 'failed', message: UNAUTHORIZED }, T0 + 200_000);
  t.is(condition(refused.state, 'MachineDeployed')?.reason, 'MachineNotFound');
  t.regex(condition(refused.state, 'MachineDeployed')?.message ?? '', /Invalid API key/);
  t.is(refused.state.phase, 'deployed');
  const at = refused.state.retryAt ?? 0;
  const back = reply(tick(refused.state, at), { kind: 'done', machine: view('Deployed', 'on') }, at);
  t.is(condition(back.state, 'MachineDeployed')?.status, 'True');
});

test('maas machine read failed - a transient failure (MAAS down) leaves the conditions as they were', (t) => {
  const st = reply(tick(start()), { kind: 'transient', message: 'cannot reach MAAS' });
  t.is(condition(st.state, 'MachineDeployed')?.reason, 'MachineDeployStartedReason');
  t.not(st.state.retryAt, null);
});
