// A machine whose power MAAS cannot read (error, unknown) is never powered: CAPMAAS PR #379's bug
// (a power_on MAAS's IPMI driver runs as a hard cycle) is not ours. Pure steps, no I/O.
import test from 'ava';
import fc from 'fast-check';
import { POWER_OFF_ANNOTATION, viewMaasMachine } from '../../src/machines/maas-machine/index.ts';
import type { MaasMachineStep } from '../../src/machines/maas-machine/index.ts';
import { T0, calls, condition, deploying, grant, maasMachine, noneEarlier, observe, reply, start, tick, view, world } from './maas-fixtures.ts';

const POWER_KNOWN = 'MachinePowerKnown';
const requeues = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'requeue' ? [e.afterMs] : []));
const powerCalls = (st: MaasMachineStep) => calls(st).filter((c) => c.op === 'powerOn' || c.op === 'powerOff');

/** A worker Deployed, on and ready at T0 + 10 s. */
function deployedWorker(): MaasMachineStep {
  const d = deploying();
  return reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
}

/** The next look at MAAS (due `at`) answered with Deployed and `power`. */
function readAt(st: MaasMachineStep, at: number, power: string, status = 'Deployed'): MaasMachineStep {
  const poll = tick(st.state, at);
  if (calls(poll)[0]?.op !== 'get') throw new Error(`expected a get at ${at - T0} ms, got ${JSON.stringify(calls(poll))} (requeues ${JSON.stringify(requeues(st))})`);
  return reply(poll, { kind: 'done', machine: view(status, power) }, at);
}

