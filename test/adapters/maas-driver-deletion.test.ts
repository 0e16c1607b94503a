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

  // The same machines through the other user's key: the answer is per key.
  const user = driverFor(sim.userKey);
  t.like(await user.run({ op: 'get', systemId: id('theirs') }), { kind: 'done', machine: { owner: 'user', ownedBySelf: true } });
  t.like(await user.run({ op: 'get', systemId: id('mine') }), { kind: 'done', machine: { owner: 'admin', ownedBySelf: false } });
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

test('maas driver deletion - a non-admin key releasing a machine another MAAS user holds is refused as forbidden (403); the read that follows says it is not the key\'s own', async (t) => {
  const { sim, driverFor, id } = await ownedFleet(t);
  const user = driverFor(sim.userKey);
  const release = await user.run({ op: 'release', systemId: id('mine') });
  t.like(release, { kind: 'failed', reason: 'forbidden' });
  t.like(await user.run({ op: 'get', systemId: id('mine') }), { kind: 'done', machine: { owner: 'admin', ownedBySelf: false, statusName: 'Deployed' } });
});
