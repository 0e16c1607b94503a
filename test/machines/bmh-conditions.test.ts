// status.conditions as BMO's computeConditions sets them (baremetalhost_controller.go), through
// the pure function and through the machine's step.
import test from 'ava';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { BareMetalHostStatus, Condition, ProvisioningState } from '../../src/api/index.ts';
import { computeConditions, conditionsComputed, initialState, NO_BACKEND_HINTS, step } from '../../src/machines/bmh/index.ts';
import type { BackendHints, BmhState } from '../../src/machines/bmh/index.ts';
import { atState, lastCall, makeHost, T0, tick, types } from '../support/bmh.ts';

type Host = BmhState['host'];
type Brief = Record<string, string>;

function hostAt(state: ProvisioningState, status: Partial<BareMetalHostStatus> = {}, generation = 1): Host {
  const host = makeHost({ status: { provisioning: { state, ID: 'node-1' }, ...status } });
  return { ...host, metadata: { ...host.metadata, generation }, status: host.status as BareMetalHostStatus };
}

// "Type=Status/Reason" per condition, in list order.
function brief(list: readonly Condition[] | undefined): Brief {
  return Object.fromEntries((list ?? []).map((c) => [c.type, `${c.status}/${c.reason ?? ''}`]));
}

function of(state: ProvisioningState, status: Partial<BareMetalHostStatus> = {}, hints: BackendHints = NO_BACKEND_HINTS): Brief {
  return brief(computeConditions(hostAt(state, status), T0, hints));
}

const PROGRESSING = (reason: string): Brief => ({
  Manageable: 'True/Manageable', AvailableForProvisioning: 'False/NotAvailable', Provisioned: 'False/NotProvisioned',
  Ready: 'False/NotProvisioned', Progressing: `True/${reason}`, Healthy: 'Unknown/Unknown',
});

test('conditions - StateNone and StateUnmanaged: not managed, nothing available, provisioned, ready or progressing (BMO computeConditions)', (t) => {
  for (const state of ['', 'unmanaged'] as const) {
    t.deepEqual(of(state), {
      Manageable: 'False/NotManaged', AvailableForProvisioning: 'False/NotAvailable', Provisioned: 'False/NotProvisioned',
      Ready: 'False/NotProvisioned', Progressing: 'False/NotProgressing', Healthy: 'Unknown/Unknown',
    }, state || 'none');
  }
});

test('conditions - StateRegistering: Manageable False Registering, or RegistrationFailed when the operational status is error; Progressing True Registering', (t) => {
  t.deepEqual(of('registering'), { ...PROGRESSING('Registering'), Manageable: 'False/Registering' });
  t.deepEqual(of('registering', { operationalStatus: 'error', errorType: 'registration error' }), { ...PROGRESSING('Registering'), Manageable: 'False/RegistrationFailed', Ready: 'False/Error' });
});

test('conditions - setConditionsProgressing: preparing, provisioning, deprovisioning, inspecting, match profile, powering off before delete and deleting are Progressing True with their reason', (t) => {
  const table: Array<[ProvisioningState, string]> = [
    ['preparing', 'Preparing'], ['provisioning', 'Provisioning'], ['deprovisioning', 'Deprovisioning'], ['inspecting', 'Inspecting'],
    ['match profile', 'Inspecting'], ['powering off before delete', 'PoweringOffBeforeDelete'], ['deleting', 'Deleting'],
  ];
  for (const [state, reason] of table) t.deepEqual(of(state), PROGRESSING(reason), state);
});

test('conditions - StateReady and StateAvailable: Manageable and AvailableForProvisioning True, not provisioned, not progressing', (t) => {
  for (const state of ['ready', 'available'] as const) {
    t.deepEqual(of(state), {
      Manageable: 'True/Manageable', AvailableForProvisioning: 'True/Available', Provisioned: 'False/NotProvisioned',
      Ready: 'False/NotProvisioned', Progressing: 'False/NotProgressing', Healthy: 'Unknown/Unknown',
    }, state);
  }
});

test('conditions - StateProvisioned and StateExternallyProvisioned: Provisioned and Ready True Provisioned', (t) => {
  for (const state of ['provisioned', 'externally provisioned'] as const) {
    t.deepEqual(of(state), {
      Manageable: 'True/Manageable', AvailableForProvisioning: 'False/NotAvailable', Provisioned: 'True/Provisioned',
      Ready: 'True/Provisioned', Progressing: 'False/NotProgressing', Healthy: 'Unknown/Unknown',
    }, state);
  }
});

