// The Cluster API contract a MaasMachine keeps (reference/capmaas.md §2.3-2.5), one rule a test.
import test from 'ava';
import { MAAS_MACHINE_PHASES } from '../../src/machines/maas-machine/index.ts';
import {
  T0, calls, capiCluster, capiMachine, condition, deployedControlPlane, dnsReply, grant, maasCluster, maasMachine, noneEarlier, observe, reply, send, start, tick, types, view, world,
} from './maas-fixtures.ts';

const PAUSED = { 'cluster.x-k8s.io/paused': '' };

test('maas machine capi - a paused Cluster stops all work: no call, no slot; status says paused', (t) => {
  const s = tick(start(maasMachine(), world({ cluster: capiCluster({ paused: true }) })));
  t.deepEqual(calls(s), []);
  t.false(types(s).includes('requestSlot'));
  t.is(condition(s.state, 'Paused')?.status, 'True');
  t.regex(condition(s.state, 'Paused')?.message ?? '', /spec\.paused/);
  // Nothing deployed yet: Ready summarises MachineDeployed (and DNSAttached), neither of which is
  // set, so there is no Ready, as CAPI's SetSummary sets none from no conditions; never Ready=True.
  t.is(condition(s.state, 'Ready'), undefined);
  t.false(s.state.status.ready ?? false);
  // Unpaused, work starts: MAAS is asked for an earlier allocation of this machine first.
  const resumed = observe(s.state, maasMachine(), world());
  t.deepEqual(calls(resumed).map((c) => c.op), ['findAllocated']);
  t.true(types(noneEarlier(resumed)).includes('requestSlot'));
  t.is(condition(resumed.state, 'Paused')?.status, 'False');
});

test('maas machine capi - the paused annotation on the Cluster or on the MaasMachine stops all work', (t) => {
  for (const w of [world({ cluster: capiCluster({ annotations: PAUSED }) }), world()]) {
    const object = w.cluster?.metadata.annotations ? maasMachine() : maasMachine({}, { annotations: PAUSED });
    const s = tick(start(object, w));
    t.deepEqual(calls(s), []);
    t.false(types(s).includes('requestSlot'));
    t.is(condition(s.state, 'Paused')?.reason, 'Paused');
  }
});

test('maas machine capi - pausing a deployed machine stops its polling, and a deleting one is not released while paused', (t) => {
  const d = deployedControlPlane();
  const paused = observe(d.state, d.state.object, world({ cluster: capiCluster({ paused: true }) }), T0 + 100_000);
  t.deepEqual(calls(paused), []);
  t.deepEqual(calls(tick(paused.state, T0 + 500_000)), []);
  const deleting = observe(paused.state, { ...d.state.object, metadata: { ...d.state.object.metadata, deletionTimestamp: 'x' } }, paused.state.world, T0 + 600_000);
  t.deepEqual(calls(deleting), []);
  t.false(types(deleting).includes('dnsLookup'));
  t.false(deleting.state.gone);
});

test('maas machine capi - nothing is allocated before the Cluster infrastructure is ready', (t) => {
  const notReady = world({ cluster: capiCluster({ ready: false }), maasCluster: maasCluster({ ready: false }) });
  const s = tick(start(maasMachine(), notReady));
  t.deepEqual(calls(s), []);
  t.false(types(s).includes('requestSlot'));
  t.is(condition(s.state, 'MachineDeployed')?.reason, 'WaitingForClusterInfrastructure');
  t.false(s.state.status.ready);
  // The MaasCluster's own readiness is the same fact at its source (no CAPI controller needed).
  t.true(types(noneEarlier(observe(s.state, maasMachine(), world({ cluster: capiCluster({ ready: false }) })))).includes('requestSlot'));
});

test('maas machine capi - nothing is allocated before bootstrap data exists, nor before the owner Machine and Cluster exist', (t) => {
  const noData = tick(start(maasMachine(), world({ machine: capiMachine({ secret: null }), bootstrapDataReady: false })));
  t.deepEqual(calls(noData), []);
  t.is(condition(noData.state, 'MachineDeployed')?.reason, 'WaitingForBootstrapData');
  for (const w of [world({ machine: null }), world({ cluster: null })]) {
    const s = tick(start(maasMachine({}, { finalizers: [] }), w));
    t.deepEqual(types(s).filter((x) => x !== 'writeStatus'), []);
    t.truthy(s.state.waiting);
  }
});

