// A backend call leaves only while the shard lease is safely held, asked after every await
// (issue 19.2): a node resumed from a pause must not send the call its I/O callbacks prepared.
import test from 'ava';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { BackendCalls } from '../../src/actors/calls/index.ts';
import { callBackend, callProvisioner, LEASE_NOT_HELD } from '../../src/actors/host/host-call.ts';
import type { CallLane } from '../../src/actors/host/host-call.ts';
import { BareMetalHost } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { leaseGuardedDriver } from '../../src/node/lease-guarded-driver.ts';
import type { MaasDriver } from '../../src/ports/index.ts';
import { bmh, secret } from '../support/node.ts';

async function setUp() {
  const store = await openLocalStore(createMemoryBus().connect('test'));
  const applied = await store.applyObjects([secret(), bmh('h1')]);
  if (!applied.ok) throw new Error(JSON.stringify(applied));
  const host = BareMetalHost.parse(bmh('h1'));
  const fixture = createFixtureProvisioner({ latencyMs: 0, demoBehaviours: false });
  return { store, host, fixture };
}

const fence = { shard: 3, epoch: 7, holder: 'node-a' };

test('host call - with the lease held the call reaches the backend, stamped with the fence', async (t) => {
  const { store, host, fixture } = await setUp();
  const result = await callProvisioner(host, { op: 'register', restartOnFailure: false, credentialsChanged: false }, store, fixture, 10_000, fence, () => true);
  t.is(result.kind, 'done');
  t.is(fixture.totals().register, 1);
  t.like(fixture.callLog().at(-1), { host: 'lab/h1', op: 'register', epoch: 7, holder: 'node-a' });
});

test('host call - once the lease is not safely held (asked after the Secret read) nothing reaches the backend', async (t) => {
  const { store, host, fixture } = await setUp();
  let asked = 0;
  const result = await callProvisioner(host, { op: 'register', restartOnFailure: false, credentialsChanged: false }, store, fixture, 10_000, fence, () => (asked++, false));
  t.deepEqual(result, { kind: 'transient', message: LEASE_NOT_HELD });
  t.is(asked, 1);
  t.is(fixture.totals().register, 0);
  t.deepEqual(fixture.callLog(), []);
});

test('maas driver - without the lease nothing that changes MAAS leaves; reads still do', async (t) => {
  const calls: string[] = [];
  const record = { id: 1, fqdn: 'c.maas', ips: ['10.0.0.1'], ttl: 10 };
  const inner: MaasDriver = {
    endpoint: 'http://maas', pool: 'maas:http://maas',
    run: async (call) => (calls.push(`run ${call.op}`), { kind: 'done' }),
    findDns: async () => (calls.push('findDns'), record),
    createDns: async () => (calls.push('createDns'), record),
    updateDns: async () => (calls.push('updateDns'), record),
    deleteDns: async () => void calls.push('deleteDns'),
  };
  let held = true;
  const driver = leaseGuardedDriver(inner, () => held);
  t.is((await driver.run({ op: 'release', systemId: 'abc' } as Parameters<MaasDriver['run']>[0])).kind, 'done');
  await driver.createDns('c.maas', 10, ['10.0.0.1']);
  held = false;
  t.deepEqual(await driver.run({ op: 'release', systemId: 'abc' } as Parameters<MaasDriver['run']>[0]), { kind: 'transient', message: LEASE_NOT_HELD });
  await t.throwsAsync(driver.createDns('c.maas', 10, ['10.0.0.2']), { message: LEASE_NOT_HELD });
  await t.throwsAsync(driver.updateDns(1, ['10.0.0.2']), { message: LEASE_NOT_HELD });
  await t.throwsAsync(driver.deleteDns(1), { message: LEASE_NOT_HELD });
  t.deepEqual(await driver.findDns('c.maas'), record);
  t.deepEqual(calls, ['run release', 'createDns', 'findDns']);
});

test('maas driver - a VIP is reserved and released only under the lease; its lookup and machine interfaces are reads', async (t) => {
  const calls: string[] = [];
  const inner: MaasDriver = {
    endpoint: 'http://maas', pool: 'maas:http://maas',
    run: async () => ({ kind: 'done' }),
    findDns: async () => null,
    createDns: async () => ({ id: 1, fqdn: 'c.maas', ips: [] }),
    updateDns: async () => ({ id: 1, fqdn: 'c.maas', ips: [] }),
    deleteDns: async () => undefined,
    findReservedIp: async () => (calls.push('findReservedIp'), '10.0.0.9'),
    reserveIp: async () => (calls.push('reserveIp'), '10.0.0.9'),
    releaseIp: async () => (calls.push('releaseIp'), true),
    machineInterfaces: async () => (calls.push('machineInterfaces'), []),
  };
  let held = true;
  const driver = leaseGuardedDriver(inner, () => held);
  t.is(await driver.reserveIp?.({ subnet: '10.0.0.0/24', hostname: 'c.maas' }), '10.0.0.9');
  held = false;
  await t.throwsAsync(driver.reserveIp?.({ subnet: '10.0.0.0/24', hostname: 'c.maas' }) ?? Promise.resolve(), { message: LEASE_NOT_HELD });
  await t.throwsAsync(driver.releaseIp?.('10.0.0.9') ?? Promise.resolve(), { message: LEASE_NOT_HELD });
  t.is(await driver.findReservedIp?.({ fqdn: 'c.maas', subnet: '10.0.0.0/24' }), '10.0.0.9');
  t.deepEqual(await driver.machineInterfaces?.('abc'), []);
  t.deepEqual(calls, ['reserveIp', 'findReservedIp', 'machineInterfaces']);
});

test('host call - a call that waited for its place in the backend\'s call bound asks the lease when its turn comes, not when it queued', async (t) => {
  const { store, host, fixture } = await setUp();
  const calls = new BackendCalls({ limits: {}, defaultLimit: 1 });
  let release!: () => void;
  const first = calls.run('fixture:default', () => new Promise<void>((resolve) => (release = resolve)));
  let held = true;
  const lane: CallLane = (call) => calls.run('fixture:default', call);
  const queued = callBackend(host, { op: 'register', restartOnFailure: false, credentialsChanged: false }, store, fixture, 10_000, fence, () => held, lane);
  t.is(calls.figures()[0]?.waiting, 1);
  // The lease runs out while the call waits its turn (a starved node's deadline passing).
  held = false;
  release();
  await first;
  t.deepEqual((await queued).result, { kind: 'transient', message: LEASE_NOT_HELD });
  t.deepEqual(fixture.callLog(), []);
});
