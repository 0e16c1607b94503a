import test from 'ava';
import type { MaasMachineEffect } from '../../src/machines/maas-machine/index.ts';
import { capiCluster, maasMachine, reply, start, T0, tick, view, world } from './maas-fixtures.ts';

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

// Issue 30.1 (c): paused, the machine makes no MAAS call (CAPMAAS returns first), so no answer
// would ever settle the grant: it went back only at its TTL. A pause is the user's choice to stop
// work: the slot goes back at the first step, and an event says so.
test('maas inherited grant - a resumed paused machine gives the grant back at once, without a MAAS call, and says so', (t) => {
  const paused = { ...maasMachine({ providerID: 'maas:///az1/abc123', systemID: 'abc123' }, { annotations: { 'cluster.x-k8s.io/paused': '' } }, false), status: { ready: true, initialization: { provisioned: true } } };
  const s = start(paused);
  t.true(s.grantInherited);
  const first = tick(s, T0);
  t.deepEqual(first.effects.filter((e) => e.type === 'call'), [], 'no MAAS call while paused');
  t.is(releases(first.effects), 1);
  t.false(first.state.grantInherited);
  const told = first.effects.find((e) => e.type === 'event' && e.reason === 'CapacityReleased');
  t.truthy(told);
  t.regex((told as { message: string }).message, /paused annotation.*given back/);
  t.is(first.state.status.conditions?.find((c) => c.type === 'Paused')?.status, 'True');
  // Nothing more to give back on the next steps.
  t.is(releases(tick(first.state, T0 + 1_000).effects), 0);
});

test('maas inherited grant - a machine of a paused Cluster gives the grant back at once too', (t) => {
  const s = start({ ...maasMachine({ providerID: 'maas:///az1/abc123', systemID: 'abc123' }, {}, false), status: { ready: true, initialization: { provisioned: true } } }, world({ cluster: capiCluster({ paused: true }) }));
  const first = tick(s, T0);
  t.is(releases(first.effects), 1);
  t.true(first.effects.some((e) => e.type === 'event' && /spec\.paused/.test(e.message)));
});
