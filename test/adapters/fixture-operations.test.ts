import test from 'ava';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import { CALL_LOG_SIZE, createFixtureProvisioner, CANNED_HARDWARE, type FixtureClock, type FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { Credentials, HostData } from '../../src/ports/index.ts';
import type { OpResult } from '../../src/machines/bmh/index.ts';

const CREDS: Credentials = { username: 'admin', password: 'hunter2-secret' };

function hostData(name: string, o: { credentials?: Credentials | null; address?: string; namespace?: string; uid?: string } = {}): HostData {
  const namespace = o.namespace ?? 'metal3';
  const spec: BareMetalHostSpec = {
    online: true,
    bootMode: 'UEFI',
    automatedCleaningMode: 'metadata',
    bmc: { address: o.address ?? 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
    image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
  };
  return {
    key: `${namespace}/${name}`, namespace, name, uid: o.uid ?? `uid-${name}`, provisionerId: '', spec,
    credentials: o.credentials === undefined ? CREDS : o.credentials,
    userData: '#cloud-config\npassword: user-data-secret',
  };
}

const REGISTER = { op: 'register', restartOnFailure: false, credentialsChanged: false } as const;
const INSPECT = { op: 'inspect', restartOnFailure: false, refresh: false } as const;
const PREPARE = { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null } } as const;
const PROVISION = { op: 'provision', image: { url: 'http://images/os.qcow2', checksum: 'abc' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;
const DEPROVISION = { op: 'deprovision', restartOnFailure: false, automatedCleaning: true } as const;

async function toAvailable(p: FixtureProvisioner, h: HostData): Promise<void> {
  await p.register(h, REGISTER);
  await p.inspect(h, INSPECT);
  await p.prepare(h, PREPARE);
}

test('fixture - register creates a node with a stable id and is idempotent', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('worker-0');
  const first = await p.register(h, REGISTER);
  t.deepEqual(first, { kind: 'done', provisionerId: 'fixture-uid-worker-0' });
  t.is(p.node(h.key)?.provisionState, 'manageable');
  t.deepEqual(await p.register(h, REGISTER), first);
  t.is(p.calls(h.key).register, 2);
  // Without a uid the key names the node.
  const r = await p.register({ ...hostData('worker-1'), uid: '' }, REGISTER);
  t.deepEqual(r, { kind: 'done', provisionerId: 'fixture-metal3/worker-1' });
});

test('fixture - register without credentials fails naming what is missing, without requeue', async (t) => {
  const p = createFixtureProvisioner();
  const none = await p.register(hostData('w', { credentials: null }), REGISTER);
  t.is(none.kind, 'failed');
  if (none.kind !== 'failed') return;
  t.regex(none.message, /metal3\/w/);
  t.regex(none.message, /Secret metal3\/w-bmc/);
  t.is(none.retryAfterMs, null);
  t.is(p.node('metal3/w'), undefined);

  const noPassword = await p.register(hostData('w', { credentials: { username: 'admin', password: '' } }), REGISTER);
  t.like(noPassword, { kind: 'failed' });
  if (noPassword.kind === 'failed') {
    t.regex(noPassword.message, /no password/);
    t.notRegex(noPassword.message, /admin/);
  }
});

test('fixture - the lifecycle moves the node through Ironic-like states', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  const inspected = await p.inspect(h, INSPECT);
  t.deepEqual(inspected, { kind: 'done', hardware: CANNED_HARDWARE });
  if (inspected.kind === 'done') {
    t.is(inspected.hardware?.ramMebibytes, 131072);
    t.is(inspected.hardware?.nics?.length, 2);
    t.is(inspected.hardware?.storage?.length, 2);
    t.is(inspected.hardware?.cpu?.arch, 'x86_64');
  }
  t.is(p.node(h.key)?.provisionState, 'manageable');
  t.deepEqual(await p.prepare(h, PREPARE), { kind: 'done' });
  t.is(p.node(h.key)?.provisionState, 'available');
  t.deepEqual(await p.provision(h, PROVISION), { kind: 'done', poweredOn: true });
  t.like(p.node(h.key), { provisionState: 'active', power: true, provisionCount: 1, gatedOp: null });
  t.deepEqual(await p.powerOff(h, { op: 'powerOff', mode: 'soft', force: false }), { kind: 'done', poweredOn: false });
  t.deepEqual(await p.hardwareState(h, { op: 'hardwareState' }), { kind: 'done', poweredOn: false });
  t.deepEqual(await p.powerOn(h, { op: 'powerOn', force: false }), { kind: 'done', poweredOn: true });
  t.deepEqual(await p.hardwareState(h, { op: 'hardwareState' }), { kind: 'done', poweredOn: true });
  t.like(await p.deprovision(h, DEPROVISION), { kind: 'done' });
  t.like(p.node(h.key), { provisionState: 'available', power: false, provisionCount: 1 });
  t.deepEqual(await p.delete(h, { op: 'delete' }), { kind: 'done' });
  t.is(p.node(h.key), undefined);
  // Deleting what is gone is done too.
  t.deepEqual(await p.delete(h, { op: 'delete' }), { kind: 'done' });
  t.deepEqual(await p.detach(h, { op: 'detach', force: false }), { kind: 'done' });
});

test('fixture - inspect and provision take the configured passes', async (t) => {
  const p = createFixtureProvisioner({ inspectPasses: 3, provisionPasses: 2, pollMs: 250 });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  t.deepEqual(await p.inspect(h, INSPECT), { kind: 'continuing', afterMs: 250 });
  t.is(p.node(h.key)?.provisionState, 'inspecting');
  t.deepEqual(await p.inspect(h, INSPECT), { kind: 'continuing', afterMs: 250 });
  t.like(await p.inspect(h, INSPECT), { kind: 'done' });
  await p.prepare(h, PREPARE);
  t.like(await p.provision(h, PROVISION), { kind: 'continuing' });
  t.is(p.node(h.key)?.provisionState, 'deploying');
  t.like(await p.provision(h, PROVISION), { kind: 'done', poweredOn: true });
  t.like(await p.deprovision(h, DEPROVISION), { kind: 'continuing' });
  t.is(p.node(h.key)?.provisionState, 'cleaning');
  t.like(await p.deprovision(h, DEPROVISION), { kind: 'done' });
  t.is(p.node(h.key)?.provisionState, 'available');
  t.deepEqual(p.calls(h.key), {
    register: 1, inspect: 3, prepare: 1, provision: 2, deprovision: 2, adopt: 0,
    powerOn: 0, powerOff: 0, hardwareState: 0, detach: 0, delete: 0, service: 0, firmware: 0,
  });
});

test('fixture - a lost node asks for registration; adopt brings it back as active', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('worker-0');
  await toAvailable(p, h);
  await p.provision(h, PROVISION);
  t.true(p.forget(h.key));
  t.false(p.forget(h.key));
  for (const result of [
    await p.hardwareState(h, { op: 'hardwareState' }),
    await p.powerOn(h, { op: 'powerOn', force: false }),
    await p.inspect(h, INSPECT),
    await p.provision(h, PROVISION),
    await p.adopt(h, { op: 'adopt', restartOnFailure: false }),
  ]) t.deepEqual(result, { kind: 'needsRegistration' });
  t.like(await p.register(h, REGISTER), { kind: 'done', provisionerId: 'fixture-uid-worker-0' });
  t.deepEqual(await p.adopt(h, { op: 'adopt', restartOnFailure: false }), { kind: 'done' });
  t.is(p.node(h.key)?.provisionState, 'active');

  const other = hostData('worker-1');
  await p.register(other, REGISTER);
  p.forgetAll();
  t.deepEqual(await p.prepare(other, PREPARE), { kind: 'needsRegistration' });
  t.deepEqual(await p.hardwareState(h, { op: 'hardwareState' }), { kind: 'needsRegistration' });
});

