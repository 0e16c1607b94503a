// Commands on a MaasMachine as the pure machine sees them: annotations on the typed object
// (metalfleet.io/power-off, metalfleet.io/release, cluster.x-k8s.io/paused), read on every step.
import test from 'ava';
import type { MaasMachineObject, MaasMachinePhase, MaasMachineStep } from '../../src/machines/maas-machine/index.ts';
import { POWER_OFF_ANNOTATION, POWERED_OFF_ON_REQUEST, RELEASE_ANNOTATION } from '../../src/machines/maas-machine/index.ts';
import { T0, calls, condition, deploying, grant, maasMachine, noneEarlier, observe, reply, start, tick, types, view, world } from './maas-fixtures.ts';

const annotate = (o: MaasMachineObject, set: Record<string, string>, drop: readonly string[] = []): MaasMachineObject => {
  const annotations: Record<string, string> = { ...(o.metadata.annotations ?? {}), ...set };
  for (const k of drop) delete annotations[k];
  return { ...o, metadata: { ...o.metadata, annotations } };
};

/** A worker Deployed, on and ready at T0 + 10 s. */
function deployedWorker(): MaasMachineStep {
  const d = deploying();
  return reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
}

const AT = T0 + 20_000;

test('maas commands - power-off: a deployed machine is looked at at once and powered off, not ready, the reason says it was asked', (t) => {
  const ready = deployedWorker();
  t.true(ready.state.status.ready);
  const asked = observe(ready.state, annotate(ready.state.object, { [POWER_OFF_ANNOTATION]: '' }), ready.state.world, AT);
  // The steady poll is a minute away; the command is not left waiting for it.
  t.deepEqual(calls(asked), [{ op: 'get', systemId: 'abc123' }]);
  const off = reply(asked, { kind: 'done', machine: view('Deployed', 'on') }, AT);
  t.deepEqual(calls(off), [{ op: 'powerOff', systemId: 'abc123' }]);
  t.false(off.state.status.ready);
  t.is(condition(off.state, 'MachineDeployed')?.reason, POWERED_OFF_ON_REQUEST);
  t.is(condition(off.state, 'Ready')?.reason, POWERED_OFF_ON_REQUEST);
  t.true(off.effects.some((e) => e.type === 'event' && e.reason === 'PoweringOff'));
  const done = reply(off, { kind: 'done', machine: view('Deployed', 'off') }, AT);
  t.false(done.state.status.machinePowered);
  t.deepEqual(calls(done), []);
  t.deepEqual(done.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 60_000 }]);
});

test('maas commands - power-off holds: the keep-on loop does not power it on, poll after poll; the status says why', (t) => {
  const ready = deployedWorker();
  const asked = observe(ready.state, annotate(ready.state.object, { [POWER_OFF_ANNOTATION]: '' }), ready.state.world, AT);
  let s = reply(reply(asked, { kind: 'done', machine: view('Deployed', 'on') }, AT), { kind: 'done', machine: view('Deployed', 'off') }, AT).state;
  for (let i = 1; i <= 3; i++) {
    const now = AT + i * 61_000;
    const poll = tick(s, now);
    t.deepEqual(calls(poll), [{ op: 'get', systemId: 'abc123' }], `poll ${i}`);
    const seen = reply(poll, { kind: 'done', machine: view('Deployed', 'off') }, now);
    t.deepEqual(calls(seen), [], `no power call at poll ${i}`);
    t.false(seen.state.status.ready);
    t.false(seen.state.status.machinePowered);
    t.is(seen.state.phase, 'deployed');
    s = seen.state;
  }
  const c = condition(s, 'MachineDeployed');
  t.is(c?.status, 'False');
  t.is(c?.reason, POWERED_OFF_ON_REQUEST);
  t.regex(c?.message ?? '', /powered off on request \(metalfleet\.io\/power-off\)/);
  // Turned on behind our back (someone at the BMC): powered off again.
  const poll = tick(s, AT + 400_000);
  t.deepEqual(calls(reply(poll, { kind: 'done', machine: view('Deployed', 'on') }, AT + 400_000)), [{ op: 'powerOff', systemId: 'abc123' }]);
});

test('maas commands - power-on removes the hold: looked at at once, powered on by the keep-on loop, ready again', (t) => {
  const ready = deployedWorker();
  const held = annotate(ready.state.object, { [POWER_OFF_ANNOTATION]: '' });
  const asked = observe(ready.state, held, ready.state.world, AT);
  const s = reply(reply(asked, { kind: 'done', machine: view('Deployed', 'on') }, AT), { kind: 'done', machine: view('Deployed', 'off') }, AT).state;
  const resumed = observe(s, annotate(held, {}, [POWER_OFF_ANNOTATION]), s.world, AT + 1_000);
  t.deepEqual(calls(resumed), [{ op: 'get', systemId: 'abc123' }]);
  const on = reply(resumed, { kind: 'done', machine: view('Deployed', 'off') }, AT + 1_000);
  t.deepEqual(calls(on), [{ op: 'powerOn', systemId: 'abc123' }]);
  t.is(condition(on.state, 'MachineDeployed')?.reason, 'MachinePoweredOff');
  const back = reply(on, { kind: 'done', machine: view('Deployed', 'on') }, AT + 1_000);
  const seen = reply(tick(back.state, AT + 62_000), { kind: 'done', machine: view('Deployed', 'on') }, AT + 62_000);
  t.true(seen.state.status.ready);
  t.is(condition(seen.state, 'MachineDeployed')?.status, 'True');
});

