import test from 'ava';
import fc from 'fast-check';
import type { MaasMachineEvent, MaasResult } from '../../src/machines/maas-machine/index.ts';
import {
  T0, calls, capiCluster, condition, deploying, grant, maasMachine, noneEarlier, observe, reply, send, start, tick, types, view, world,
} from './maas-fixtures.ts';

test('maas machine - waits for bootstrap data without touching MAAS', (t) => {
  const s = tick(start(maasMachine(), world({ bootstrapDataReady: false })));
  t.deepEqual(calls(s), []);
  t.false(types(s).includes('requestSlot'));
  t.is(condition(s.state, 'MachineDeployed')?.reason, 'WaitingForBootstrapData');
});

test('maas machine - allocates with the constraints once it holds a slot, and persists the providerID at once', (t) => {
  const looked = tick(start(maasMachine({}, { uid: 'uid-cp-0' })));
  t.deepEqual(calls(looked), [{ op: 'findAllocated', agentName: 'uid-cp-0' }]);
  const s0 = noneEarlier(looked);
  t.deepEqual(s0.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'deploy' }]);
  t.deepEqual(calls(s0), []);
  const s1 = grant(s0.state);
  t.deepEqual(calls(s1), [{ op: 'allocate', agentName: 'uid-cp-0', cpuCount: 4, memMb: 8192, zone: 'az1', pool: 'default', tags: ['fast', 'ssd'], image: 'ubuntu/jammy' }]);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(s2.effects.find((e) => e.type === 'writeSpec'), { type: 'writeSpec', patch: { providerID: 'maas:///az1/abc123', systemID: 'abc123', failureDomain: 'az1' } });
  t.is(s2.state.phase, 'allocated');
  t.deepEqual(calls(s2), [{ op: 'swapOff', systemId: 'abc123' }]);
  const s3 = reply(s2, { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(calls(s3), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: false }]);
});

test('maas machine - skipping swap deploys straight after allocation; in-memory deploys are ephemeral', (t) => {
  const s1 = grant(noneEarlier(tick(start(maasMachine({ deployInMemory: true }), world(), { skipSwap: true }))).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(calls(s2), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: true }]);
});

test('maas machine - a key that may not turn swap off (403) deploys with swap on', (t) => {
  const s1 = grant(noneEarlier(tick(start())).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  const s3 = reply(s2, { kind: 'failed', message: 'forbidden', reason: 'forbidden' });
  t.deepEqual(calls(s3), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: false }]);
  t.true(s3.effects.some((e) => e.type === 'event' && e.reason === 'SwapNotDisabled'));
});

test('maas machine - deploying holds the slot and polls; Deployed and on is ready and frees the slot', (t) => {
  const d = deploying();
  t.is(d.state.phase, 'deploying');
  t.is(d.state.slot.phase, 'held');
  t.deepEqual(d.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  t.deepEqual(calls(tick(d.state, T0 + 5_000)), []);
  const poll = tick(d.state, T0 + 10_000);
  t.deepEqual(calls(poll), [{ op: 'get', systemId: 'abc123' }]);
  const ready = reply(poll, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  t.is(ready.state.phase, 'deployed');
  t.true(ready.state.status.ready);
  t.true(ready.state.status.initialization?.provisioned);
  t.is(ready.state.slot.phase, 'none');
  t.true(ready.effects.some((e) => e.type === 'releaseSlot'));
  t.deepEqual(ready.state.status.addresses?.map((a) => a.type), ['ExternalDNS', 'InternalDNS', 'ExternalIP', 'InternalIP']);
  t.is(condition(ready.state, 'MachineDeployed')?.status, 'True');
  t.is(condition(ready.state, 'Ready')?.status, 'True');
});

test('maas machine - a Deployed machine found off says MachinePoweredOff, is powered on and looked at again after a minute', (t) => {
  const d = deploying();
  const ready = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  const poll = tick(ready.state, T0 + 70_000);
  const off = reply(poll, { kind: 'done', machine: view('Deployed', 'off') }, T0 + 70_000);
  t.deepEqual(calls(off), [{ op: 'powerOn', systemId: 'abc123' }]);
  t.false(off.state.status.ready);
  t.is(condition(off.state, 'MachineDeployed')?.reason, 'MachinePoweredOff');
  t.false(off.state.status.machinePowered);
  const after = reply(off, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 70_000);
  t.deepEqual(after.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 60_000 }]);
});

