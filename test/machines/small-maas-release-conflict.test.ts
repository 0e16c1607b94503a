// A release asked by command (metalfleet.io/release) that MAAS answers 409 (capmaas.md §3.2:
// "Machine cannot be released in its current state ('New')."): MAAS is read before anything else,
// as the deletion does after a 409 and the command does after a 403. Released or gone: the
// MaasMachine fails, saying what MAAS did; still ours and releasable: released again after the
// backoff; held by another MAAS user: failed for good, never retried.
import test from 'ava';
import type { MaasMachineObject, MaasMachineStep, MaasResult, MaasView } from '../../src/machines/maas-machine/index.ts';
import { RELEASE_ANNOTATION } from '../../src/machines/maas-machine/index.ts';
import { T0, calls, condition, deploying, observe, reply, tick, view } from './maas-fixtures.ts';

const AT = T0 + 1_000;
const CONFLICT: MaasResult = { kind: 'failed', reason: 'conflict', message: "POST /machines/abc123/ op=release answered 409: Machine cannot be released in its current state ('New')." };

const annotate = (o: MaasMachineObject, set: Record<string, string>): MaasMachineObject =>
  ({ ...o, metadata: { ...o.metadata, annotations: { ...(o.metadata.annotations ?? {}), ...set } } });
const owned = (statusName: string, owner: string | null, ownedBySelf?: boolean): MaasView =>
  ({ ...view(statusName, 'off'), owner, ...(ownedBySelf === undefined ? {} : { ownedBySelf }) });
const requeues = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'requeue' ? [e.afterMs] : []));
const events = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'event' ? [e] : []));

/** A deploying worker asked to release (r-9), whose release MAAS just answered 409. */
function conflicted(): MaasMachineStep {
  const d = deploying();
  const asked = observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-9' }), d.state.world, AT);
  if (calls(asked)[0]?.op !== 'release') throw new Error(`expected a release, not ${JSON.stringify(calls(asked))}`);
  return reply(asked, CONFLICT, AT);
}

test('maas release conflict - a commanded release answered 409 reads MAAS at once, not after a backoff', (t) => {
  const r = conflicted();
  t.deepEqual(calls(r), [{ op: 'get', systemId: 'abc123' }]);
  t.deepEqual(requeues(r), []);
  t.not(r.state.phase, 'failed');
  t.true(events(r).some((e) => e.reason === 'MachineReleaseFailed'));
});

for (const state of ['New', 'Ready', 'Commissioning']) {
  test(`maas release conflict - the read shows the machine ${state}, owned by nobody: failed, saying MAAS had already taken it back`, (t) => {
    const done = reply(conflicted(), { kind: 'done', machine: owned(state, null) }, AT);
    t.is(done.state.phase, 'failed');
    t.is(done.state.status.failureReason, 'UpdateError');
    const message = done.state.status.failureMessage ?? '';
    t.regex(message, new RegExp(`MAAS machine abc123 is ${state}`));
    t.regex(message, /MAAS had already taken it back/);
    t.regex(message, /r-9/, 'names the command');
    t.notRegex(message, /was released by/, 'the command released nothing');
    t.is(done.state.status.machineState, state);
    t.is(condition(done.state, 'MachineDeployed')?.reason, 'MachineTerminatedReason');
    t.deepEqual(calls(done), []);
    t.deepEqual(requeues(done), []);
    t.true(done.effects.some((e) => e.type === 'releaseSlot'));
    t.deepEqual(calls(tick(done.state, AT + 3_600_000)), [], 'nothing more is asked of MAAS');
  });
}

test('maas release conflict - the read finds no such machine (404): failed, saying MAAS no longer has it, not that the command released it', (t) => {
  const done = reply(conflicted(), { kind: 'notFound' }, AT);
  t.is(done.state.phase, 'failed');
  const message = done.state.status.failureMessage ?? '';
  t.regex(message, /MAAS machine abc123 no longer exists/);
  t.regex(message, /r-9/);
  t.notRegex(message, /was released by/);
  t.false(done.state.status.machinePowered);
  t.deepEqual(calls(done), []);
});