test('fixture - counters per host, per operation and in total', async (t) => {
  const p = createFixtureProvisioner();
  const a = hostData('a');
  const b = hostData('b');
  await p.register(a, REGISTER);
  await p.register(b, REGISTER);
  await p.register(b, REGISTER);
  await p.hardwareState(b, { op: 'hardwareState' });
  t.is(p.calls(a.key).register, 1);
  t.is(p.calls(b.key).register, 2);
  t.is(p.calls('metal3/never').register, 0);
  const all = p.calls();
  t.deepEqual([...all.keys()].sort(), [a.key, b.key]);
  t.is(all.get(b.key)?.hardwareState, 1);
  t.like(p.totals(), { register: 3, hardwareState: 1, inspect: 0 });
  p.resetCounters();
  t.like(p.totals(), { register: 0, hardwareState: 0 });
  t.is(p.calls(b.key).register, 0);
});

test('fixture - busy counts nodes in a gated step; maxBusy keeps the high-water mark', async (t) => {
  const p = createFixtureProvisioner({ inspectPasses: 2, provisionPasses: 2 });
  const hosts = ['a', 'b', 'c'].map((n) => hostData(n));
  for (const h of hosts) await p.register(h, REGISTER);
  t.is(p.busy(), 0);
  await p.inspect(hosts[0]!, INSPECT);
  await p.inspect(hosts[1]!, INSPECT);
  t.is(p.busy(), 2);
  await p.inspect(hosts[0]!, INSPECT);
  t.is(p.busy(), 1);
  await p.prepare(hosts[0]!, PREPARE);
  await p.provision(hosts[0]!, PROVISION);
  await p.inspect(hosts[2]!, INSPECT);
  t.is(p.busy(), 3);
  t.is(p.maxBusy, 3);
  // A lost node stops counting.
  p.forget(hosts[2]!.key);
  t.is(p.busy(), 2);
  await p.inspect(hosts[1]!, INSPECT);
  await p.provision(hosts[0]!, PROVISION);
  t.is(p.busy(), 0);
  t.is(p.maxBusy, 3);
  p.resetCounters();
  t.is(p.maxBusy, 0);
});