test('maas machine - a failed deployment marks the machine failed and keeps its providerID (no other machine is taken)', (t) => {
  const d = deploying();
  const failed = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Failed deployment', 'off') }, T0 + 10_000);
  t.is(failed.state.phase, 'failed');
  t.is(failed.state.systemId, 'abc123');
  t.is(failed.state.status.failureReason, 'UpdateError');
  t.regex(failed.state.status.failureMessage ?? '', /abc123.*Failed deployment/);
  t.is(condition(failed.state, 'MachineDeployed')?.reason, 'MachineStateUndefined');
  t.false(failed.effects.some((e) => e.type === 'writeSpec'));
  t.deepEqual(calls(failed), []);
  t.is(failed.state.slot.phase, 'none');
  // Nothing more happens until the Machine is replaced (deleted).
  const later = tick(failed.state, T0 + 3_600_000);
  t.deepEqual(calls(later), []);
  t.false(later.effects.some((e) => e.type === 'requestSlot'));
});

test('maas machine - a deploy call MAAS refuses is retried on the same machine after a backoff', (t) => {
  const s1 = grant(noneEarlier(tick(start(maasMachine(), world(), { skipSwap: true }))).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  const s3 = reply(s2, { kind: 'failed', message: "Can't deploy: bad series", reason: 'conflict' });
  t.is(condition(s3.state, 'MachineDeployed')?.reason, 'MachineDeployFailed');
  t.is(s3.state.slot.phase, 'none');
  t.deepEqual(calls(tick(s3.state, T0 + 1_000)), []);
  const again = tick(s3.state, T0 + 10_000);
  t.deepEqual(calls(again), [{ op: 'get', systemId: 'abc123' }]);
  const seen = reply(again, { kind: 'done', machine: view('Allocated', 'off') }, T0 + 10_000);
  t.true(seen.effects.some((e) => e.type === 'requestSlot'));
  t.deepEqual(calls(grant(seen.state, T0 + 10_000)), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: false }]);
});

test('maas machine - nothing matching the constraints is a deploy failure with backoff and no slot held', (t) => {
  const s1 = grant(noneEarlier(tick(start())).state);
  const s2 = reply(s1, { kind: 'failed', message: 'No available machine matches constraints', reason: 'noMatch' });
  t.is(s2.state.slot.phase, 'none');
  t.is(s2.state.phase, 'pending');
  t.regex(condition(s2.state, 'MachineDeployed')?.message ?? '', /No available machine matches/);
  t.deepEqual(calls(tick(s2.state, T0 + 1_000)), []);
});

test('maas machine - a machine that vanished from MAAS is marked failed, not replaced', (t) => {
  const s0 = tick(start(maasMachine({ providerID: 'maas:///az1/zzz999', systemID: 'zzz999' })));
  t.deepEqual(calls(s0), [{ op: 'get', systemId: 'zzz999' }]);
  const s1 = reply(s0, { kind: 'notFound' });
  t.is(s1.state.phase, 'failed');
  t.is(s1.state.systemId, 'zzz999');
  t.is(condition(s1.state, 'MachineDeployed')?.reason, 'MachineNotFound');
  t.is(s1.state.status.failureReason, 'UpdateError');
  t.false(s1.effects.some((e) => e.type === 'writeSpec' || e.type === 'requestSlot'));
});