test('maas machine capi - a closed gate gives back a slot it asked for', (t) => {
  const asked = noneEarlier(tick(start()));
  t.is(asked.state.slot.phase, 'waiting');
  const closed = observe(asked.state, maasMachine(), world({ bootstrapDataReady: false }));
  t.true(types(closed).includes('releaseSlot'));
  t.is(closed.state.slot.phase, 'none');
});

test('maas machine capi - the providerID never changes: a failed deploy and a machine taken back both fail the MaasMachine', (t) => {
  for (const statusName of ['Failed deployment', 'Releasing', 'Disk erasing', 'New', 'Broken']) {
    const s1 = grant(noneEarlier(tick(start(maasMachine(), world(), { skipSwap: true }))).state);
    const s2 = reply(s1, { kind: 'done', machine: view('Allocated', 'off') });
    const s3 = reply(s2, { kind: 'done', machine: view('Deploying') });
    const gone = reply(tick(s3.state, T0 + 10_000), { kind: 'done', machine: view(statusName, 'off') }, T0 + 10_000);
    t.is(gone.state.phase, 'failed', statusName);
    t.is(gone.state.systemId, 'abc123');
    t.truthy(gone.state.status.failureReason);
    t.truthy(gone.state.status.failureMessage);
    t.false(gone.effects.some((e) => e.type === 'writeSpec'));
    t.false(calls(gone).some((c) => c.op === 'allocate' || c.op === 'release'));
  }
  // A deployed machine that MAAS shows Ready again was released behind our back: failed, not redeployed.
  const d = deployedControlPlane();
  const ready = reply(tick(d.state, T0 + 100_000), { kind: 'done', machine: view('Ready', 'off') }, T0 + 100_000);
  t.is(ready.state.phase, 'failed');
  t.is(condition(ready.state, 'MachineDeployed')?.reason, 'MachineTerminatedReason');
});

test('maas machine capi - a control-plane machine reports DNSAttached as it reads the record', (t) => {
  const d = deployedControlPlane();
  t.is(condition(d.state, 'DNSAttached')?.status, 'True');
  t.true(d.state.status.dnsAttached);
  const d2 = reply(tick(start(maasMachine({ systemID: 'abc123' })), T0), { kind: 'done', machine: view('Deployed', 'on') });
  t.deepEqual(types(d2).filter((x) => x === 'dnsLookup'), ['dnsLookup']);
  const pending = dnsReply(d2, []);
  t.is(condition(pending.state, 'DNSAttached')?.reason, 'DNSAttachPending');
  t.is(condition(pending.state, 'Ready')?.reason, 'DNSAttachPending');
  t.deepEqual(pending.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
});

test('maas machine capi - on delete a control-plane machine leaves DNS before it is released', (t) => {
  const d = deployedControlPlane();
  const del = observe(d.state, { ...d.state.object, metadata: { ...d.state.object.metadata, deletionTimestamp: 'x' } }, d.state.world, T0 + 20_000);
  t.is(del.state.phase, 'deleting');
  t.deepEqual(types(del).filter((x) => x === 'dnsLookup'), ['dnsLookup']);
  // Still in the record: no slot, no release; the condition says why.
  const held = dnsReply(del, ['10.10.1.5', '10.10.1.6'], T0 + 20_000);
  t.deepEqual(calls(held), []);
  t.false(types(held).includes('requestSlot'));
  t.is(condition(held.state, 'DNSAttached')?.reason, 'DNSDetachPending');
  t.deepEqual(held.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  // The cluster changed the record: it is read again at once, and once the address is gone the release starts.
  t.deepEqual(types(tick(held.state, T0 + 21_000)).filter((x) => x === 'dnsLookup'), []);
  const woken = send(held.state, { type: 'dnsChanged' }, T0 + 21_000);
  t.deepEqual(types(woken).filter((x) => x === 'dnsLookup'), ['dnsLookup']);
  const again = dnsReply(woken, ['10.10.1.6'], T0 + 21_000);
  t.deepEqual(again.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'release' }]);
  t.deepEqual(calls(grant(again.state, T0 + 21_000)), [{ op: 'release', systemId: 'abc123' }]);
});

test('maas machine capi - every phase has a handler and an idle tick in each is harmless', (t) => {
  t.deepEqual([...MAAS_MACHINE_PHASES].sort(), ['allocated', 'deleting', 'deployed', 'deploying', 'failed', 'gone', 'pending']);
  for (const phase of MAAS_MACHINE_PHASES) {
    const s = { ...start(maasMachine({ systemID: 'abc123' })), phase, gone: phase === 'gone' };
    const st = tick(s);
    t.true(calls(st).length <= 1, phase);
  }
});