test('fixture - a gated call is busy from its arrival while latency runs', async (t) => {
  const timers: { fn: () => void; ms: number }[] = [];
  const clock: FixtureClock = { setTimeout: (fn, ms) => timers.push({ fn, ms }) };
  const p = createFixtureProvisioner({ latencyMs: { inspect: 500, register: 0 }, clock });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  t.is(timers.length, 0);
  let result: OpResult | undefined;
  void p.inspect(h, INSPECT).then((r) => (result = r));
  t.is(p.busy(), 1);
  t.is(timers.length, 1);
  t.is(timers[0]!.ms, 500);
  await Promise.resolve();
  t.is(result, undefined);
  timers[0]!.fn();
  await Promise.resolve();
  t.like(result, { kind: 'done' });
  t.is(p.busy(), 0);
  t.is(p.maxBusy, 1);
});

test('fixture - zero latency resolves on a microtask without timers', async (t) => {
  const clock: FixtureClock = { setTimeout: () => t.fail('no timer expected') };
  const p = createFixtureProvisioner({ latencyMs: 0, clock });
  const h = hostData('worker-0');
  let settled = false;
  const pending = p.register(h, REGISTER).then(() => (settled = true));
  t.false(settled);
  await pending;
  t.true(settled);
});

test('fixture - many hosts at zero latency stay fast', async (t) => {
  const p = createFixtureProvisioner({ demoBehaviours: false });
  const hosts = Array.from({ length: 20_000 }, (_, i) => hostData(`h${i}`));
  // At zero latency no call may wait for a timer or an I/O turn: count the event loop's turns
  // while 100,000 calls run (a wall-clock bound was what a busy machine broke, not the fixture).
  let turns = 0;
  let turn = setImmediate(function next() {
    turns += 1;
    turn = setImmediate(next);
  });
  for (const h of hosts) {
    await p.register(h, REGISTER);
    await p.inspect(h, INSPECT);
    await p.prepare(h, PREPARE);
    await p.provision(h, PROVISION);
    await p.hardwareState(h, { op: 'hardwareState' });
  }
  clearImmediate(turn);
  t.is(p.totals().provision, 20_000);
  t.is(turns, 0, 'every call answered without leaving the turn it was made in');
});

test('fixture - capacity claims the pool; virtual-media BMCs are exempt', (t) => {
  const p = createFixtureProvisioner({ pool: 'fixture:rack-1' });
  t.deepEqual(p.capacity(hostData('a')), { pool: 'fixture:rack-1', exempt: false });
  t.deepEqual(p.capacity(hostData('b', { address: 'redfish-virtualmedia://192.0.2.1/redfish/v1/Systems/1' })), { pool: 'fixture:rack-1', exempt: true });
  t.true(p.capacity(hostData('c', { address: 'idrac-virtualmedia+https://192.0.2.1/redfish/v1/Systems/1' })).exempt);
  t.false(p.capacity(hostData('d', { address: 'ipmi://192.0.2.1:623' })).exempt);
  t.false(p.capacity(hostData('e', { address: 'virtualmedia.example.com:623' })).exempt);
  t.false(p.capacity(hostData('f', { address: 'redfish-uefihttp://192.0.2.1/redfish/v1/Systems/1' })).exempt);
  const strict = createFixtureProvisioner({ exemptVirtualMedia: false });
  t.deepEqual(strict.capacity(hostData('b', { address: 'redfish-virtualmedia://192.0.2.1/x' })), { pool: 'fixture:default', exempt: false });
});

