// What the MAAS driver answers, against the simulator over HTTP, on the two deletion paths that
// used to retry for ever: a release MAAS refuses because it has taken the machine back (capmaas.md
// §3.2 release: 409 "Machine cannot be released in its current state ('New')."), read back with
// its owner; and a DNS name whose domain MAAS no longer has (§3.2 DNS list: 404 "No Domain
// matches the given query.").
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { MetalfleetError } from '../../src/api/index.ts';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { calls, condition, deploying, FINALIZER, grant, maasMachine, reply, start, T0, tick } from '../machines/maas-fixtures.ts';

async function setUp(t: ExecutionContext) {
  const sim = await startMaasSim({ machines: [
    { hostname: 'new1', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'New' },
    { hostname: 'dep1', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed' },
  ] });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  return { sim, driver: createMaasDriver(client) };
}

test('maas driver deletion - a release of a New machine is a conflict with MAAS\'s text; a read shows it New and owned by nobody', async (t) => {
  const { sim, driver } = await setUp(t);
  const id = sim.machine('new1')?.system_id ?? '';
  const released = await driver.run({ op: 'release', systemId: id });
  t.like(released, { kind: 'failed', reason: 'conflict' });
  t.true(released.kind === 'failed' && released.message.includes("Machine cannot be released in its current state ('New')."), JSON.stringify(released));
  t.like(await driver.run({ op: 'get', systemId: id }), { kind: 'done', machine: { systemId: id, statusName: 'New', owner: null } });
  // A deployed machine is read with its owner.
  const deployed = await driver.run({ op: 'get', systemId: sim.machine('dep1')?.system_id ?? '' });
  t.true(deployed.kind === 'done' && typeof deployed.machine?.owner === 'string' && deployed.machine.owner !== '', JSON.stringify(deployed));
});

test('maas driver deletion - a machine MAAS no longer has: release and read answer notFound (404 "No Machine matches the given query.")', async (t) => {
  const { driver } = await setUp(t);
  t.deepEqual(await driver.run({ op: 'release', systemId: 'nosuch' }), { kind: 'notFound' });
  t.deepEqual(await driver.run({ op: 'get', systemId: 'nosuch' }), { kind: 'notFound' });
});

test('maas driver deletion - a DNS name in a domain MAAS lacks is a typed, non-retryable failure naming MAAS\'s text; one in a domain it has is no record', async (t) => {
  const { driver } = await setUp(t);
  const err = await t.throwsAsync(driver.findDns('c1-abcdef.gone.example'));
  t.true(err instanceof MetalfleetError);
  t.is((err as MetalfleetError).code, 'dnsDomainNotFound');
  t.false((err as MetalfleetError).retryable);
  t.regex(err?.message ?? '', /No Domain matches the given query\./);
  t.regex(err?.message ?? '', /gone\.example/);
  t.is(await driver.findDns('c1-abcdef.maas'), null);
});

// Whose a machine is: the driver learns its own MAAS user once (users/?op=whoami, with its key)
// and says of every machine read with an owner whether that owner is itself.
async function ownedFleet(t: ExecutionContext) {
  const sim = await startMaasSim({ machines: [
    { hostname: 'mine', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'admin' },
    { hostname: 'theirs', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'user' },
    { hostname: 'free', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Ready' },
  ] });
  t.teardown(() => sim.stop());
  const driverFor = (apiKey: string) => {
    const client = createMaasClient({ endpoint: sim.url, apiKey });
    t.teardown(() => client.close());
    return createMaasDriver(client);
  };
  const id = (hostname: string) => sim.machine(hostname)?.system_id ?? '';
  return { sim, driverFor, id };
}

test('maas driver deletion - a read says whether the machine\'s owner is the key\'s own MAAS user, asking MAAS who that is once', async (t) => {
  const { sim, driverFor, id } = await ownedFleet(t);
  const admin = driverFor(sim.adminKey);
  t.like(await admin.run({ op: 'get', systemId: id('theirs') }), { kind: 'done', machine: { owner: 'user', ownedBySelf: false } });
  t.like(await admin.run({ op: 'get', systemId: id('mine') }), { kind: 'done', machine: { owner: 'admin', ownedBySelf: true } });
  t.like(await admin.run({ op: 'get', systemId: id('theirs') }), { kind: 'done', machine: { owner: 'user', ownedBySelf: false } });
  t.is(sim.counts().byRoute['GET users/ op=whoami'], 1, 'one whoami for this key, however many reads');

  // The same machines through the other user's key: the answer is per key. This used to expect the
  // user key to read the admin's machine too; real MAAS does not let it (NodePermission.view:
  // unowned, own, or admin; GET machines/{id}/ answers 403), so that read is held by another user,
  // named by nobody, and needs no whoami (the next test has the details).
  const user = driverFor(sim.userKey);
  t.like(await user.run({ op: 'get', systemId: id('theirs') }), { kind: 'done', machine: { owner: 'user', ownedBySelf: true } });
  t.like(await user.run({ op: 'get', systemId: id('mine') }), { kind: 'failed', reason: 'heldByAnotherUser' });
  t.is(sim.counts().byRoute['GET users/ op=whoami'], 2);

  // A machine nobody holds needs no answer of whose it is.
  sim.resetCounts();
  const fresh = driverFor(sim.adminKey);
  const free = await fresh.run({ op: 'get', systemId: id('free') });
  t.like(free, { kind: 'done', machine: { owner: null } });
  t.false(free.kind === 'done' && free.machine !== undefined && 'ownedBySelf' in free.machine);
  t.is(sim.counts().byRoute['GET users/ op=whoami'], undefined);
});

test('maas driver deletion - MAAS failing to say who the key is fails the read as its own typed failure (retried when it may pass), and is asked again', async (t) => {
  const { sim, id } = await ownedFleet(t);
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(() => client.close());
  let asked = 0;
  const failing: MaasClient = {
    ...client,
    async whoami() {
      asked++;
      if (asked === 1) throw new MaasError('GET /users/?op=whoami: MAAS answered 503', { code: 'unavailable', status: 503, retryable: true, maasMessage: '', call: 'GET /users/?op=whoami', route: 'GET /users/ op=whoami', attempts: 1 });
      if (asked === 2) throw new MaasError('GET /users/?op=whoami: MAAS answered 401', { code: 'unauthorized', status: 401, retryable: false, maasMessage: 'Authorization Error: Invalid API key.', call: 'GET /users/?op=whoami', route: 'GET /users/ op=whoami', attempts: 1 });
      return client.whoami();
    },
  };
  const driver = createMaasDriver(failing);
  const transient = await driver.run({ op: 'get', systemId: id('theirs') });
  t.like(transient, { kind: 'transient' });
  t.regex(transient.kind === 'transient' ? transient.message : '', /whoami/);
  const refused = await driver.run({ op: 'get', systemId: id('theirs') });
  t.like(refused, { kind: 'failed' });
  t.regex(refused.kind === 'failed' ? refused.message : '', /whoami.*401/);
  t.false(JSON.stringify([transient, refused]).includes(sim.adminKey.split(':')[2] ?? '-'), 'no part of the key');
  t.like(await driver.run({ op: 'get', systemId: id('theirs') }), { kind: 'done', machine: { owner: 'user', ownedBySelf: false } });
  t.like(await driver.run({ op: 'get', systemId: id('mine') }), { kind: 'done', machine: { owner: 'admin', ownedBySelf: true } });
  t.is(asked, 3, 'a failure is not kept; a success is');
});

// This test used to expect the read after the refused release to show the admin as owner. Real
// MAAS (3.x, RBAC off) refuses a non-admin that read: GET machines/{id}/ is get_node_or_404 with
// NodePermission.view, PermissionDenied (403, no text) for a machine another user holds, and
// GET machines/ leaves it out. So the driver says "held by another MAAS user" without a name.
test('maas driver deletion - a non-admin key releasing a machine another MAAS user holds is refused as forbidden (403); the read that follows is refused too and the listing lacks it: held by another MAAS user, unnamed', async (t) => {
  const { sim, driverFor, id } = await ownedFleet(t);
  const user = driverFor(sim.userKey);
  const release = await user.run({ op: 'release', systemId: id('mine') });
  t.like(release, { kind: 'failed', reason: 'forbidden' });
  sim.resetCounts();
  const read = await user.run({ op: 'get', systemId: id('mine') });
  t.like(read, { kind: 'failed', reason: 'heldByAnotherUser' });
  const message = read.kind === 'failed' ? read.message : '';
  t.regex(message, new RegExp(`${id('mine')}.*another MAAS user`));
  t.regex(message, /admin key|its owner/, 'says what to do');
  t.false(/\badmin\b.*owns|user admin/.test(message), 'MAAS did not name the owner; neither does the driver');
  t.false(message.includes(sim.userKey.split(':')[2] ?? '-'), 'no part of the key');
  // The 403 alone is not trusted: the user's own listing, narrowed to the machine, is asked.
  t.is(sim.counts().byRoute['GET machines/{id}/'], 1);
  t.is(sim.counts().byRoute['GET machines/'], 1);
  t.is(sim.counts().byRoute['GET users/ op=whoami'], undefined);
});

test('maas driver deletion - a read refused 403 whose listing is refused too (a key MAAS refuses everything, e.g. a deactivated user) stays forbidden, not held by another user; a listing MAAS fails to answer is transient', async (t) => {
  const { sim, id } = await ownedFleet(t);
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.userKey });
  t.teardown(() => client.close());
  const forbidden = new MaasError('GET /machines/: MAAS answered 403', { code: 'forbidden', status: 403, retryable: false, maasMessage: '', call: 'GET /machines/', route: 'GET /machines/', attempts: 1 });
  const down = new MaasError('GET /machines/: MAAS answered 503', { code: 'unavailable', status: 503, retryable: true, maasMessage: '', call: 'GET /machines/', route: 'GET /machines/', attempts: 1 });
  let listing: MaasError = forbidden;
  const refusing: MaasClient = { ...client, listMachines: () => Promise.reject(listing) };
  const driver = createMaasDriver(refusing);
  t.like(await driver.run({ op: 'get', systemId: id('mine') }), { kind: 'failed', reason: 'forbidden' });
  listing = down;
  t.like(await driver.run({ op: 'get', systemId: id('mine') }), { kind: 'transient' });
});

