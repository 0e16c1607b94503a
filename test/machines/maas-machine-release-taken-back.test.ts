// Deleting a MaasMachine whose MAAS machine MAAS has already taken back (capmaas.md §3.2 release:
// 409 "Machine cannot be released in its current state ('New')."; §4.2: only Allocated, Reserved,
// Broken, Deploying, Deployed, Failed deployment, Failed disk erasing and Releasing failed are
// releasable). A fresh read that shows the machine in another state and owned by nobody means
// there is nothing left to release: the deletion finishes. Any other 409 keeps being retried with
// backoff; a 404 means the machine is gone.
import test from 'ava';
import type { MaasMachineStep, MaasResult, MaasView } from '../../src/machines/maas-machine/index.ts';
import { FINALIZER, T0, calls, condition, grant, maasMachine, reply, start, tick, view } from './maas-fixtures.ts';

const REFUSED: MaasResult = { kind: 'failed', reason: 'conflict', message: "POST /machines/abc123/ op=release answered 409: Machine cannot be released in its current state ('New')." };
const owned = (statusName: string, owner: string | null): MaasView => ({ ...view(statusName, 'off'), owner });

/** A worker being deleted whose release MAAS just refused with a 409. */
function refused(): MaasMachineStep {
  const s0 = tick(start(maasMachine({ systemID: 'abc123', providerID: 'maas:///az1/abc123' }, { deletionTimestamp: '2026-01-01T00:00:00Z' }, false)));
  const releasing = grant(s0.state);
  if (calls(releasing)[0]?.op !== 'release') throw new Error(`expected a release, not ${JSON.stringify(calls(releasing))}`);
  return reply(releasing, REFUSED);
}

const finished = (st: MaasMachineStep) => st.effects.some((e) => e.type === 'removeFinalizer');

for (const state of ['New', 'Ready', 'Commissioning', 'Disk erasing', 'Failed commissioning', 'Testing']) {
  test(`maas machine deletion - release refused (409) and MAAS shows the machine ${state}, owned by nobody: the deletion finishes`, (t) => {
    const r = refused();
    t.false(finished(r));
    t.false(r.state.gone);
    // The 409 alone is not trusted: MAAS is read first.
    t.deepEqual(calls(r), [{ op: 'get', systemId: 'abc123' }]);
    const done = reply(r, { kind: 'done', machine: owned(state, null) });
    t.true(done.state.gone);
    t.deepEqual(done.effects.filter((e) => e.type === 'removeFinalizer'), [{ type: 'removeFinalizer', finalizer: FINALIZER }]);
    t.true(done.effects.some((e) => e.type === 'releaseSlot'));
    t.is(condition(done.state, 'MachineDeployed')?.status, 'False');
    t.is(condition(done.state, 'MachineDeployed')?.reason, 'Deleted');
    const ev = done.effects.find((e) => e.type === 'event' && e.reason === 'SuccessfulRelease');
    t.truthy(ev);
    t.regex(ev?.type === 'event' ? ev.message : '', new RegExp(`abc123.*${state}`));
    t.deepEqual(calls(done), []);
  });
}

for (const [why, machine] of [
  ['still Deployed (a releasable state)', owned('Deployed', 'metalfleet')],
  ['Allocated to nobody yet releasable', owned('Allocated', null)],
  ['in Rescue mode and still owned', owned('Rescue mode', 'metalfleet')],
  ['New but with an owner', owned('New', 'metalfleet')],
  ['New, owner not known (a driver that does not say)', view('New', 'off')],
] as const) {
  test(`maas machine deletion - release refused (409) and MAAS shows the machine ${why}: retried with backoff, the finalizer stays`, (t) => {
    const r = refused();
    const read = reply(r, { kind: 'done', machine });
    t.false(read.state.gone);
    t.false(finished(read));
    t.deepEqual(calls(read), []);
    t.deepEqual(read.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 5_000 }]);
    // After the backoff the release is tried again, and a second refusal waits twice as long.
    const again = tick(read.state, T0 + 5_000);
    t.deepEqual(calls(again), [{ op: 'release', systemId: 'abc123' }]);
    const twice = reply(again, REFUSED, T0 + 5_000);
    const reread = reply(twice, { kind: 'done', machine }, T0 + 5_000);
    t.false(finished(reread));
    t.deepEqual(reread.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 10_000 }]);
  });
}

test('maas machine deletion - a read after the 409 that fails is retried; the deletion does not finish on it', (t) => {
  const r = refused();
  const lost = reply(r, { kind: 'transient', message: 'MAAS unavailable (503)' });
  t.false(finished(lost));
  t.false(lost.state.gone);
  const requeue = lost.effects.find((e) => e.type === 'requeue');
  const at = T0 + (requeue?.type === 'requeue' ? requeue.afterMs : 0);
  const again = tick(lost.state, at);
  t.deepEqual(calls(again), [{ op: 'get', systemId: 'abc123' }]);
  t.true(finished(reply(again, { kind: 'done', machine: owned('New', null) }, at)));
});

