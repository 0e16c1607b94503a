import test from 'ava';
import { REBOOT } from '../../src/machines/bmh/index.ts';
import type { Step } from '../../src/machines/bmh/index.ts';
import { atState, calls, grant, reply, T0, tick } from '../support/bmh.ts';

// reference/bmo.md §1.8: "`force:true` also aborts `inspect wait`/`wait call-back` to reboot into a
// new PPI". BMO's actionProvisioning passes hasRebootAnnotation(info, true) as Provision's
// forceReboot, which tears down a deployment waiting for its agent (Ironic's wait call-back); the
// host is deployed again once available. Before, the provision call never carried it, so a forced
// reboot left a deploy stuck in wait call-back until Ironic timed it out.

const HARD_FORCED = JSON.stringify({ mode: 'hard', force: true });

function provisioning(annotations: Record<string, string>): Step {
  return grant(tick(atState('provisioning', { annotations })).state);
}

function provisionCall(s: Step) {
  const call = calls(s.effects)[0];
  if (call?.op !== 'provision') throw new Error(`expected a provision call, got ${call?.op}`);
  return call;
}

test('bmh - BMO actionProvisioning: a forced reboot annotation asks the deployment to be torn down (forceReboot); one without force does not', (t) => {
  t.true(provisionCall(provisioning({ [REBOOT]: HARD_FORCED })).forceReboot);
  for (const value of ['', JSON.stringify({ mode: 'hard' }), JSON.stringify({ mode: 'soft', force: false })]) {
    t.falsy(provisionCall(provisioning({ [REBOOT]: value })).forceReboot, value);
  }
  t.falsy(provisionCall(provisioning({})).forceReboot);
});

test('bmh - once the teardown is taken the base reboot annotation goes and the next provision call deploys with no force, no error', (t) => {
  const s0 = provisioning({ [REBOOT]: HARD_FORCED });
  const s1 = reply(s0, { kind: 'continuing', afterMs: 3_000, started: true });
  t.true(s1.effects.some((e) => e.type === 'removeAnnotation' && e.key === REBOOT));
  t.is(s1.state.host.status.provisioning.state, 'provisioning');
  t.is(s1.state.host.status.errorType ?? '', '');
  t.falsy(provisionCall(tick(s1.state, T0 + 3_000)).forceReboot);
});

test('bmh - a suffixed forced reboot annotation tears the deployment down once, stays, and does not tear down the next one', (t) => {
  const key = `${REBOOT}/phased`;
  const s0 = provisioning({ [key]: HARD_FORCED });
  t.true(provisionCall(s0).forceReboot);
  const s1 = reply(s0, { kind: 'continuing', afterMs: 3_000, started: true });
  t.true(key in (s1.state.host.metadata.annotations ?? {}), 'a suffixed one is its setter\'s to remove');
  const s2 = tick(s1.state, T0 + 3_000);
  t.falsy(provisionCall(s2).forceReboot, 'the redeployment is not torn down again');
});

test('bmh - a deployment not yet waiting for its agent keeps being asked until the backend takes the teardown', (t) => {
  const s0 = provisioning({ [`${REBOOT}/phased`]: HARD_FORCED });
  const s1 = reply(s0, { kind: 'continuing', afterMs: 10_000 });
  t.true(provisionCall(tick(s1.state, T0 + 10_000)).forceReboot);
});
