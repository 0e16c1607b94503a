// A new owner adopts the MAAS machine an earlier owner allocated (agent_name = the MaasMachine's
// uid) instead of allocating a second one: the pure logic, no I/O.
import test from 'ava';
import type { MaasCall, MaasMachinePhase, MaasMachineStep, MaasView } from '../../src/machines/maas-machine/index.ts';
import { T0, calls, condition, grant, maasMachine, noneEarlier, observe, reply, send, start, tick, types, view, world } from './maas-fixtures.ts';

const withUid = (uid: string, meta: Parameters<typeof maasMachine>[1] = {}) => maasMachine({}, { uid, ...meta }, false);
const listed = (st: MaasMachineStep, machines: readonly MaasView[], now = T0) => reply(st, { kind: 'listed', machines }, now);
const events = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'event' ? [e.reason] : []));
const specWrites = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'writeSpec' ? [e.patch] : []));

test('maas adopt - a fresh MaasMachine looks under its uid, finds nothing, and allocates tagged with its uid', (t) => {
  const looked = tick(start(withUid('uid-a')));
  t.deepEqual(calls(looked), [{ op: 'findAllocated', agentName: 'uid-a' }]);
  t.false(types(looked).includes('requestSlot'));
  const none = noneEarlier(looked);
  t.deepEqual(none.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'deploy' }]);
  const allocating = grant(none.state);
  t.deepEqual(calls(allocating), [{ op: 'allocate', agentName: 'uid-a', cpuCount: 4, memMb: 8192, zone: 'az1', pool: 'default', tags: ['fast', 'ssd'], image: 'ubuntu/jammy' }]);
});

test('maas adopt - a store without uids tags with namespace/name', (t) => {
  t.deepEqual(calls(tick(start(maasMachine({}, {}, false)))), [{ op: 'findAllocated', agentName: 'default/cp-0' }]);
});

test('maas adopt - table: what MAAS holds under the agent name decides adopt or allocate', (t) => {
  const rows: Array<{ name: string; found: MaasView[]; adopted: string | null; phase: MaasMachinePhase; also?: string }> = [
    { name: 'nothing', found: [], adopted: null, phase: 'pending' },
    { name: 'Allocated: adopted, deployed from here', found: [view('Allocated', 'off')], adopted: 'abc123', phase: 'allocated' },
    { name: 'Deploying: adopted mid-deploy', found: [view('Deploying')], adopted: 'abc123', phase: 'deploying' },
    { name: 'Deployed and on: adopted and ready', found: [view('Deployed', 'on')], adopted: 'abc123', phase: 'deployed' },
    // As CAPMAAS fails a MaasMachine whose providerID names a machine in this state (adopt.ts).
    { name: 'Failed deployment: adopted and failed', found: [view('Failed deployment', 'off')], adopted: 'abc123', phase: 'failed' },
    { name: 'Releasing: went back to MAAS, not ours', found: [view('Releasing', 'off')], adopted: null, phase: 'pending' },
    { name: 'Ready: not ours', found: [view('Ready', 'off')], adopted: null, phase: 'pending' },
    { name: 'a released one and an Allocated one: the Allocated one', found: [view('Releasing', 'off', 'old111'), view('Allocated', 'off', 'new222')], adopted: 'new222', phase: 'allocated' },
    { name: 'two held (a split brain): the furthest along, the other named', found: [view('Allocated', 'off', 'aaa111'), view('Deployed', 'on', 'zzz999')], adopted: 'zzz999', phase: 'deployed', also: 'MachineAllocatedTwice' },
  ];
  for (const row of rows) {
    const st = listed(tick(start(withUid('uid-a'))), row.found);
    t.is(st.state.phase, row.phase, row.name);
    t.is(st.state.systemId, row.adopted, row.name);
    t.false(calls(st).some((c) => c.op === 'allocate'), row.name);
    if (row.adopted) {
      t.deepEqual(specWrites(st), [{ providerID: `maas:///az1/${row.adopted}`, systemID: row.adopted, failureDomain: 'az1' }], row.name);
      t.true(events(st).includes('MachineAdopted'), row.name);
      t.is(events(st).includes('MachineAllocatedTwice'), row.also === 'MachineAllocatedTwice', row.name);
    } else {
      t.deepEqual(specWrites(st), [], row.name);
      t.deepEqual(st.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'deploy' }], row.name);
      t.deepEqual(calls(grant(st.state)).map((c) => c.op), ['allocate'], row.name);
    }
  }
});

test('maas adopt - an adopted machine goes on where the earlier owner left it: deploy, poll, or the failure CAPMAAS reports', (t) => {
  const allocated = listed(tick(start(withUid('uid-a'), world(), { skipSwap: true })), [view('Allocated', 'off')]);
  t.deepEqual(calls(grant(allocated.state)), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: false }]);
  const deploying = listed(tick(start(withUid('uid-a'))), [view('Deploying')]);
  // Already deploying at MAAS: counted against the limit at once, polled; nothing sent.
  t.deepEqual(deploying.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'deploy' }]);
  t.deepEqual(deploying.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  const failed = listed(tick(start(withUid('uid-a'))), [view('Failed deployment', 'off')]);
  t.is(condition(failed.state, 'MachineDeployed')?.reason, 'MachineStateUndefined');
  t.is(failed.state.status.failureReason, 'UpdateError');
});

