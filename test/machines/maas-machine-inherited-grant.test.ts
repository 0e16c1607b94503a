import test from 'ava';
import type { MaasMachineEffect } from '../../src/machines/maas-machine/index.ts';
import { maasMachine, reply, start, T0, tick, view } from './maas-fixtures.ts';

// Issue 30.1 for MaasMachines: a grant an earlier incarnation left (its shard moved, its node
// stopped, its actor restarted) is adopted when MAAS still deploys the machine (the slot request's
// acquire moves the live grant here) and given back once MAAS answered and no slot is wanted.

const releases = (effects: readonly MaasMachineEffect[]) => effects.filter((e) => e.type === 'releaseGrant').length;
// A MaasMachine an earlier owner deployed (its status says so): it resumes in deployed.
const resumedDeployed = () => start({ ...maasMachine({ providerID: 'maas:///az1/abc123', systemID: 'abc123' }, {}, false), status: { ready: true, initialization: { provisioned: true } } });

test('maas inherited grant - a resumed machine MAAS shows Deployed gives the grant back after that answer, not before', (t) => {
  const s = resumedDeployed();
  t.true(s.grantInherited);
  const first = tick(s, T0);
  t.is(releases(first.effects), 0, 'MAAS not read yet');
  const answered = reply(first, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 5);
  t.is(releases(answered.effects), 1);
  t.false(answered.state.grantInherited);
});

test('maas inherited grant - a resumed machine MAAS still deploys adopts the grant: it asks for its slot', (t) => {
  const first = tick(resumedDeployed(), T0);
  const answered = reply(first, { kind: 'done', machine: view('Deploying', 'on') }, T0 + 5);
  t.is(releases(answered.effects), 0);
  t.true(answered.effects.some((e) => e.type === 'requestSlot'));
  t.false(answered.state.grantInherited);
});

test('maas inherited grant - a transient failure read nothing: the decision waits', (t) => {
  const first = tick(resumedDeployed(), T0);
  const failed = reply(first, { kind: 'transient', message: 'MAAS unreachable' }, T0 + 5);
  t.is(releases(failed.effects), 0);
  t.true(failed.state.grantInherited);
});

test('maas inherited grant - a MaasMachine no controller wrote status for has nothing to give back', (t) => {
  t.false(start().grantInherited);
});
