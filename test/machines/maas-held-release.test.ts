// A release asked for by command (metalfleet.io/release) that MAAS refuses with 403, against the
// simulator with two users: the MaasMachine's machine (abc123) held by the admin, metalfleet's key
// the non-admin user's. MAAS refuses a non-admin the release of a machine it cannot edit, and the
// read of one it cannot view (capmaas.md §3.2; NodePermission in MAAS's models/node.py). The
// command used to be retried with backoff for ever, MAAS never read in between.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import type { MaasMachineObject, MaasMachineStep } from '../../src/machines/maas-machine/index.ts';
import { RELEASE_ANNOTATION } from '../../src/machines/maas-machine/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { SeedMachine } from '../../src/sim/maas/index.ts';
import { T0, calls, condition, deploying, grant, observe, reply, tick, view } from './maas-fixtures.ts';

const AT = T0 + 20_000;

const annotate = (o: MaasMachineObject, set: Record<string, string>): MaasMachineObject =>
  ({ ...o, metadata: { ...o.metadata, annotations: { ...(o.metadata.annotations ?? {}), ...set } } });

/** A worker Deployed, on and ready at T0 + 10 s, its machine abc123; then release asked (r-7) and the slot granted. */
function releaseGranted(): MaasMachineStep {
  const d = deploying();
  const ready = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'on') }, T0 + 10_000);
  const object = annotate({ ...ready.state.object, spec: { ...ready.state.object.spec, providerID: 'maas:///az1/abc123', systemID: 'abc123' } }, { [RELEASE_ANNOTATION]: 'r-7' });
  return grant(observe(ready.state, object, ready.state.world, AT).state, AT);
}