test('maas machine deletion - release refused with 403 (a non-admin key): read at once; a machine still this key\'s own is released again after the backoff', (t) => {
  const s0 = tick(start(maasMachine({ systemID: 'abc123', providerID: 'maas:///az1/abc123' }, { deletionTimestamp: 'x' }, false)));
  const r = reply(grant(s0.state), { kind: 'failed', reason: 'forbidden', message: 'answered 403' });
  t.false(finished(r));
  t.deepEqual(calls(r), [{ op: 'get', systemId: 'abc123' }]);
  const ours = reply(r, { kind: 'done', machine: { ...owned('Deployed', 'metalfleet'), ownedBySelf: true } });
  t.false(finished(ours));
  t.deepEqual(ours.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 5_000 }]);
  t.deepEqual(calls(tick(ours.state, T0 + 5_000)), [{ op: 'release', systemId: 'abc123' }]);
});

test('maas machine deletion - release refused with 403 and the read shows another MAAS user holding the machine: the deletion finishes, naming that user', (t) => {
  const s0 = tick(start(maasMachine({ systemID: 'abc123', providerID: 'maas:///az1/abc123' }, { deletionTimestamp: 'x' }, false)));
  const r = reply(grant(s0.state), { kind: 'failed', reason: 'forbidden', message: 'answered 403' });
  const theirs = reply(r, { kind: 'done', machine: { ...owned('Deployed', 'bob'), ownedBySelf: false } });
  t.true(finished(theirs));
  t.true(theirs.state.gone);
  t.true(theirs.effects.some((e) => e.type === 'event' && e.reason === 'MachineHeldByAnotherUser' && e.message.includes('MAAS user bob')));
});

test('maas machine deletion - 404 "No Machine matches" to the release: the machine is gone, the deletion finishes', (t) => {
  const s0 = tick(start(maasMachine({ systemID: 'abc123', providerID: 'maas:///az1/abc123' }, { deletionTimestamp: 'x' }, false)));
  const onRelease = reply(grant(s0.state), { kind: 'notFound' });
  t.true(onRelease.state.gone);
  t.true(finished(onRelease));
  t.true(onRelease.effects.some((e) => e.type === 'releaseSlot'));
  t.is(condition(onRelease.state, 'MachineDeployed')?.reason, 'Deleted');
});

test('maas machine deletion - 404 "No Machine matches" to the read after a 409: the machine is gone, the deletion finishes', (t) => {
  const onRead = reply(refused(), { kind: 'notFound' });
  t.true(onRead.state.gone);
  t.true(finished(onRead));
  t.is(condition(onRead.state, 'MachineDeployed')?.reason, 'Deleted');
});

// The driver says whose the owner is (ownedBySelf, from users/?op=whoami with the same key): a
// machine another MAAS user holds is not metalfleet's to release any more.
const held = (statusName: string, owner: string, ownedBySelf: boolean): MaasView => ({ ...owned(statusName, owner), ownedBySelf });

for (const state of ['Rescue mode', 'Testing', 'Deployed']) {
  test(`maas machine deletion - release refused (409) and MAAS shows the machine ${state}, owned by another MAAS user: the deletion finishes, saying whose it is`, (t) => {
    const done = reply(refused(), { kind: 'done', machine: held(state, 'bob', false) });
    t.true(done.state.gone);
    t.deepEqual(done.effects.filter((e) => e.type === 'removeFinalizer'), [{ type: 'removeFinalizer', finalizer: FINALIZER }]);
    t.true(done.effects.some((e) => e.type === 'releaseSlot'));
    t.is(condition(done.state, 'MachineDeployed')?.reason, 'Deleted');
    t.deepEqual(calls(done), []);
    t.deepEqual(done.effects.filter((e) => e.type === 'requeue'), []);
    const events = done.effects.flatMap((e) => (e.type === 'event' ? [e] : []));
    t.deepEqual(events.map((e) => [e.severity, e.reason]), [['Warning', 'MachineHeldByAnotherUser']]);
    t.regex(events[0]?.message ?? '', /abc123.* belongs to MAAS user bob.*metalfleet no longer holds it/);
  });
}

for (const [why, machine] of [
  ['owned by metalfleet\'s own MAAS user', held('Rescue mode', 'metalfleet', true)],
  ['owned by someone, whose the driver could not tell', owned('Rescue mode', 'bob')],
] as const) {
  test(`maas machine deletion - release refused (409) and the machine is ${why}: retried with backoff`, (t) => {
    const read = reply(refused(), { kind: 'done', machine });
    t.false(read.state.gone);
    t.false(finished(read));
    t.deepEqual(read.effects.filter((e) => e.type === 'requeue'), [{ type: 'requeue', afterMs: 5_000 }]);
    t.deepEqual(calls(tick(read.state, T0 + 5_000)), [{ op: 'release', systemId: 'abc123' }]);
  });
}