test('fixture - node() returns a copy', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  const view = p.node(h.key) as { power: boolean };
  view.power = true;
  t.false(p.node(h.key)?.power);
});

const fenced = (h: HostData, shard: number, epoch: number, holder: string): HostData => ({ ...h, fence: { shard, epoch, holder } });

test('fixture - starts count what changed the node; a re-driven step starts nothing', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  await p.register(h, REGISTER);
  await p.inspect(h, INSPECT);
  // A new owner that finds "inspecting" in status inspects again: answered from the record.
  t.deepEqual(await p.inspect(h, INSPECT), { kind: 'done', hardware: CANNED_HARDWARE });
  await p.prepare(h, PREPARE);
  await p.prepare(h, PREPARE);
  t.deepEqual(await p.provision(h, PROVISION), { kind: 'done', poweredOn: true });
  // ...and one that finds "provisioning": the node is active, so this is no second deployment.
  t.deepEqual(await p.provision(h, PROVISION), { kind: 'done', poweredOn: true });
  t.like(p.node(h.key), { provisionState: 'active', provisionCount: 1, gatedOp: null });
  await p.powerOn(h, { op: 'powerOn', force: false });
  await p.powerOff(h, { op: 'powerOff', mode: 'soft', force: false });
  await p.powerOff(h, { op: 'powerOff', mode: 'soft', force: false });
  await p.hardwareState(h, { op: 'hardwareState' });
  await p.delete(h, { op: 'delete' });
  await p.delete(h, { op: 'delete' });
  t.deepEqual(p.starts(h.key), {
    register: 1, inspect: 1, prepare: 1, provision: 1, deprovision: 0, adopt: 0,
    powerOn: 0, powerOff: 1, hardwareState: 0, detach: 0, delete: 1, service: 0, firmware: 0,
  });
  t.like(p.calls(h.key), { register: 2, inspect: 2, prepare: 2, provision: 2, powerOff: 2, delete: 2 });
  t.like(p.startTotals(), { register: 1, provision: 1, delete: 1 });
  t.deepEqual([...p.starts().keys()], [h.key]);
  t.is(p.duplicateStarts(), 0);
  t.is(p.starts('metal3/never').provision, 0);
});

test('fixture - a refresh or a restart after failure inspects again', async (t) => {
  const p = createFixtureProvisioner({ inspectPasses: 2 });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  t.like(await p.inspect(h, INSPECT), { kind: 'continuing' });
  // A second owner joining a running inspection continues it.
  t.like(await p.inspect(h, INSPECT), { kind: 'done' });
  t.is(p.starts(h.key).inspect, 1);
  t.like(await p.inspect(h, { ...INSPECT, refresh: true }), { kind: 'continuing' });
  t.is(p.node(h.key)?.gatedOp, 'inspect');
  t.is(p.starts(h.key).inspect, 2);
  t.like(await p.inspect(h, INSPECT), { kind: 'done' });
  t.like(await p.inspect(h, { ...INSPECT, restartOnFailure: true }), { kind: 'continuing' });
  t.is(p.starts(h.key).inspect, 3);
  t.is(p.duplicateStarts(), 2);
});

test('fixture - a deployment begun twice shows in duplicateStarts', async (t) => {
  const p = createFixtureProvisioner({ provisionPasses: 2 });
  const a = hostData('a');
  const b = hostData('b');
  for (const h of [a, b]) await toAvailable(p, h);
  t.like(await p.provision(a, PROVISION), { kind: 'continuing' });
  // Joining a deployment in progress is the same deployment.
  t.like(await p.provision(a, PROVISION), { kind: 'done' });
  t.is(p.duplicateStarts(), 0);
  // Deprovisioned and deployed again: the backend sees a second deployment of b.
  await p.provision(b, PROVISION);
  await p.provision(b, PROVISION);
  await p.deprovision(b, DEPROVISION);
  await p.deprovision(b, DEPROVISION);
  await p.provision(b, PROVISION);
  t.is(p.starts(b.key).provision, 2);
  t.is(p.duplicateStarts(), 1);
  p.resetCounters();
  t.is(p.duplicateStarts(), 0);
  t.like(p.startTotals(), { provision: 0, register: 0 });
});