test('maas release conflict - still ours and releasable: released again after the backoff, which grows, MAAS read after each 409', (t) => {
  const machine = owned('Deployed', 'metalfleet', true);
  let st = reply(conflicted(), { kind: 'done', machine }, AT);
  let now = AT;
  const delays: number[] = [];
  for (let i = 0; i < 3; i++) {
    t.not(st.state.phase, 'failed');
    t.is(st.state.status.failureReason, undefined);
    t.deepEqual(calls(st), [], `attempt ${i}: waits`);
    const [delay] = requeues(st);
    t.truthy(delay);
    delays.push(delay ?? 0);
    t.deepEqual(calls(tick(st.state, now + (delay ?? 0) - 1)), [], 'nothing before the backoff');
    now += delay ?? 0;
    const again = tick(st.state, now);
    t.deepEqual(calls(again), [{ op: 'release', systemId: 'abc123' }], `attempt ${i}: released again`);
    const refused = reply(again, CONFLICT, now);
    t.deepEqual(calls(refused), [{ op: 'get', systemId: 'abc123' }], `attempt ${i}: read first`);
    st = reply(refused, { kind: 'done', machine }, now);
  }
  t.deepEqual(delays, [5_000, 10_000, 20_000]);
});

test('maas release conflict - the read shows another MAAS user holding the machine: failed for good, naming them, never retried', (t) => {
  const done = reply(conflicted(), { kind: 'done', machine: owned('Deployed', 'bob', false) }, AT);
  t.is(done.state.phase, 'failed');
  t.is(done.state.status.failureReason, 'UpdateError');
  const message = done.state.status.failureMessage ?? '';
  t.regex(message, /another MAAS user \(bob\) holds MAAS machine abc123/);
  t.regex(message, /r-9/);
  t.notRegex(message, /403/, 'MAAS answered 409, not 403');
  t.notRegex(message, /was released by/);
  t.is(condition(done.state, 'MachineDeployed')?.reason, 'MachineHeldByAnotherUser');
  t.deepEqual(events(done).map((e) => [e.severity, e.reason]), [['Warning', 'MachineHeldByAnotherUser']]);
  t.deepEqual(calls(done), []);
  t.deepEqual(requeues(done), []);
  t.deepEqual(calls(tick(done.state, AT + 3_600_000)), []);
});

test('maas release conflict - the read is refused as another user\'s machine MAAS does not name: failed for good', (t) => {
  const done = reply(conflicted(), { kind: 'failed', reason: 'heldByAnotherUser', message: 'GET /machines/abc123/ answered 403' }, AT);
  t.is(done.state.phase, 'failed');
  t.regex(done.state.status.failureMessage ?? '', /another MAAS user holds MAAS machine abc123/);
  t.deepEqual(calls(done), []);
  t.deepEqual(requeues(done), []);
});

test('maas release conflict - a read that fails is retried after the backoff, and the release waits for it', (t) => {
  const lost = reply(conflicted(), { kind: 'transient', message: 'MAAS unavailable (503)' }, AT);
  t.not(lost.state.phase, 'failed');
  const [delay] = requeues(lost);
  t.truthy(delay);
  const again = tick(lost.state, AT + (delay ?? 0));
  t.deepEqual(calls(again), [{ op: 'get', systemId: 'abc123' }]);
  t.is(reply(again, { kind: 'done', machine: owned('New', null) }, AT + (delay ?? 0)).state.phase, 'failed');
});

test('maas release conflict - after a 403 too, a read showing the machine taken back says MAAS had already taken it back, not that the command released it', (t) => {
  const d = deploying();
  const asked = observe(d.state, annotate(d.state.object, { [RELEASE_ANNOTATION]: 'r-9' }), d.state.world, AT);
  const refused = reply(asked, { kind: 'failed', reason: 'forbidden', message: 'POST /machines/abc123/ op=release answered 403' }, AT);
  t.deepEqual(calls(refused), [{ op: 'get', systemId: 'abc123' }]);
  const done = reply(refused, { kind: 'done', machine: owned('New', null) }, AT);
  t.is(done.state.phase, 'failed');
  t.regex(done.state.status.failureMessage ?? '', /MAAS machine abc123 is New and allocated to nobody: MAAS had already taken it back/);
  t.notRegex(done.state.status.failureMessage ?? '', /was released by/);
});
