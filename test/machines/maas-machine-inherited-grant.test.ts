import test from 'ava';
import type { MaasMachineEffect } from '../../src/machines/maas-machine/index.ts';
import { capiCluster, maasMachine, reply, send, start, T0, tick, view, world } from './maas-fixtures.ts';

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

// Issue 30.1 (h6): a resumed machine whose owner Machine (or Cluster) is not yet in the node's
// cache makes no MAAS call (CAPMAAS waits for the owner first), so no answer settled the grant an
// earlier owner left: it idled to its TTL whenever the owner was late. Now it is settled by MAAS's
// answer once the owner appears, or given back after a bounded wait, whichever comes first.
const resumedWithout = (w: Parameters<typeof start>[1]) => start({ ...maasMachine({ providerID: 'maas:///az1/abc123', systemID: 'abc123' }, {}, false), status: { ready: true, initialization: { provisioned: true } } }, w, { inheritedGrantOwnerWaitMs: 4_000 });
const requeues = (effects: readonly MaasMachineEffect[]) => effects.flatMap((e) => (e.type === 'requeue' ? [e.afterMs] : []));

test('maas inherited grant - owner Machine late past the bounded wait: the grant goes back then, without a MAAS call, and says so', (t) => {
  const first = tick(resumedWithout(world({ machine: null })), T0);
  t.deepEqual(first.effects.filter((e) => e.type === 'call'), [], 'no MAAS call without the owner');
  t.is(releases(first.effects), 0, 'the owner may still appear');
  t.true(first.state.grantInherited);
  t.deepEqual(requeues(first.effects), [4_000], 'stepped again when the wait ends');
  const early = tick(first.state, T0 + 3_999);
  t.is(releases(early.effects), 0);
  t.deepEqual(requeues(early.effects), [1]);
  const ended = tick(early.state, T0 + 4_000);
  t.is(releases(ended.effects), 1);
  t.false(ended.state.grantInherited);
  const told = ended.effects.find((e) => e.type === 'event' && e.reason === 'CapacityReleased');
  t.regex((told as { message: string } | undefined)?.message ?? '', /waiting for the Cluster API Machine.*given back/);
  t.is(releases(tick(ended.state, T0 + 9_000).effects), 0, 'given back once');
});

test('maas inherited grant - Cluster late past the bounded wait: the grant goes back too', (t) => {
  const first = tick(resumedWithout(world({ cluster: null })), T0);
  t.is(releases(first.effects), 0);
  t.is(releases(tick(first.state, T0 + 4_000).effects), 1);
});

test('maas inherited grant - owner appears within the wait: MAAS is read and decides, the wait does not release it again', (t) => {
  const first = tick(resumedWithout(world({ machine: null })), T0);
  t.is(releases(first.effects), 0);
  // The owner arrives in the cache: the machine reads MAAS, which still deploys: the grant is adopted.
  const appeared = send(first.state, { type: 'observed', object: first.state.object, world: world() }, T0 + 1_000);
  t.is(releases(appeared.effects), 0, 'not before MAAS answered');
  t.is(appeared.state.grantOwnerWaitSince, null, 'no longer waiting for the owner');
  const answered = reply(appeared, { kind: 'done', machine: view('Deploying', 'on') }, T0 + 1_005);
  t.is(releases(answered.effects), 0);
  t.true(answered.effects.some((e) => e.type === 'requestSlot'), 'adopted: MAAS still deploys under it');
  t.false(answered.state.grantInherited);
  t.is(releases(tick(answered.state, T0 + 4_000).effects), 0, 'the ended wait gives nothing back');
});

test('maas inherited grant - owner appears within the wait and MAAS shows the work over: given back on that answer', (t) => {
  const first = tick(resumedWithout(world({ machine: null })), T0);
  const appeared = send(first.state, { type: 'observed', object: first.state.object, world: world() }, T0 + 1_000);
  const answered = reply(appeared, { kind: 'done', machine: view('Deployed', 'on') }, T0 + 1_005);
  t.is(releases(answered.effects), 1);
  t.false(answered.effects.some((e) => e.type === 'event' && e.reason === 'CapacityReleased'), 'an ordinary settle: nothing to explain');
});