test('maas driver deletion - a read refused 403 of a machine the listing does show (MAAS changed its mind between the two) answers the listed machine', async (t) => {
  const { sim, id } = await ownedFleet(t);
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.userKey });
  t.teardown(() => client.close());
  const forbidden = new MaasError('GET /machines/x/: MAAS answered 403', { code: 'forbidden', status: 403, retryable: false, maasMessage: '', call: 'GET /machines/x/', route: 'GET /machines/{id}/', attempts: 1 });
  const flaky: MaasClient = { ...client, getMachine: () => Promise.reject(forbidden) };
  const driver = createMaasDriver(flaky);
  t.like(await driver.run({ op: 'get', systemId: id('theirs') }), { kind: 'done', machine: { systemId: id('theirs'), owner: 'user', ownedBySelf: true } });
});

test('maas driver deletion - finding earlier allocations by agent_name with a non-admin key lists its own and never another user\'s machine under the same name', async (t) => {
  const sim = await startMaasSim({ machines: [
    { hostname: 'ours', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Allocated', owner: 'user', agentName: 'uid-1' },
    { hostname: 'taken', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'admin', agentName: 'uid-1' },
  ] });
  t.teardown(() => sim.stop());
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.userKey });
  t.teardown(() => client.close());
  const found = await createMaasDriver(client).run({ op: 'findAllocated', agentName: 'uid-1' });
  t.like(found, { kind: 'listed' });
  t.deepEqual(found.kind === 'listed' ? found.machines.map((m) => m.hostname) : [], ['ours']);
});