test('maas machine - a machine MAAS took back (Releasing) is terminated and failed, keeping its providerID', (t) => {
  const s0 = tick(start(maasMachine({ systemID: 'abc123', providerID: 'maas:///az1/abc123' })));
  const s1 = reply(s0, { kind: 'done', machine: view('Releasing', 'off') });
  t.is(condition(s1.state, 'MachineDeployed')?.reason, 'MachineTerminatedReason');
  t.true(s1.effects.some((e) => e.type === 'event' && e.reason === 'MachineUnexpectedTermination'));
  t.is(s1.state.systemId, 'abc123');
  t.is(s1.state.phase, 'failed');
  t.is(s1.state.status.failureReason, 'UpdateError');
});

test('maas machine - a worker being deleted releases with a slot, then removes the finalizer', (t) => {
  const s0 = tick(start(maasMachine({ systemID: 'abc123', providerID: 'maas:///az1/abc123' }, { deletionTimestamp: '2026-01-01T00:00:00Z' }, false)));
  t.deepEqual(s0.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'release' }]);
  const s1 = grant(s0.state);
  t.deepEqual(calls(s1), [{ op: 'release', systemId: 'abc123' }]);
  const s2 = reply(s1, { kind: 'done', machine: view('Releasing', 'off') });
  t.true(s2.state.gone);
  t.true(s2.effects.some((e) => e.type === 'removeFinalizer'));
  t.true(s2.effects.some((e) => e.type === 'releaseSlot'));
  t.is(condition(s2.state, 'MachineDeployed')?.reason, 'Deleted');
});

test('maas machine - deleting one that never got a machine drops the finalizer once MAAS holds nothing for it', (t) => {
  const looked = tick(start(maasMachine({}, { deletionTimestamp: 'x' })));
  t.deepEqual(calls(looked).map((c) => c.op), ['findAllocated']);
  const s = noneEarlier(looked);
  t.true(s.state.gone);
  t.deepEqual(calls(s), []);
  t.true(s.effects.some((e) => e.type === 'removeFinalizer'));
});

test('maas machine - an object seen without IDs (our write not landed yet) does not undo the allocation', (t) => {
  const s1 = grant(noneEarlier(tick(start(maasMachine(), world(), { skipSwap: true }))).state);
  const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
  const stale = observe(s2.state, maasMachine());
  t.is(stale.state.systemId, 'abc123');
  t.false(stale.effects.some((e) => e.type === 'call' && e.call.op === 'allocate'));
});

test('maas machine - a restart resumes from the object: failed stays failed, a provisioned machine is looked at', (t) => {
  const failed = start(maasMachine({ systemID: 'abc123' }), world());
  t.is(failed.phase, 'allocated');
  const withFailure = start({ ...maasMachine({ systemID: 'abc123' }), status: { ready: false, failureReason: 'UpdateError', failureMessage: 'x' } });
  t.is(withFailure.phase, 'failed');
  t.deepEqual(calls(tick(withFailure)), []);
  const provisioned = start({ ...maasMachine({ systemID: 'abc123' }), status: { ready: true, initialization: { provisioned: true } } });
  t.is(provisioned.phase, 'deployed');
  t.deepEqual(calls(tick(provisioned)), [{ op: 'get', systemId: 'abc123' }]);
});

const result: fc.Arbitrary<MaasResult> = fc.oneof(
  fc.constantFrom('Allocated', 'Deploying', 'Deployed', 'Failed deployment', 'Releasing', 'Ready', 'Broken').chain((st) => fc.constantFrom('on', 'off').map((p): MaasResult => ({ kind: 'done', machine: view(st, p) }))),
  fc.constantFrom('Allocated', 'Deploying', 'Deployed', 'Failed deployment', 'Releasing').map((st): MaasResult => ({ kind: 'listed', machines: [view(st)] })),
  fc.constant<MaasResult>({ kind: 'listed', machines: [] }),
  fc.constant<MaasResult>({ kind: 'notFound' }),
  fc.constant<MaasResult>({ kind: 'failed', message: 'x', reason: 'conflict' }),
  fc.constant<MaasResult>({ kind: 'transient', message: 'x' }),
);
const action = fc.oneof(
  fc.record({ k: fc.constant('result' as const), r: result }),
  fc.record({ k: fc.constant('dns' as const), attached: fc.boolean() }),
  fc.record({ k: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 400_000 }) }),
  fc.constant({ k: 'grant' as const }),
  fc.constant({ k: 'lost' as const }),
  fc.constant({ k: 'delete' as const }),
  fc.record({ k: fc.constant('pause' as const), on: fc.boolean() }),
  fc.constant({ k: 'dnsChanged' as const }),
);

