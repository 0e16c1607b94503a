import test from 'ava';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import { createRemoteFixtureProvisioner, startFixtureServer } from '../../src/adapters/fixture/index.ts';
import { systemClock } from '../../src/actors/runtime/index.ts';
import { MemoryKvStore } from '../../src/bus/memory-kv.ts';
import { acquireLease } from '../../src/cluster/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { KvUnavailable } from '../../src/ports/index.ts';

// The remote fixture client's connection pool holds 64 sockets (adapters/http/transport.ts): the
// 65th call waits in it, after its actor last asked the lease. A node starved of CPU past the
// lease's local deadline must not let that call go once a socket frees.
const POOL = 64;

function hostData(name: string, leaseHeld?: () => boolean): HostData {
  const spec: BareMetalHostSpec = {
    online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata',
    bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
  };
  return {
    key: `fleet/${name}`, namespace: 'fleet', name, uid: `uid-${name}`, provisionerId: '', spec,
    credentials: { username: 'admin', password: 'secret' },
    fence: { shard: 3, epoch: 7, holder: 'a' },
    ...(leaseHeld ? { leaseHeld } : {}),
  };
}

const busyWaitUntil = (done: () => boolean): void => {
  while (!done()) { /* the event loop is starved: no timer, no I/O callback runs */ }
};

async function until(what: string, cond: () => boolean, limitMs = 10_000): Promise<void> {
  const from = performance.now();
  while (!cond()) {
    if (performance.now() - from > limitMs) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('lease - a call queued for a connection while the node was starved past its lease deadline is withheld, and the fixture never sees it', async (t) => {
  // Registrations answer after 1.5 s, so the pool stays full while the lease runs out.
  const server = await startFixtureServer({ options: { latencyMs: { register: 1_500 }, demoBehaviours: false } });
  const client = await createRemoteFixtureProvisioner({ url: server.url });
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  const fillers = Array.from({ length: POOL }, (_, i) => client.register(hostData(`filler-${i}`), { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  await until('every socket of the pool busy at the fixture', () => server.fixture.callLog().length === POOL);

  const bucket = new MemoryKvStore(systemClock).bucket('leases', { ttlMs: 300 });
  // The starved node's renewals do not get through (its NATS answers late, the key expires): a
  // renewal that did would prove the key never changed hands, and the lease would be held again.
  let renewals = 0;
  bucket.update = () => {
    renewals += 1;
    return Promise.reject(new KvUnavailable('leases', 'test: the renewal came too late'));
  };
  const lost: string[] = [];
  const lease = (await acquireLease({ bucket, key: 'shard.3', holder: 'a', ttlMs: 300, clock: systemClock, onLost: (why) => lost.push(why) }))!;
  t.truthy(lease);
  // The actor asks the lease (callBackend does, right before the provisioner) and lets the call go.
  t.true(lease.safelyHeld());
  const queued = client.powerOn(hostData('late', () => lease.safelyHeld()), { op: 'powerOn', force: false });
  // Starved: no renewal can run, the local deadline passes while the call waits for a socket.
  busyWaitUntil(() => performance.now() > lease.deadline + 20);

  const result = await queued;
  t.is(result.kind, 'transient');
  t.regex(result.kind === 'transient' ? result.message : '', /lease of fleet\/late was no longer safely held/);
  await Promise.all(fillers);
  t.deepEqual(server.fixture.callLog().filter((c) => c.host === 'fleet/late'), []);
  t.deepEqual(lost, ['expired']);
  t.true(renewals >= 1);
});

test('lease - a call that leaves while its lease is held says when it left, and the fixture logs it beside its arrival', async (t) => {
  const server = await startFixtureServer({ options: { demoBehaviours: false } });
  const client = await createRemoteFixtureProvisioner({ url: server.url });
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  const before = performance.timeOrigin + performance.now();
  t.like(await client.register(hostData('h', () => true), { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'done' });
  const [call] = server.fixture.callLog();
  t.truthy(call?.sentAt);
  t.true(call!.sentAt! >= before);
  t.true(call!.sentAt! <= call!.at + 1);
  // And through the server's call log endpoint.
  t.is((await client.callLog())[0]?.sentAt, call!.sentAt);
});
