// What a chaos run reads off the fixture: every call with its caller (a call log as long as the
// run), each gated operation opening and closing (the backend's concurrency over time), and hosts
// deployed a second time with no deprovision in between.
import test from 'ava';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import {
  CALL_LOG_SIZE, createFixtureProvisioner, createRemoteFixtureProvisioner, FixtureOptionsError, startFixtureServer,
  type FixtureClock, type FixtureGateEvent,
} from '../../src/adapters/fixture/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';

function hostData(name: string, fence?: HostData['fence']): HostData {
  const spec: BareMetalHostSpec = {
    online: true,
    bootMode: 'UEFI',
    automatedCleaningMode: 'metadata',
    bmc: { address: 'ipmi://192.0.2.1', credentialsName: 'bmc' },
    image: { url: 'http://images/os.qcow2', checksum: 'abc' },
  };
  return {
    key: `fleet/${name}`, namespace: 'fleet', name, uid: `uid-${name}`, provisionerId: '', spec,
    credentials: { username: 'admin', password: 'bmc-secret-not-in-events' }, ...(fence ? { fence } : {}),
  };
}

const REGISTER = { op: 'register', restartOnFailure: false, credentialsChanged: false } as const;
const PREPARE = { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null } } as const;
const INSPECT = { op: 'inspect', restartOnFailure: false, refresh: false } as const;
const PROVISION = { op: 'provision', image: { url: 'http://images/os.qcow2', checksum: 'abc' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;
const DEPROVISION = { op: 'deprovision', restartOnFailure: false, automatedCleaning: true } as const;

async function deploy(p: Provisioner, h: HostData): Promise<void> {
  await p.register(h, REGISTER);
  await p.prepare(h, PREPARE);
  await p.provision(h, PROVISION);
}

test('fixture observing - callLogSize keeps more calls than the default ring, oldest dropped first', async (t) => {
  const p = createFixtureProvisioner({ callLogSize: CALL_LOG_SIZE * 3 });
  const h = hostData('h-0', { shard: 4, epoch: 9, holder: 'node-c' });
  await p.register(h, REGISTER);
  for (let i = 0; i < CALL_LOG_SIZE * 2; i++) await p.hardwareState(h, { op: 'hardwareState' });
  const log = p.callLog();
  t.is(log.length, CALL_LOG_SIZE * 2 + 1, 'every call kept');
  t.like(log[0], { op: 'register', holder: 'node-c', shard: 4, epoch: 9 });
  for (let i = 0; i < CALL_LOG_SIZE * 2; i++) await p.hardwareState(h, { op: 'hardwareState' });
  t.is(p.callLog().length, CALL_LOG_SIZE * 3);
  t.is(p.callLog()[0]?.op, 'hardwareState', 'the register call was the oldest and went first');
});

test('fixture observing - a callLogSize that is not a whole number of at least 1 is refused naming the field', (t) => {
  for (const callLogSize of [0, 1.5, -3]) {
    const err = t.throws(() => createFixtureProvisioner({ callLogSize }), { instanceOf: FixtureOptionsError });
    t.regex(err?.message ?? '', /callLogSize: must be/);
  }
});

test('fixture observing - onGate hears each gated operation open and close, with busy() after it', async (t) => {
  const timers: Array<() => void> = [];
  let now = 5_000;
  const clock: FixtureClock = { setTimeout: (fn) => timers.push(fn), now: () => now };
  const events: FixtureGateEvent[] = [];
  const p = createFixtureProvisioner({ latencyMs: { provision: 100, inspect: 100 }, provisionPasses: 2, clock, onGate: (e) => events.push(e) });
  const a = hostData('a');
  const b = hostData('b');
  for (const h of [a, b]) {
    await p.register(h, REGISTER);
    await p.prepare(h, PREPARE);
  }
  // Busy from the arrival of the call, as maxBusy counts it.
  const first = p.provision(a, PROVISION);
  t.deepEqual(events, [{ host: a.key, op: 'provision', kind: 'opened', busy: 1, at: 5_000 }]);
  now = 5_050;
  const second = p.provision(b, PROVISION);
  timers.shift()!();
  timers.shift()!();
  t.like(await first, { kind: 'continuing' });
  t.like(await second, { kind: 'continuing' });
  t.is(events.length, 2, 'a second pass of a running deployment opens nothing');
  now = 6_000;
  const done = p.provision(a, PROVISION);
  timers.shift()!();
  t.like(await done, { kind: 'done' });
  t.deepEqual(events.slice(1), [
    { host: b.key, op: 'provision', kind: 'opened', busy: 2, at: 5_050 },
    { host: a.key, op: 'provision', kind: 'closed', busy: 1, at: 6_000 },
  ]);
  t.is(p.maxBusy, 2);
  // A node the backend loses mid-deployment stops counting, and says so.
  p.forget(b.key);
  t.like(events.at(-1), { host: b.key, kind: 'closed', busy: 0 });
  t.is(p.busy(), 0);
  t.false(JSON.stringify(events).includes('bmc-secret'), 'no credential in an event');
});

test('fixture observing - a throwing onGate does not break the backend it watches', async (t) => {
  const p = createFixtureProvisioner({ onGate: () => { throw new Error('observer bug'); } });
  const h = hostData('a');
  await p.register(h, REGISTER);
  t.like(await p.inspect(h, INSPECT), { kind: 'done' });
  t.is(p.busy(), 0);
  t.is(p.starts(h.key).inspect, 1);
});

test('fixture observing - deployedTwice names hosts deployed again with no deprovision in between', async (t) => {
  const p = createFixtureProvisioner();
  const cleaned = hostData('cleaned');
  const wiped = hostData('wiped');
  const redriven = hostData('redriven');
  for (const h of [cleaned, wiped, redriven]) await deploy(p, h);
  // Deprovisioned, then deployed again: two deployments, never two at once on the disk.
  await p.deprovision(cleaned, DEPROVISION);
  await p.provision(cleaned, PROVISION);
  // A re-driven provision of an active node is the same deployment.
  await p.provision(redriven, PROVISION);
  t.deepEqual(p.deployedTwice(), []);
  // The backend lost the node (a wiped database); registered and deployed again over the first.
  p.forget(wiped.key);
  await deploy(p, wiped);
  t.is(p.node(wiped.key)?.provisionCount, 1, "the new node's own count cannot see it");
  t.deepEqual(p.deployedTwice(), [wiped.key]);
  p.resetCounters();
  t.deepEqual(p.deployedTwice(), []);
});

test('fixture observing - the server reports deployedTwice in its counters', async (t) => {
  const server = await startFixtureServer({ options: { demoBehaviours: false } });
  const client = await createRemoteFixtureProvisioner({ url: server.url });
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  const h = hostData('w');
  await deploy(client, h);
  t.is((await client.counters()).deployedTwice, 0);
  server.fixture.forget(h.key);
  await deploy(client, h);
  t.is((await client.counters()).deployedTwice, 1);
});