test('fixture - with latency a re-driven provision on an active node opens no gate', async (t) => {
  const timers: { fn: () => void; ms: number }[] = [];
  const clock: FixtureClock = { setTimeout: (fn, ms) => timers.push({ fn, ms }) };
  const p = createFixtureProvisioner({ latencyMs: { provision: 100 }, clock });
  const h = hostData('worker-0');
  await toAvailable(p, h);
  let result: OpResult | undefined;
  void p.provision(h, PROVISION).then((r) => (result = r));
  t.is(p.busy(), 1);
  timers.shift()!.fn();
  await Promise.resolve();
  t.deepEqual(result, { kind: 'done', poweredOn: true });
  void p.provision(h, PROVISION).then((r) => (result = r));
  t.is(p.busy(), 0, 'an active node is not deploying again');
  timers.shift()!.fn();
  await Promise.resolve();
  t.deepEqual(result, { kind: 'done', poweredOn: true });
  t.is(p.starts(h.key).provision, 1);
  t.is(p.node(h.key)?.provisionCount, 1);
});

test('fixture - an injected transient on arrival of a gated call starts nothing', async (t) => {
  const timers: { fn: () => void; ms: number }[] = [];
  const clock: FixtureClock = { setTimeout: (fn, ms) => timers.push({ fn, ms }) };
  const p = createFixtureProvisioner({ latencyMs: { inspect: 10 }, transientRate: { inspect: 1 }, clock });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  const pending = p.inspect(h, INSPECT);
  t.is(p.busy(), 1);
  timers.shift()!.fn();
  t.like(await pending, { kind: 'transient' });
  t.is(p.busy(), 0);
  t.is(p.starts(h.key).inspect, 0);
});

test('fixture - a call from a stale owner is refused; calls without a fence never are', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('worker-0');
  t.like(await p.register(fenced(h, 7, 3, 'node-a'), REGISTER), { kind: 'done' });
  t.is(p.fenceEpoch(h.key), 3);
  // The shard moved to node-b at epoch 4; node-a has not noticed yet.
  t.like(await p.inspect(fenced(h, 7, 4, 'node-b'), INSPECT), { kind: 'done' });
  t.deepEqual(await p.prepare(fenced(h, 7, 3, 'node-a'), PREPARE), {
    kind: 'transient', message: 'fixture: call from a stale owner of shard 7 (epoch 3 < 4); refused',
  });
  t.is(p.node(h.key)?.provisionState, 'manageable', 'the refused call changed nothing');
  t.is(p.calls(h.key).prepare, 0);
  t.is(p.fencedCalls, 1);
  t.like(await p.prepare(h, PREPARE), { kind: 'done' });
  t.like(await p.hardwareState(fenced(h, 7, 4, 'node-b'), { op: 'hardwareState' }), { kind: 'done' });
  // Epochs are per host: another host has seen none.
  t.like(await p.register(fenced(hostData('worker-1'), 7, 1, 'node-a'), REGISTER), { kind: 'done' });
  t.is(p.fenceEpoch('metal3/never'), undefined);
  t.is(p.fencedCalls, 1);
  p.resetCounters();
  t.is(p.fencedCalls, 0);
  t.is(p.fenceEpoch(h.key), 4, 'the fence outlives a counter reset');
});

test('fixture - the call log keeps the latest calls with their fences', async (t) => {
  let now = 1_000;
  const clock = { setTimeout: () => t.fail('no timer expected'), now: () => now++ } as FixtureClock;
  const p = createFixtureProvisioner({ clock });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  await p.inspect(fenced(h, 2, 5, 'node-b'), INSPECT);
  await p.prepare({ ...fenced(h, 2, 4, 'node-a'), sentAt: 990.5 }, PREPARE);
  // sentAt: when the caller said it let the call go (a remote client does), else null.
  t.deepEqual(p.callLog(), [
    { host: h.key, op: 'register', shard: null, epoch: null, holder: null, at: 1_000, sentAt: null, refused: false },
    { host: h.key, op: 'inspect', shard: 2, epoch: 5, holder: 'node-b', at: 1_001, sentAt: null, refused: false },
    { host: h.key, op: 'prepare', shard: 2, epoch: 4, holder: 'node-a', at: 1_002, sentAt: 990.5, refused: true },
  ]);
  t.deepEqual(p.callLog(1).map((c) => c.op), ['prepare']);
  for (let i = 0; i < CALL_LOG_SIZE + 10; i++) await p.hardwareState(h, { op: 'hardwareState' });
  const log = p.callLog();
  t.is(log.length, CALL_LOG_SIZE);
  t.true(log.every((c) => c.op === 'hardwareState'));
  t.is(log.at(-1)!.at - log[0]!.at, CALL_LOG_SIZE - 1, 'oldest first, in order');
  p.resetCounters();
  t.deepEqual(p.callLog(), []);
});