test('conditions - OperationalStatusError and OperationalStatusServicing override Ready (False Error / False Servicing)', (t) => {
  t.is(of('provisioned', { operationalStatus: 'error', errorType: 'power management error' })['Ready'], 'False/Error');
  t.is(of('available', { operationalStatus: 'error', errorType: 'preparation error' })['Ready'], 'False/Error');
  t.is(of('provisioned', { operationalStatus: 'servicing' })['Ready'], 'False/Servicing');
  // The override touches Ready only.
  t.is(of('provisioned', { operationalStatus: 'error', errorType: 'power management error' })['Provisioned'], 'True/Provisioned');
});

test('conditions - OperationalStatusDetached overrides Ready and Progressing with Detached and skips the power-failure check', (t) => {
  const detached = of('provisioned', { operationalStatus: 'detached' }, { powerFailure: true, health: '' });
  t.is(detached['Ready'], 'False/Detached');
  t.is(detached['Progressing'], 'False/Detached');
  t.is(detached['Manageable'], 'True/Manageable');
});

test('conditions - HasPowerFailure makes Manageable False PowerFailure, except in none, unmanaged, registering and deleting', (t) => {
  const failing: BackendHints = { powerFailure: true, health: '' };
  for (const state of ['available', 'provisioned', 'provisioning', 'inspecting', 'powering off before delete'] as const) {
    t.is(of(state, {}, failing)['Manageable'], 'False/PowerFailure', state);
  }
  t.is(of('', {}, failing)['Manageable'], 'False/NotManaged');
  t.is(of('unmanaged', {}, failing)['Manageable'], 'False/NotManaged');
  t.is(of('registering', {}, failing)['Manageable'], 'False/Registering');
  t.is(of('deleting', {}, failing)['Manageable'], 'True/Manageable');
});

test('conditions - GetHealth: OK is Healthy True, Warning False Warning, Critical False CriticalError, anything else Unknown', (t) => {
  t.is(of('provisioned', {}, { powerFailure: false, health: 'OK' })['Healthy'], 'True/Healthy');
  t.is(of('provisioned', {}, { powerFailure: false, health: 'Warning' })['Healthy'], 'False/Warning');
  t.is(of('provisioned', {}, { powerFailure: false, health: 'Critical' })['Healthy'], 'False/CriticalError');
  t.is(of('provisioned', {}, { powerFailure: false, health: 'Bogus' })['Healthy'], 'Unknown/Unknown');
});

test('conditions - health "" (Ironic without a health field) keeps an existing Healthy condition untouched and adds Unknown only when there is none', (t) => {
  const healthy: Condition = { type: 'Healthy', status: 'True', observedGeneration: 1, lastTransitionTime: '2025-06-01T00:00:00Z', reason: 'Healthy', message: '' };
  const out = computeConditions(hostAt('provisioned', { conditions: [healthy] }, 3), T0, NO_BACKEND_HINTS);
  t.deepEqual(out.find((c) => c.type === 'Healthy'), healthy);
  t.is(brief(computeConditions(hostAt('provisioned'), T0, NO_BACKEND_HINTS))['Healthy'], 'Unknown/Unknown');
});

test('conditions - conditions.Set: lastTransitionTime moves only when the status changes, in whole seconds; message is empty', (t) => {
  const first = computeConditions(hostAt('available'), T0 + 1_234, NO_BACKEND_HINTS);
  for (const c of first) {
    t.is(c.lastTransitionTime, '2026-01-01T00:00:01Z');
    t.is(c.message, '');
  }
  // Ready False NotProvisioned -> False Error: same status, so the reason changes and the time stays.
  const later = T0 + 3_600_000;
  const errored = computeConditions(hostAt('available', { operationalStatus: 'error', errorType: 'preparation error', conditions: first }), later, NO_BACKEND_HINTS);
  const ready = errored.find((c) => c.type === 'Ready');
  t.is(ready?.reason, 'Error');
  t.is(ready?.lastTransitionTime, '2026-01-01T00:00:01Z');
  // available -> provisioned: Provisioned and Ready become True and get the new time.
  const provisioned = computeConditions(hostAt('provisioned', { conditions: first }), later, NO_BACKEND_HINTS);
  t.is(provisioned.find((c) => c.type === 'Provisioned')?.lastTransitionTime, '2026-01-01T01:00:00Z');
  t.is(provisioned.find((c) => c.type === 'Manageable')?.lastTransitionTime, '2026-01-01T00:00:01Z');
});

