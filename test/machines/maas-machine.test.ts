import test from 'ava';
import fc from 'fast-check';
import { DEFAULT_MAAS_MACHINE_CONFIG, initialMaasMachineState, stepMaasMachine } from '../../src/machines/maas-machine/index.ts';
import type { MaasContext, MaasMachineEffect, MaasMachineEvent, MaasMachineObject, MaasMachineState, MaasMachineStep, MaasResult, MaasView } from '../../src/machines/maas-machine/index.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const ctx: MaasContext = { bootstrapReady: true, controlPlane: true, clusterName: 'c1', failureDomain: 'az1' };
const obj = (o: Partial<MaasMachineObject['spec']> = {}, meta: Partial<MaasMachineObject['metadata']> = {}): MaasMachineObject => ({
  metadata: { name: 'cp-0', namespace: 'default', finalizers: ['maasmachine.infrastructure.cluster.x-k8s.io'], ...meta },
  spec: { minCPU: 4, minMemory: 8192, image: 'ubuntu/jammy', tags: ['fast', 'ssd'], resourcePool: 'default', ...o },
});
const view = (statusName: string, powerState = 'on', systemId = 'abc123'): MaasView => ({ systemId, hostname: `m-${systemId}`, fqdn: `m-${systemId}.maas`, statusName, powerState, ipAddresses: ['10.10.1.5'], zone: 'az1' });
const start = (o = obj(), c = ctx, config = {}) => initialMaasMachineState(o, c, { ...DEFAULT_MAAS_MACHINE_CONFIG, ...config });
const send = (s: MaasMachineState, e: MaasMachineEvent, now = T0) => stepMaasMachine(s, e, now);
const tick = (s: MaasMachineState, now = T0) => send(s, { type: 'tick' }, now);
const grant = (s: MaasMachineState) => send(s, { type: 'slotGranted', grantId: 'g' });
const calls = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'call' ? [e.call] : []));
const reply = (st: MaasMachineStep, result: MaasResult, now = T0) => {
  const c = st.effects.find((e): e is Extract<MaasMachineEffect, { type: 'call' }> => e.type === 'call');
  if (!c) throw new Error('no call');
  return send(st.state, { type: 'result', seq: c.seq, result }, now);
};

test('maas machine - waits for bootstrap data without touching MAAS', (t) => {
  const s = tick(start(obj(), { ...ctx, bootstrapReady: false }));
  t.deepEqual(calls(s), []);
  t.is(s.state.status.conditions?.find((c) => c.type === 'MachineDeployed')?.reason, 'WaitingForBootstrapData');
});

test('maas machine - allocates with the constraints once it holds a slot, and persists the providerID at once', (t) => {
  const s0 = tick(start());
  t.deepEqual(s0.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'deploy' }]);
  t.deepEqual(calls(s0), []);
  const s1 = grant(s0.state);
  t.deepEqual(calls(s1), [{ op: 'allocate', cpuCount: 4, memMb: 8192, zone: 'az1', pool: 'default', tags: ['fast', 'ssd'] }]);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(s2.effects.find((e) => e.type === 'writeSpec'), { type: 'writeSpec', patch: { providerID: 'maas:///az1/abc123', systemID: 'abc123', failureDomain: 'az1' } });
  t.deepEqual(calls(s2), [{ op: 'swapOff', systemId: 'abc123' }]);
  const s3 = reply(s2, { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(calls(s3), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: false }]);
});

test('maas machine - skipping swap deploys straight after allocation; in-memory deploys are ephemeral', (t) => {
  const s1 = grant(tick(start(obj({ deployInMemory: true }), ctx, { skipSwap: true })).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(calls(s2), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: true }]);
});