// A minimal MAAS for the pure logic: machines keep the agent_name they were allocated with, and
// findAllocated filters by it exactly, as GET /machines/?agent_name= does.
function fakeMaas() {
  const held: Array<{ agentName: string; view: MaasView }> = [];
  let next = 0;
  return {
    held,
    answer(call: MaasCall) {
      if (call.op === 'findAllocated') return { kind: 'listed' as const, machines: held.filter((m) => m.agentName === call.agentName).map((m) => m.view) };
      if (call.op === 'allocate') {
        const v = view('Allocated', 'off', `m${String(next++).padStart(5, '0')}`);
        held.push({ agentName: call.agentName, view: v });
        return { kind: 'done' as const, machine: v };
      }
      throw new Error(`unexpected ${call.op}`);
    },
  };
}

/** Steps a MaasMachine against the fake MAAS until it holds a machine; returns its system id. */
function allocateAgainst(maas: ReturnType<typeof fakeMaas>, uid: string, name = 'cp-0'): string | null {
  let st = tick(start(withUid(uid, { name })));
  for (let i = 0; i < 6 && !st.state.systemId; i++) {
    const call = calls(st)[0];
    if (call) st = reply(st, maas.answer(call));
    else if (st.state.slot.phase === 'waiting') st = grant(st.state);
    else break;
  }
  return st.state.systemId;
}

test('maas adopt - never another object\'s machine: each MaasMachine gets its own, a recreated one (new uid) too', (t) => {
  const maas = fakeMaas();
  const a = allocateAgainst(maas, 'uid-a', 'cp-0');
  const b = allocateAgainst(maas, 'uid-b', 'cp-1');
  t.truthy(a);
  t.truthy(b);
  t.not(a, b);
  // cp-0 deleted and created again under the same name: a new incarnation, a new machine.
  const again = allocateAgainst(maas, 'uid-a2', 'cp-0');
  t.not(again, a);
  t.deepEqual(maas.held.map((m) => m.agentName), ['uid-a', 'uid-b', 'uid-a2']);
  // The same incarnation under a new owner adopts its own machine and allocates nothing.
  t.is(allocateAgainst(maas, 'uid-b', 'cp-1'), b);
  t.is(maas.held.length, 3);
});

test('maas adopt - an allocate whose answer is lost (timeout) is looked for before the next one', (t) => {
  const maas = fakeMaas();
  const none = noneEarlier(tick(start(withUid('uid-a'))));
  const allocating = grant(none.state);
  const call = calls(allocating)[0]!;
  maas.answer(call); // MAAS allocated, the answer never arrived.
  const lost = reply(allocating, { kind: 'transient', message: 'timeout' });
  t.is(lost.state.systemId, null);
  const retry = tick(lost.state, T0 + 60_000);
  t.deepEqual(calls(retry), [{ op: 'findAllocated', agentName: 'uid-a' }]);
  const adopted = reply(retry, maas.answer(calls(retry)[0]!), T0 + 60_000);
  t.is(adopted.state.systemId, 'm00000');
  t.false(calls(adopted).some((c) => c.op === 'allocate'));
  t.is(maas.held.length, 1);
});

test('maas adopt - a MaasMachine deleted before any owner wrote its providerID releases what MAAS holds for it', (t) => {
  const looked = tick(start(withUid('uid-a', { deletionTimestamp: '2026-01-01T00:00:00Z' })));
  t.deepEqual(calls(looked), [{ op: 'findAllocated', agentName: 'uid-a' }]);
  const adopted = listed(looked, [view('Deploying')]);
  t.is(adopted.state.phase, 'deleting');
  t.false(adopted.state.gone);
  t.deepEqual(adopted.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'release' }]);
  t.deepEqual(calls(grant(adopted.state)), [{ op: 'release', systemId: 'abc123' }]);
});

test('maas adopt - IDs that reach the object while the look is under way win over its answer', (t) => {
  const looked = tick(start(withUid('uid-a')));
  const restored = withUid('uid-a');
  const seen = observe(looked.state, { ...restored, spec: { ...restored.spec, systemID: 'kept01', providerID: 'maas:///az1/kept01' } });
  t.is(seen.state.systemId, 'kept01');
  const answered = reply(looked, { kind: 'listed', machines: [view('Allocated', 'off', 'other1')] });
  t.is(answered.state.systemId, 'other1', 'without the object\'s IDs the answer is adopted');
  const late = send(seen.state, { type: 'result', seq: looked.state.seq, result: { kind: 'listed', machines: [view('Allocated', 'off', 'other1')] } });
  t.is(late.state.systemId, 'kept01');
  t.deepEqual(specWrites(late), []);
});