// The whole deletion, the MaasMachine's steps fed with what the driver answers from the simulator:
// a non-admin key whose machine another user now holds (an admin released it and they allocated it).
test('maas driver deletion - a deletion whose machine another MAAS user holds finishes once, as MachineHeldByAnotherUser naming no user, and retries nothing', async (t) => {
  const { sim, driverFor, id } = await ownedFleet(t);
  const user = driverFor(sim.userKey);
  const systemId = id('mine');
  const s0 = tick(start(maasMachine({ systemID: systemId, providerID: `maas:///az1/${systemId}` }, { deletionTimestamp: '2026-01-01T00:00:00Z' }, false)));
  const releasing = grant(s0.state);
  t.deepEqual(calls(releasing), [{ op: 'release', systemId }]);
  const refused = reply(releasing, await user.run({ op: 'release', systemId }));
  t.deepEqual(calls(refused), [{ op: 'get', systemId }]);
  const done = reply(refused, await user.run({ op: 'get', systemId }));
  t.true(done.state.gone);
  t.deepEqual(done.effects.filter((e) => e.type === 'removeFinalizer'), [{ type: 'removeFinalizer', finalizer: FINALIZER }]);
  t.deepEqual(calls(done), []);
  t.deepEqual(done.effects.filter((e) => e.type === 'requeue'), []);
  t.is(condition(done.state, 'MachineDeployed')?.reason, 'Deleted');
  const events = done.effects.flatMap((e) => (e.type === 'event' ? [e] : []));
  t.deepEqual(events.map((e) => [e.severity, e.reason]), [['Warning', 'MachineHeldByAnotherUser']]);
  t.regex(events[0]?.message ?? '', new RegExp(`${systemId}.*another MAAS user`));
  t.false((events[0]?.message ?? '').includes('MAAS user admin'), 'MAAS did not say whose it is');
  // MAAS still has the machine, untouched, with its owner.
  t.like(sim.machine('mine'), { status_name: 'Deployed', owner: 'admin' });
  // A tick after the end asks MAAS nothing more.
  t.deepEqual(calls(tick(done.state, T0 + 60_000)), []);
});