function deploying(): MaasMachineStep {
  const s1 = grant(tick(start(obj(), ctx, { skipSwap: true })).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  return reply(s2, { kind: 'done', machine: view('Deploying') });
}

test('maas machine - deploying holds the slot and polls; Deployed and on is ready and frees the slot', (t) => {
  const d = deploying();
  t.is(d.state.slot.phase, 'held');
  t.deepEqual(d.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  t.deepEqual(calls(tick(d.state, T0 + 5_000)), []);
  const poll = tick(d.state, T0 + 10_000);
  t.deepEqual(calls(poll), [{ op: 'get', systemId: 'abc123' }]);
  const ready = reply(poll, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  t.true(ready.state.status.ready);
  t.true(ready.state.status.initialization?.provisioned);
  t.is(ready.state.slot.phase, 'none');
  t.true(ready.effects.some((e) => e.type === 'releaseSlot'));
  t.deepEqual(ready.state.status.addresses?.map((a) => a.type), ['ExternalDNS', 'InternalDNS', 'ExternalIP', 'InternalIP']);
  t.is(ready.state.status.conditions?.find((c) => c.type === 'MachineDeployed')?.status, 'True');
});

test('maas machine - a Deployed machine found off is powered on and looked at again after a minute', (t) => {
  const d = deploying();
  const ready = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  const poll = tick(ready.state, T0 + 70_000);
  const off = reply(poll, { kind: 'done', machine: view('Deployed', 'off') }, T0 + 70_000);
  t.deepEqual(calls(off), [{ op: 'powerOn', systemId: 'abc123' }]);
  const after = reply(off, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 70_000);
  t.deepEqual(after.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 60_000 }]);
});

test('maas machine - a failed deployment releases the machine, clears its IDs and allocates another', (t) => {
  const d = deploying();
  const failed = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Failed deployment', 'off') }, T0 + 10_000);
  t.deepEqual(calls(failed), [{ op: 'release', systemId: 'abc123' }]);
  const released = reply(failed, { kind: 'done', machine: view('Releasing', 'off') }, T0 + 10_000);
  t.deepEqual(released.effects.find((e) => e.type === 'writeSpec'), { type: 'writeSpec', patch: { providerID: null, systemID: null } });
  t.is(released.state.systemId, null);
  t.true(released.effects.some((e) => e.type === 'requestSlot'));
  const again = grant(released.state);
  t.is(calls(again)[0]?.op, 'allocate');
});

test('maas machine - a deploy call that fails releases and clears the IDs (CAPMAAS release defer)', (t) => {
  const s1 = grant(tick(start(obj(), ctx, { skipSwap: true })).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  const s3 = reply(s2, { kind: 'failed', message: "Can't deploy: bad series", reason: 'conflict' });
  t.is(s3.state.status.conditions?.find((c) => c.type === 'MachineDeployed')?.reason, 'MachineDeployFailed');
  const s4 = tick(s3.state, T0 + 10_000);
  t.deepEqual(calls(s4), [{ op: 'release', systemId: 'abc123' }]);
});

test('maas machine - nothing matching the constraints is a deploy failure with backoff and no slot held', (t) => {
  const s1 = grant(tick(start()).state);
  const s2 = reply(s1, { kind: 'failed', message: 'No available machine matches constraints', reason: 'noMatch' });
  t.is(s2.state.slot.phase, 'none');
  t.regex(s2.state.status.conditions?.find((c) => c.type === 'MachineDeployed')?.message ?? '', /No available machine matches/);
  t.deepEqual(calls(tick(s2.state, T0 + 1_000)), []);
});

test('maas machine - a machine that vanished from MAAS is replaced', (t) => {
  const s0 = tick(start(obj({ providerID: 'maas:///az1/zzz999', systemID: 'zzz999' })));
  t.deepEqual(calls(s0), [{ op: 'get', systemId: 'zzz999' }]);
  const s1 = reply(s0, { kind: 'notFound' });
  t.deepEqual(s1.effects.find((e) => e.type === 'writeSpec'), { type: 'writeSpec', patch: { providerID: null, systemID: null } });
});

test('maas machine - deletion releases with a slot, then removes the finalizer', (t) => {
  const s0 = tick(start(obj({ systemID: 'abc123', providerID: 'maas:///az1/abc123' }, { deletionTimestamp: '2026-01-01T00:00:00Z' })));
  t.deepEqual(s0.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'release' }]);
  const s1 = grant(s0.state);
  t.deepEqual(calls(s1), [{ op: 'release', systemId: 'abc123' }]);
  const s2 = reply(s1, { kind: 'done', machine: view('Releasing', 'off') });
  t.true(s2.state.gone);
  t.true(s2.effects.some((e) => e.type === 'removeFinalizer'));
  t.true(s2.effects.some((e) => e.type === 'releaseSlot'));
});