test('conditions - conditions.Set: observedGeneration is metadata.generation, and a new generation updates it without a transition', (t) => {
  const first = computeConditions(hostAt('available', {}, 4), T0, NO_BACKEND_HINTS);
  t.true(first.every((c) => c.observedGeneration === 4));
  const next = computeConditions(hostAt('available', { conditions: first }, 5), T0 + 60_000, NO_BACKEND_HINTS);
  // Healthy is not set when the backend reports no health, so it keeps the generation it had.
  t.deepEqual(next.map((c) => [c.type, c.observedGeneration]), first.map((c) => [c.type, c.type === 'Healthy' ? 4 : 5]));
  t.deepEqual(next.map((c) => c.lastTransitionTime), first.map((c) => c.lastTransitionTime));
});

test('conditions - conditions of other types are kept; the list is sorted Ready first, then by type (Cluster API order)', (t) => {
  const foreign: Condition = { type: 'Acme.example.com/Burnin', status: 'False', reason: 'Pending', message: 'queued', lastTransitionTime: '2025-01-01T00:00:00Z' };
  const out = computeConditions(hostAt('available', { conditions: [foreign] }), T0, NO_BACKEND_HINTS);
  t.deepEqual(out.find((c) => c.type === foreign.type), foreign);
  t.deepEqual(out.map((c) => c.type), ['Ready', 'Acme.example.com/Burnin', 'AvailableForProvisioning', 'Healthy', 'Manageable', 'Progressing', 'Provisioned']);
});

test('conditions - nothing changed returns the same list, in the order it had (BMO saves only when conditions changed)', (t) => {
  const first = computeConditions(hostAt('provisioned'), T0, NO_BACKEND_HINTS);
  const shuffled = [...first].reverse();
  t.is(computeConditions(hostAt('provisioned', { conditions: shuffled }), T0 + 600_000, NO_BACKEND_HINTS), shuffled);
});

test('conditions - a step from a BMO-written status without conditions fills them, and the next step writes nothing', (t) => {
  // As BMO leaves an available host: the root device hints its profile gave are in status.
  const bmoWritten = initialState(hostAt('available', { poweredOn: true, provisioning: { state: 'available', ID: 'node-1', rootDeviceHints: { deviceName: '/dev/sda' } } }));
  const state: BmhState = { ...bmoWritten, host: { ...bmoWritten.host, spec: { ...bmoWritten.host.spec, image: undefined } }, powerCheckAt: T0 + 60_000 };
  const s1 = tick(state);
  const write = s1.effects.find((e) => e.type === 'writeStatus');
  t.truthy(write);
  t.deepEqual(brief(write?.type === 'writeStatus' ? write.status.conditions : undefined), {
    Ready: 'False/NotProvisioned', AvailableForProvisioning: 'True/Available', Healthy: 'Unknown/Unknown',
    Manageable: 'True/Manageable', Progressing: 'False/NotProgressing', Provisioned: 'False/NotProvisioned',
  });
  t.deepEqual(types(tick(s1.state, T0 + 1_000).effects), ['requeue']);
});

test('conditions - a power poll reporting a power failure turns Manageable False PowerFailure; the next one without it turns it back', (t) => {
  const image = makeHost().spec.image;
  const start = initialState(hostAt('provisioned', { poweredOn: true, provisioning: { state: 'provisioned', ID: 'node-1', image } }));
  const s0 = tick({ ...start, powerCheckAt: T0 });
  const poll = lastCall(s0);
  t.is(poll?.args.op, 'hardwareState');
  const s1 = step(s0.state, { type: 'result', seq: poll?.seq ?? 0, result: { kind: 'done', poweredOn: true, hints: { powerFailure: true, health: 'OK' } }, jitter: 0 }, T0 + 1_000);
  t.is(brief(s1.state.host.status.conditions)['Manageable'], 'False/PowerFailure');
  t.is(brief(s1.state.host.status.conditions)['Healthy'], 'True/Healthy');
  t.true(s1.effects.some((e) => e.type === 'writeStatus'));
  const s2 = tick(s1.state, T0 + 61_000);
  const again = lastCall(s2);
  t.is(again?.args.op, 'hardwareState');
  const s3 = step(s2.state, { type: 'result', seq: again?.seq ?? 0, result: { kind: 'done', poweredOn: true, hints: { powerFailure: false, health: 'OK' } }, jitter: 0 }, T0 + 62_000);
  const manageable = s3.state.host.status.conditions?.find((c) => c.type === 'Manageable');
  t.is(manageable?.status, 'True');
  t.is(manageable?.lastTransitionTime, '2026-01-01T00:01:02Z');
});