for (const power of ['error', 'unknown'] as const) {
  const reason = power === 'error' ? 'PowerStateError' : 'PowerStateUnknown';

  test(`maas power known - a deployed machine reading '${power}' is not powered on: it waits, says why and re-reads with a capped backoff`, (t) => {
    const ready = deployedWorker();
    t.true(ready.state.status.ready);
    let at = T0 + 70_000;
    let st = readAt(ready, at, power);
    t.deepEqual(calls(st), [], 'no power action, no call at all');
    const c = condition(st.state, POWER_KNOWN);
    t.is(c?.status, 'False');
    t.is(c?.reason, reason);
    t.regex(c?.message ?? '', new RegExp(`^MAAS reads power '${power}' for machine abc123 \\(.*\\); not powering on a deployed machine, which MAAS would hard-cycle; re-reading in 20s$`));
    t.true(st.effects.some((e) => e.type === 'event' && e.severity === 'Warning' && e.reason === reason));
    // Still deployed and ready: an unreadable BMC says nothing about the machine itself.
    t.is(st.state.phase, 'deployed');
    t.true(st.state.status.ready);
    t.true(st.state.status.machinePowered, 'the last power read stands');
    t.is(condition(st.state, 'Ready')?.status, 'True');
    t.is(viewMaasMachine(st.state).power, 'unknown', 'readers are told power is not known now');
    // Backoff: 20 s doubling, capped at 5 min; never a power call.
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [wait = -1] = requeues(st);
      waits.push(wait);
      t.deepEqual(calls(tick(st.state, at + wait - 1)), [], 'nothing before the re-read is due');
      at += wait;
      st = readAt(st, at, power);
      t.deepEqual(powerCalls(st), []);
    }
    t.deepEqual(waits, [20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    t.false(st.effects.some((e) => e.type === 'event' && e.reason === reason), 'warned once per outage, not per read');

    // Power reads on again: the condition goes, nothing is powered, the steady poll resumes.
    const [wait = -1] = requeues(st);
    at += wait;
    const back = readAt(st, at, 'on');
    t.deepEqual(calls(back), []);
    t.is(condition(back.state, POWER_KNOWN), undefined);
    t.true(back.state.status.ready);
    t.deepEqual(requeues(back), [60_000]);
    t.is(viewMaasMachine(back.state).power, 'on');
    t.true(back.effects.some((e) => e.type === 'event' && e.reason === 'PowerStateKnown'));
    // A later outage starts its backoff afresh.
    const again = readAt(back, at + 60_000, power);
    t.deepEqual(requeues(again), [20_000]);
  });

  test(`maas power known - a deployed machine reading '${power}', then a confirmed 'off', is powered on only at the 'off' read`, (t) => {
    const st = readAt(deployedWorker(), T0 + 70_000, power);
    t.deepEqual(powerCalls(st), []);
    const off = readAt(st, T0 + 90_000, 'off');
    t.deepEqual(calls(off), [{ op: 'powerOn', systemId: 'abc123' }]);
    t.is(condition(off.state, POWER_KNOWN), undefined);
    t.is(condition(off.state, 'MachineDeployed')?.reason, 'MachinePoweredOff');
  });

  test(`maas power known - a deploying machine reading '${power}' keeps its slot, is not powered, and is followed at the deploy poll`, (t) => {
    const d = deploying();
    const st = readAt(d, T0 + 10_000, power, 'Deploying');
    t.deepEqual(calls(st), []);
    t.is(st.state.phase, 'deploying');
    t.is(st.state.slot.phase, 'held');
    t.is(condition(st.state, POWER_KNOWN)?.reason, reason);
    t.regex(condition(st.state, POWER_KNOWN)?.message ?? '', /leaving the deploying machine's power alone; re-reading in 10s$/);
    t.is(condition(st.state, 'MachineDeployed')?.reason, 'MachineDeploying', 'not "powered off": its power is not known');
    t.deepEqual(requeues(st), [10_000]);
    const done = readAt(st, T0 + 20_000, 'on');
    t.true(done.state.status.ready);
    t.is(condition(done.state, POWER_KNOWN), undefined);
  });

  test(`maas power known - a machine MAAS reads as Allocated with power '${power}' is deployed as before (no workload runs on it yet)`, (t) => {
    const s1 = grant(noneEarlier(tick(start(maasMachine({}, {}, false), world(), { skipSwap: true }))).state);
    const s2 = reply(s1, { kind: 'done', machine: view('Allocated', power) });
    t.deepEqual(calls(s2), [{ op: 'deploy', systemId: 'abc123', image: 'ubuntu/jammy', ephemeral: false }]);
    t.is(condition(s2.state, POWER_KNOWN), undefined);
  });

  test(`maas power known - a machine held off on request reading '${power}' is not powered off either`, (t) => {
    const ready = deployedWorker();
    const held = maasMachine({}, { annotations: { [POWER_OFF_ANNOTATION]: '' } }, false);
    const asked = observe(ready.state, { ...held, spec: { ...held.spec, providerID: 'maas:///az1/abc123', systemID: 'abc123' } }, ready.state.world, T0 + 11_000);
    t.deepEqual(calls(asked), [{ op: 'get', systemId: 'abc123' }]);
    const st = reply(asked, { kind: 'done', machine: view('Deployed', power) }, T0 + 11_000);
    t.deepEqual(calls(st), []);
    t.is(condition(st.state, POWER_KNOWN)?.reason, reason);
    const off = readAt(st, T0 + 31_000, 'on');
    t.deepEqual(calls(off), [{ op: 'powerOff', systemId: 'abc123' }], 'once power reads on, the request is carried out');
  });
}

test('maas power known - whatever mix of unreadable power a deployed machine reads, it is never powered', (t) => {
  fc.assert(fc.property(fc.array(fc.constantFrom('error', 'unknown'), { minLength: 1, maxLength: 12 }), (reads) => {
    let st = deployedWorker();
    let at = T0 + 70_000;
    for (const power of reads) {
      st = readAt(st, at, power);
      if (powerCalls(st).length > 0) return false;
      if (condition(st.state, POWER_KNOWN)?.status !== 'False' || !st.state.status.ready) return false;
      at += requeues(st)[0] ?? 0;
    }
    return true;
  }));
  t.pass();
});
