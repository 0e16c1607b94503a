import test from 'ava';
import { REBOOT } from '../../src/machines/bmh/index.ts';
import type { Step } from '../../src/machines/bmh/index.ts';
import { atState, calls, grant, reply, T0, tick } from '../support/bmh.ts';

// reference/bmo.md §1.8: "`force:true` also aborts `inspect wait`/`wait call-back` to reboot into a
// new PPI", and §5.2 Inspect: "`inspect wait` → poll (or `abort` on force reboot); `inspect failed`
// → error or restart (also restart if `last_error` says "aborted")". BMO's actionInspecting passes
// hasRebootAnnotation(info, true) as InspectHardware's forceReboot and, once the provisioner says
// started (a fresh inspection or an aborted one), removes the base reboot annotation.

const HARD_FORCED = JSON.stringify({ mode: 'hard', force: true });

function inspecting(annotations: Record<string, string>): Step {
  return grant(tick(atState('inspecting', { annotations })).state);
}

function inspectCall(s: Step) {
  const call = calls(s.effects)[0];
  if (call?.op !== 'inspect') throw new Error(`expected an inspect call, got ${call?.op}`);
  return call;
}

test('bmh - BMO actionInspecting: a forced reboot annotation asks the inspection to be aborted (forceReboot)', (t) => {
  const s = inspecting({ [REBOOT]: HARD_FORCED });
  t.is(s.state.host.status.provisioning.state, 'inspecting');
  t.true(inspectCall(s).forceReboot);
});

test('bmh - BMO actionInspecting: a reboot annotation without force leaves the inspection alone', (t) => {
  for (const value of ['', JSON.stringify({ mode: 'hard' }), JSON.stringify({ mode: 'soft', force: false })]) {
    const s = inspecting({ [REBOOT]: value });
    t.falsy(inspectCall(s).forceReboot, value);
  }
  t.falsy(inspectCall(inspecting({})).forceReboot);
});

test('bmh - BMO actionInspecting: once the abort is taken (started) the base reboot annotation goes and the inspection is restarted, with no error', (t) => {
  const s0 = inspecting({ [REBOOT]: HARD_FORCED });
  const s1 = reply(s0, { kind: 'continuing', afterMs: 3_000, started: true });
  t.true(s1.effects.some((e) => e.type === 'removeAnnotation' && e.key === REBOOT));
  t.false(REBOOT in (s1.state.host.metadata.annotations ?? {}));
  t.is(s1.state.host.status.provisioning.state, 'inspecting');
  t.is(s1.state.host.status.errorType ?? '', '');
  // The next call restarts the aborted inspection (the backend's node is in inspect failed) and
  // aborts nothing any more.
  const s2 = tick(s1.state, T0 + 3_000);
  const next = inspectCall(s2);
  t.falsy(next.forceReboot);
  t.true(next.restartOnFailure, 'an inspection this host aborted is restarted, not reported as failed');
  // Once the backend answered that call, later polls are plain again.
  const s3 = reply(s2, { kind: 'continuing', afterMs: 3_000, started: true }, T0 + 3_000);
  const later = inspectCall(tick(s3.state, T0 + 6_000));
  t.false(later.restartOnFailure);
  t.falsy(later.forceReboot);
});

test('bmh - BMO actionInspecting: an inspection not in inspect wait yet keeps being asked to abort until the backend takes it', (t) => {
  const s0 = inspecting({ [REBOOT]: HARD_FORCED });
  // Ironic's `inspecting` cannot be aborted: the provisioner polls, nothing started.
  const s1 = reply(s0, { kind: 'continuing', afterMs: 10_000 });
  t.true(REBOOT in (s1.state.host.metadata.annotations ?? {}));
  t.true(inspectCall(tick(s1.state, T0 + 10_000)).forceReboot);
});

test('bmh - a suffixed forced reboot annotation aborts the inspection once, stays, and does not abort the restarted one', (t) => {
  const key = `${REBOOT}/phased`;
  const s0 = inspecting({ [key]: HARD_FORCED });
  t.true(inspectCall(s0).forceReboot);
  const s1 = reply(s0, { kind: 'continuing', afterMs: 3_000, started: true });
  // Only the base annotation is BMO's to remove: a suffixed one belongs to whoever set it.
  t.false(s1.effects.some((e) => e.type === 'removeAnnotation'));
  t.true(key in (s1.state.host.metadata.annotations ?? {}));
  const s2 = tick(s1.state, T0 + 3_000);
  t.falsy(inspectCall(s2).forceReboot);
  const s3 = reply(s2, { kind: 'continuing', afterMs: 10_000, started: true }, T0 + 3_000);
  t.falsy(inspectCall(tick(s3.state, T0 + 13_000)).forceReboot, 'the restarted inspection is not aborted again');
});

test('bmh - BMO actionInspecting: an inspection that starts removes a base reboot annotation', (t) => {
  const s0 = inspecting({ [REBOOT]: '' });
  const s1 = reply(s0, { kind: 'continuing', afterMs: 10_000, started: true });
  t.true(s1.effects.some((e) => e.type === 'removeAnnotation' && e.key === REBOOT));
});