test('maas commands - power-off asked while a power-on is in flight is acted on when it returns', (t) => {
  const ready = deployedWorker();
  const at = T0 + 70_000;
  const found = reply(tick(ready.state, at), { kind: 'done', machine: view('Deployed', 'off') }, at);
  t.deepEqual(calls(found), [{ op: 'powerOn', systemId: 'abc123' }]);
  const asked = observe(found.state, annotate(found.state.object, { [POWER_OFF_ANNOTATION]: '' }), found.state.world, at + 1);
  t.deepEqual(calls(asked), [], 'one call at a time');
  // The power-on's answer comes to the state that has seen the command.
  const returned = reply({ state: asked.state, effects: found.effects }, { kind: 'done', machine: view('Deployed', 'on') }, at + 2);
  t.deepEqual(calls(returned), [{ op: 'get', systemId: 'abc123' }], 'looked at again at once, not after the power requeue');
  t.deepEqual(calls(reply(returned, { kind: 'done', machine: view('Deployed', 'on') }, at + 2)), [{ op: 'powerOff', systemId: 'abc123' }]);
});

test('maas commands - power-off of a machine still deploying waits for Deployed, then powers it off', (t) => {
  const d = deploying();
  const asked = observe(d.state, annotate(d.state.object, { [POWER_OFF_ANNOTATION]: '' }), d.state.world, T0 + 1_000);
  const poll = reply(asked, { kind: 'done', machine: view('Deploying', 'on') }, T0 + 1_000);
  t.deepEqual(calls(poll), []);
  t.is(poll.state.phase, 'deploying');
  const done = reply(tick(poll.state, T0 + 11_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 11_000);
  t.deepEqual(calls(done), [{ op: 'powerOff', systemId: 'abc123' }]);
  t.false(done.state.status.ready);
});

test('maas commands - release: a deployed machine is released with a release slot, then failed as CAPMAAS marks a lost machine, keeping its providerID', (t) => {
  const ready = deployedWorker();
  const object = annotate({ ...ready.state.object, spec: { ...ready.state.object.spec, providerID: 'maas:///az1/abc123', systemID: 'abc123' } }, { [RELEASE_ANNOTATION]: 'r-42' });
  const asked = observe(ready.state, object, ready.state.world, AT);
  t.deepEqual(asked.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'release' }]);
  t.deepEqual(calls(asked), []);
  const granted = grant(asked.state, AT);
  t.deepEqual(calls(granted), [{ op: 'release', systemId: 'abc123' }]);
  const released = reply(granted, { kind: 'done', machine: view('Releasing', 'on') }, AT);
  t.is(released.state.phase, 'failed');
  t.is(released.state.status.failureReason, 'UpdateError');
  t.is(released.state.status.failureMessage, 'MAAS machine abc123 was released by command r-42');
  t.is(released.state.status.machineState, 'Releasing');
  t.false(released.state.status.ready);
  t.is(condition(released.state, 'MachineDeployed')?.reason, 'MachineTerminatedReason');
  t.is(released.state.slot.phase, 'none');
  t.true(types(released).includes('releaseSlot'));
  t.false(types(released).includes('writeSpec'), 'the providerID is never rewritten');
  t.false(types(released).includes('removeFinalizer'), 'the object stays until Cluster API deletes it');
  t.is(released.state.systemId, 'abc123');
  // Failed is terminal: no more calls, whatever comes.
  t.deepEqual(calls(tick(released.state, AT + 600_000)), []);
});