test('maas machine - deleting one that never got a machine just drops the finalizer', (t) => {
  const s = tick(start(obj({}, { deletionTimestamp: 'x' })));
  t.true(s.state.gone);
  t.deepEqual(calls(s), []);
});

test('maas machine - a machine MAAS took back (Releasing) is terminated and replaced', (t) => {
  const s0 = tick(start(obj({ systemID: 'abc123', providerID: 'maas:///az1/abc123' })));
  const s1 = reply(s0, { kind: 'done', machine: view('Releasing', 'off') });
  t.is(s1.state.status.conditions?.find((c) => c.type === 'MachineDeployed')?.reason, 'MachineTerminated');
  t.true(s1.effects.some((e) => e.type === 'event' && e.reason === 'MachineUnexpectedTermination'));
  t.is(s1.state.systemId, null);
});

const result: fc.Arbitrary<MaasResult> = fc.oneof(
  fc.constantFrom('Allocated', 'Deploying', 'Deployed', 'Failed deployment', 'Releasing', 'Ready', 'Broken').chain((st) => fc.constantFrom('on', 'off').map((p): MaasResult => ({ kind: 'done', machine: view(st, p) }))),
  fc.constant<MaasResult>({ kind: 'notFound' }),
  fc.constant<MaasResult>({ kind: 'failed', message: 'x', reason: 'conflict' }),
  fc.constant<MaasResult>({ kind: 'transient', message: 'x' }),
);
const action = fc.oneof(
  fc.record({ k: fc.constant('result' as const), r: result }),
  fc.record({ k: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 400_000 }) }),
  fc.constant({ k: 'grant' as const }),
  fc.constant({ k: 'lost' as const }),
  fc.constant({ k: 'delete' as const }),
);

test('maas machine property - allocate, deploy and release only ever happen while a slot is held', (t) => {
  fc.assert(fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
    let s = start();
    let now = T0;
    let st = tick(s, now);
    s = st.state;
    for (const a of actions) {
      let e: MaasMachineEvent;
      if (a.k === 'result') e = { type: 'result', seq: s.inFlight?.seq ?? 0, result: a.r };
      else if (a.k === 'tick') { now += a.ms; e = { type: 'tick' }; }
      else if (a.k === 'grant') e = { type: 'slotGranted', grantId: `g${now}` };
      else if (a.k === 'lost') e = { type: 'slotLost', grantId: s.slot.phase === 'held' ? s.slot.grantId : '', reason: 'x' };
      else e = { type: 'observed', object: { ...s.object, metadata: { ...s.object.metadata, deletionTimestamp: 'x' } }, context: ctx };
      st = send(s, e, now);
      for (const c of calls(st)) if (['allocate', 'deploy', 'release', 'swapOff'].includes(c.op) && st.state.slot.phase !== 'held') throw new Error(`${c.op} without a slot`);
      // A ready machine has given back its deploy slot; one being deleted may hold a release slot while still ready.
      if (st.state.status.ready && st.state.slot.phase === 'held' && st.state.slot.op === 'provision' && st.state.view?.statusName === 'Deployed') throw new Error('ready but still holding a deploy slot');
      s = st.state;
    }
  }), { numRuns: 300 });
  t.pass();
});

test('maas machine - an object seen without IDs (our write not landed yet) does not undo the allocation', (t) => {
  const s1 = grant(tick(start(obj(), ctx, { skipSwap: true })).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  const stale = send(s2.state, { type: 'observed', object: obj(), context: ctx });
  t.is(stale.state.systemId, 'abc123');
  t.false(stale.effects.some((e) => e.type === 'call' && e.call.op === 'allocate'));
});