async function simWith(t: ExecutionContext, machine: Partial<SeedMachine>) {
  const sim = await startMaasSim({ machines: [{ hostname: 'taken', systemId: 'abc123', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', ...machine }] });
  t.teardown(() => sim.stop());
  const clientFor = (apiKey: string) => {
    const client = createMaasClient({ endpoint: sim.url, apiKey });
    t.teardown(() => client.close());
    return client;
  };
  return { sim, clientFor };
}

const events = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'event' ? [e] : []));
const requeues = (st: MaasMachineStep) => st.effects.flatMap((e) => (e.type === 'requeue' ? [e.afterMs] : []));

test('maas held release - a commanded release of a machine another MAAS user now holds reads MAAS once, then fails the MaasMachine saying who can release it, and retries nothing', async (t) => {
  const { sim, clientFor } = await simWith(t, { owner: 'admin' });
  const user = createMaasDriver(clientFor(sim.userKey));
  const granted = releaseGranted();
  t.deepEqual(calls(granted), [{ op: 'release', systemId: 'abc123' }]);
  const release = await user.run({ op: 'release', systemId: 'abc123' });
  t.like(release, { kind: 'failed', reason: 'forbidden' });
  const refused = reply(granted, release, AT);
  // Read at once: is it still ours to release?
  t.deepEqual(calls(refused), [{ op: 'get', systemId: 'abc123' }]);
  const read = await user.run({ op: 'get', systemId: 'abc123' });
  t.like(read, { kind: 'failed', reason: 'heldByAnotherUser' });
  const done = reply(refused, read, AT);
  t.is(done.state.phase, 'failed');
  t.is(done.state.status.failureReason, 'UpdateError');
  const message = done.state.status.failureMessage ?? '';
  t.regex(message, /another MAAS user holds MAAS machine abc123/);
  t.regex(message, /only its owner or a MAAS admin can release it/);
  t.regex(message, /r-7/, 'names the command');
  t.false(message.includes('MAAS user admin'), 'MAAS did not say whose it is; neither does the message');
  t.false(message.includes(sim.userKey.split(':')[2] ?? '-'), 'no part of the key');
  const deployed = condition(done.state, 'MachineDeployed');
  t.is(deployed?.status, 'False');
  t.is(deployed?.reason, 'MachineHeldByAnotherUser');
  t.is(deployed?.message, message);
  t.false(done.state.status.ready);
  t.deepEqual(events(done).map((e) => [e.severity, e.reason]), [['Warning', 'MachineHeldByAnotherUser']]);
  t.is(events(done)[0]?.message, message);
  t.is(done.state.slot.phase, 'none', 'the release slot is given back');
  t.true(done.effects.some((e) => e.type === 'releaseSlot'));
  t.deepEqual(calls(done), []);
  t.deepEqual(requeues(done), []);
  t.false(done.effects.some((e) => e.type === 'removeFinalizer'), 'the object stays until Cluster API deletes it');
  // Nothing more is asked of MAAS, however long after.
  t.deepEqual(calls(tick(done.state, AT + 3_600_000)), []);
  t.like(sim.machine('abc123'), { status_name: 'Deployed', owner: 'admin' });
});

test('maas held release - a release refused 403 while the machine is still this key\'s own (locked) keeps backing off, reading MAAS before each retry', async (t) => {
  const { sim, clientFor } = await simWith(t, { owner: 'user', locked: true });
  const user = createMaasDriver(clientFor(sim.userKey));
  let st = releaseGranted();
  let now = AT;
  const delays: number[] = [];
  for (let i = 0; i < 3; i++) {
    t.deepEqual(calls(st), [{ op: 'release', systemId: 'abc123' }], `attempt ${i}`);
    const refused = reply(st, await user.run({ op: 'release', systemId: 'abc123' }), now);
    t.deepEqual(calls(refused), [{ op: 'get', systemId: 'abc123' }], `attempt ${i}: read first`);
    const read = await user.run({ op: 'get', systemId: 'abc123' });
    t.like(read, { kind: 'done', machine: { owner: 'user', ownedBySelf: true } });
    const after = reply(refused, read, now);
    t.not(after.state.phase, 'failed');
    t.is(after.state.status.failureReason, undefined);
    t.deepEqual(calls(after), []);
    const [delay] = requeues(after);
    t.truthy(delay);
    delays.push(delay ?? 0);
    t.deepEqual(calls(tick(after.state, now + (delay ?? 0) - 1)), [], 'nothing before the backoff');
    now += delay ?? 0;
    st = tick(after.state, now);
  }
  t.true((delays[0] ?? 0) < (delays[1] ?? 0) && (delays[1] ?? 0) < (delays[2] ?? 0), `the backoff grows: ${delays.join(', ')}`);
  t.like(sim.machine('abc123'), { status_name: 'Deployed', owner: 'user' });
});

test('maas held release - a key MAAS refuses everything (release, read and listing 403) is not taken for another user\'s machine: it keeps backing off, not failed', async (t) => {
  const { sim, clientFor } = await simWith(t, { owner: 'user' });
  const client = clientFor(sim.userKey);
  const forbidden = (call: string) => new MaasError(`${call}: MAAS answered 403`, { code: 'forbidden', status: 403, retryable: false, maasMessage: '', call, route: call, attempts: 1 });
  const refusing: MaasClient = {
    ...client,
    release: () => Promise.reject(forbidden('POST /machines/abc123/ op=release')),
    getMachine: () => Promise.reject(forbidden('GET /machines/abc123/')),
    listMachines: () => Promise.reject(forbidden('GET /machines/')),
  };
  const driver = createMaasDriver(refusing);
  const granted = releaseGranted();
  const refused = reply(granted, await driver.run({ op: 'release', systemId: 'abc123' }), AT);
  t.deepEqual(calls(refused), [{ op: 'get', systemId: 'abc123' }]);
  const read = await driver.run({ op: 'get', systemId: 'abc123' });
  t.like(read, { kind: 'failed', reason: 'forbidden' });
  const after = reply(refused, read, AT);
  t.not(after.state.phase, 'failed');
  t.is(after.state.status.failureReason, undefined);
  t.false(events(after).some((e) => e.reason === 'MachineHeldByAnotherUser'));
  t.deepEqual(calls(after), []);
  const [delay] = requeues(after);
  t.truthy(delay);
  t.true(calls(tick(after.state, AT + (delay ?? 0))).length > 0, 'asked again after the backoff');
});