test('maas commands - release table: where the machine is decides what happens', (t) => {
  const released = { kind: 'done', machine: view('Releasing', 'off') } as const;
  const rows: Array<{ name: string; run: () => MaasMachineStep; calls: unknown[]; phase: MaasMachinePhase; message?: RegExp }> = [
    {
      name: 'deploying: the deploy slot it holds covers the release, which starts at once',
      run: () => {
        const d = deploying();
        return observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-1' }), d.state.world, T0 + 1_000);
      },
      calls: [{ op: 'release', systemId: 'abc123' }], phase: 'deploying',
    },
    {
      name: 'deploying, release answered: failed',
      run: () => {
        const d = deploying();
        return reply(observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-1' }), d.state.world, T0 + 1_000), released, T0 + 1_000);
      },
      calls: [], phase: 'failed', message: /^MAAS machine abc123 was released by command r-1$/,
    },
    {
      name: 'pending, nothing allocated: failed at once, nothing called',
      run: () => noneEarlier(tick(start(annotate(maasMachine(), { [RELEASE_ANNOTATION]: '' }), world()))),
      calls: [], phase: 'failed', message: /before a MAAS machine was allocated; nothing was released/,
    },
    {
      name: 'pending, with a machine an earlier owner allocated for it: adopted, then released',
      run: () => grant(reply(tick(start(annotate(maasMachine(), { [RELEASE_ANNOTATION]: 'r-0' }), world())), { kind: 'listed', machines: [view('Allocated', 'off')] }).state),
      calls: [{ op: 'release', systemId: 'abc123' }], phase: 'allocated',
    },
    {
      name: 'MAAS no longer has it: failed, saying so',
      run: () => {
        const d = deploying();
        return reply(observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-2' }), d.state.world, T0 + 1_000), { kind: 'notFound' }, T0 + 1_000);
      },
      calls: [], phase: 'failed', message: /released by command r-2 \(MAAS no longer has it\)/,
    },
    {
      // A 409 is no longer retried blind (it was, for ever): MAAS is read first, as on delete;
      // what the read shows is covered by small-maas-release-conflict.test.ts.
      name: 'MAAS refuses the release: MAAS is read at once, not failed',
      run: () => {
        const d = deploying();
        return reply(observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-3' }), d.state.world, T0 + 1_000), { kind: 'failed', message: "Machine cannot be released in its current state ('New').", reason: 'conflict' }, T0 + 1_000);
      },
      calls: [{ op: 'get', systemId: 'abc123' }], phase: 'deploying',
    },
    {
      name: 'paused (cluster.x-k8s.io/paused): nothing happens',
      run: () => {
        const d = deploying();
        return observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-4', 'cluster.x-k8s.io/paused': '' }), d.state.world, T0 + 1_000);
      },
      calls: [], phase: 'deploying',
    },
    {
      name: 'being deleted: released as a deletion, the finalizer comes off (no failure)',
      run: () => {
        const d = deploying();
        const o = annotate({ ...d.state.object, metadata: { ...d.state.object.metadata, deletionTimestamp: '2026-01-01T00:00:01Z' } }, { [RELEASE_ANNOTATION]: 'r-5' });
        return reply(observe(d.state, o, d.state.world, T0 + 1_000), released, T0 + 1_000);
      },
      calls: [], phase: 'gone',
    },
  ];
  for (const row of rows) {
    const st = row.run();
    t.deepEqual(calls(st), row.calls, row.name);
    t.is(st.state.phase, row.phase, row.name);
    if (row.message) t.regex(st.state.status.failureMessage ?? '', row.message, row.name);
    else t.is(st.state.status.failureReason, undefined, row.name);
  }
});

test('maas commands - a retried release after MAAS refused it goes out again after the backoff', (t) => {
  const d = deploying();
  const asked = observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-3' }), d.state.world, T0 + 1_000);
  const conflict = reply(asked, { kind: 'failed', message: 'busy', reason: 'conflict' }, T0 + 1_000);
  t.true(conflict.effects.some((e) => e.type === 'event' && e.reason === 'MachineReleaseFailed'));
  // After a 409, MAAS is read before the backoff (it used to back off at once): a machine still
  // Deployed, so still releasable, is released again after the backoff.
  t.deepEqual(calls(conflict), [{ op: 'get', systemId: 'abc123' }]);
  const refused = reply(conflict, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 1_000);
  t.deepEqual(calls(tick(refused.state, T0 + 2_000)), []);
  t.deepEqual(calls(tick(refused.state, T0 + 1_000 + 5_000)), [{ op: 'release', systemId: 'abc123' }]);
});

test('maas commands - power-off with the machine paused calls nothing until unpaused', (t) => {
  const ready = deployedWorker();
  const paused = observe(ready.state, annotate(ready.state.object, { [POWER_OFF_ANNOTATION]: '', 'cluster.x-k8s.io/paused': '' }), ready.state.world, AT);
  t.deepEqual(calls(paused), []);
  t.is(condition(paused.state, 'Paused')?.status, 'True');
  const resumed = observe(paused.state, annotate(paused.state.object, {}, ['cluster.x-k8s.io/paused']), paused.state.world, AT + 1_000);
  t.deepEqual(calls(resumed), [{ op: 'get', systemId: 'abc123' }]);
  t.deepEqual(calls(reply(resumed, { kind: 'done', machine: view('Deployed', 'on') }, AT + 1_000)), [{ op: 'powerOff', systemId: 'abc123' }]);
});

test('maas commands - a restart with the hold recorded keeps the machine off', (t) => {
  const object = annotate(maasMachine({ providerID: 'maas:///az1/abc123', systemID: 'abc123' }, {}, false), { [POWER_OFF_ANNOTATION]: '' });
  const s = start({ ...object, status: { ready: false, initialization: { provisioned: true } } }, world());
  const first = tick(s, AT);
  t.deepEqual(calls(first), [{ op: 'get', systemId: 'abc123' }]);
  t.deepEqual(calls(reply(first, { kind: 'done', machine: view('Deployed', 'off') }, AT)), []);
});