test('maas driver deletion - while not deleting, a read of a machine another MAAS user holds is a failed read saying so (MachineNotFound, retried with backoff), not the end of the MaasMachine', async (t) => {
  // The MaasMachine's machine (abc123, as the fixtures name it) is now the admin's.
  const sim = await startMaasSim({ machines: [{ hostname: 'taken', systemId: 'abc123', zone: 'az1', cpuCount: 2, memoryMb: 2048, status: 'Deployed', owner: 'admin' }] });
  t.teardown(() => sim.stop());
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.userKey });
  t.teardown(() => client.close());
  const user = createMaasDriver(client);
  // A MaasMachine polling its Deploying machine.
  const polled = tick(deploying().state, T0 + 60_000);
  const get = calls(polled).find((c) => c.op === 'get');
  t.deepEqual(get, { op: 'get', systemId: 'abc123' }, JSON.stringify(calls(polled)));
  const read = await user.run({ op: 'get', systemId: 'abc123' });
  t.like(read, { kind: 'failed', reason: 'heldByAnotherUser' });
  const after = reply(polled, read, T0 + 60_000);
  t.false(after.state.gone);
  t.false(after.effects.some((e) => e.type === 'removeFinalizer'));
  t.is(condition(after.state, 'MachineDeployed')?.status, 'Unknown');
  t.regex(condition(after.state, 'MachineDeployed')?.message ?? '', /abc123.*another MAAS user/);
  t.true(after.effects.some((e) => e.type === 'requeue'));
});