test('conditions - a paused host gets no conditions (BMO returns before reconciling it)', (t) => {
  const paused = initialState(makeHost({ annotations: { 'baremetalhost.metal3.io/paused': '' }, status: { provisioning: { state: 'available', ID: 'node-1' } } }));
  const s = tick(paused);
  t.is(s.state.host.status.conditions, undefined);
  t.false(s.effects.some((e) => e.type === 'writeStatus'));
});

test('conditions - the Ironic power poll reports the node fault "power failure" and its health as hints (BMO HasPowerFailure, GetHealth)', async (t) => {
  const poll = async (node: Partial<IronicNode>) => {
    const client = { endpoint: 'http://ironic.test', getNode: async () => ({ uuid: 'node-1', provision_state: 'active', power_state: 'power on', ...node }) } as unknown as IronicClient;
    const host = makeHost();
    return createIronicProvisioner({ client }).hardwareState({
      key: 'metal3/worker-0', namespace: 'metal3', name: 'worker-0', uid: 'uid-0', provisionerId: 'node-1', spec: host.spec, credentials: null,
    }, { op: 'hardwareState' });
  };
  t.deepEqual(await poll({ fault: 'power failure', health: 'Critical' }), { kind: 'done', poweredOn: true, hints: { powerFailure: true, health: 'Critical' }, deployed: true });
  // Ironic before API 1.109 has no health; another fault is no power failure.
  t.deepEqual(await poll({ fault: 'clean failure' }), { kind: 'done', poweredOn: true, hints: { powerFailure: false, health: '' }, deployed: true });
  // The same read tells a node back in manageable (adopt it again) and says nothing of others.
  t.is((await poll({ provision_state: 'manageable' })).kind === 'done' && (await poll({ provision_state: 'manageable' }) as { deployed?: boolean }).deployed, false);
  t.false('deployed' in await poll({ provision_state: 'deploying' }));
});

// Issue 30: every step asks for the conditions, and most steps change none of what they follow.
test('conditions - worked out once per change of what they follow: steps that leave state, operational status, generation and the backend hints as they were find them settled', (t) => {
  let s = atState('available');
  const before = conditionsComputed();
  for (let i = 1; i <= 5; i++) s = tick(s, T0 + i * 1_000).state;
  t.is(conditionsComputed() - before, 0, 'the list the host came with was computed for these inputs (atState): five steps find it settled');
  const conditions = s.host.status.conditions;
  // A changed input is worked out again, once.
  const failing = step(s, { type: 'result', seq: 0, result: { kind: 'done' }, jitter: 0 }, T0 + 6_000).state;
  t.is(failing.host.status.conditions, conditions, 'a result no call waits for changes nothing');
  const errored = { ...s, host: { ...s.host, status: { ...s.host.status, operationalStatus: 'error' as const, errorType: 'inspection error' as const, errorMessage: 'x', errorCount: 1 } } };
  const e1 = tick(errored, T0 + 7_000).state;
  t.is(brief(e1.host.status.conditions)['Ready'], 'False/Error');
  const e2 = tick(e1, T0 + 8_000).state;
  t.is(e2.host.status.conditions, e1.host.status.conditions);
  t.is(conditionsComputed() - before, 1);
  const regenerated = { ...e2, host: { ...e2.host, metadata: { ...e2.host.metadata, generation: (e2.host.metadata.generation ?? 0) + 1 } } };
  const g1 = tick(regenerated, T0 + 9_000).state;
  t.is(g1.host.status.conditions?.find((c) => c.type === 'Ready')?.observedGeneration, regenerated.host.metadata.generation);
  t.is(conditionsComputed() - before, 2);
});

test('conditions - a list that already says what the inputs give is kept as it is; other hints or another state build a new one', (t) => {
  const host = hostAt('provisioned', { poweredOn: true });
  const first = computeConditions(host, T0, NO_BACKEND_HINTS);
  const settled = { ...host, status: { ...host.status, conditions: first } };
  t.is(computeConditions(settled, T0 + 1_000, NO_BACKEND_HINTS), first);
  // The same list under other hints or another state is worked out, not taken.
  const failing = computeConditions(settled, T0 + 2_000, { powerFailure: true, health: 'Critical' });
  t.is(brief(failing)['Manageable'], 'False/PowerFailure');
  t.is(brief(failing)['Healthy'], 'False/CriticalError');
  const moved = computeConditions({ ...settled, status: { ...settled.status, provisioning: { ...settled.status.provisioning, state: 'deprovisioning' } } }, T0 + 3_000, NO_BACKEND_HINTS);
  t.deepEqual(brief(moved), PROGRESSING('Deprovisioning'));
  t.is(moved.find((c) => c.type === 'Progressing')?.lastTransitionTime, '2026-01-01T00:00:03Z');
});