test('maas machine property - backend work holds a slot, the providerID is written once and never changes, and a paused machine calls nothing', (t) => {
  const runs = 400;
  let checked = 0;
  let slotCalls = 0;
  let providerIds = 0;
  fc.assert(fc.property(fc.boolean(), fc.array(action, { maxLength: 60 }), (controlPlane, actions) => {
    let s = start(maasMachine({}, {}, controlPlane));
    let now = T0;
    let st = tick(s, now);
    s = st.state;
    const written = new Set<string>();
    for (const a of actions) {
      let e: MaasMachineEvent;
      if (a.k === 'result') e = { type: 'result', seq: s.inFlight?.seq ?? 0, result: a.r };
      else if (a.k === 'dns') e = { type: 'dnsResult', seq: s.inFlight?.seq ?? 0, result: { kind: 'found', ips: a.attached ? ['10.10.1.5'] : [] } };
      else if (a.k === 'tick') { now += a.ms; e = { type: 'tick' }; }
      else if (a.k === 'grant') e = { type: 'slotGranted', grantId: `g${now}` };
      else if (a.k === 'lost') e = { type: 'slotLost', grantId: s.slot.phase === 'held' ? s.slot.grantId : '', reason: 'x' };
      else if (a.k === 'pause') e = { type: 'observed', object: s.object, world: { ...s.world, cluster: capiCluster({ paused: a.on }) } };
      else if (a.k === 'dnsChanged') e = { type: 'dnsChanged' };
      else e = { type: 'observed', object: { ...s.object, metadata: { ...s.object.metadata, deletionTimestamp: 'x' } }, world: s.world };
      st = send(s, e, now);
      const paused = st.state.world.cluster?.spec?.paused === true;
      for (const c of calls(st)) {
        if (paused) throw new Error(`${c.op} while paused`);
        if (['allocate', 'deploy', 'release', 'swapOff'].includes(c.op)) {
          if (st.state.slot.phase !== 'held') throw new Error(`${c.op} without a slot`);
          slotCalls += 1;
        }
        if (c.op === 'release' && controlPlane && st.state.dnsIps?.includes('10.10.1.5')) throw new Error('released while still in DNS');
      }
      if (paused && st.effects.some((x) => x.type === 'requestSlot' || x.type === 'dnsLookup')) throw new Error('slot or DNS asked for while paused');
      for (const x of st.effects) if (x.type === 'writeSpec') written.add(x.patch.providerID);
      if (written.size > 1) throw new Error(`providerID changed: ${[...written].join(', ')}`);
      if (s.systemId !== null && st.state.systemId !== s.systemId) throw new Error('system id changed');
      // A ready machine has given back its deploy slot; one being deleted may hold a release slot while still ready.
      if (st.state.status.ready && st.state.slot.phase === 'held' && st.state.slot.op === 'provision' && st.state.view?.statusName === 'Deployed') throw new Error('ready but still holding a deploy slot');
      s = st.state;
    }
    checked += 1;
    if (written.size === 1) providerIds += 1;
  }), { numRuns: runs });
  t.is(checked, runs, 'every generated history was checked to its end');
  t.true(slotCalls > 0, 'some histories reached backend work that needs a slot');
  t.true(providerIds > 0, 'some histories wrote a providerID');
});
