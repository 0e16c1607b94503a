import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { pino } from 'pino';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import {
  CANNED_HARDWARE, createFixtureProvisioner, createRemoteFixtureProvisioner, RemoteFixtureError, startFixtureServer,
  type FixtureServer, type RemoteFixtureProvisioner,
} from '../../src/adapters/fixture/index.ts';
import type { HostData, Logger } from '../../src/ports/index.ts';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import type { FixtureOperation } from '../../src/adapters/fixture/index.ts';

const USERNAME = 'bmc-admin-do-not-leak';
const PASSWORD = 'p4ssw0rd-do-not-leak';
const USER_DATA = '#cloud-config\nroot-password: user-data-do-not-leak';
const SECRETS = [USERNAME, PASSWORD, 'user-data-do-not-leak'];

function hostData(name: string, o: { address?: string; fence?: HostData['fence'] } = {}): HostData {
  const spec: BareMetalHostSpec = {
    online: true,
    bootMode: 'UEFI',
    automatedCleaningMode: 'metadata',
    bmc: { address: o.address ?? 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
    image: { url: 'http://images/os.qcow2', checksum: 'abc' },
  };
  return {
    key: `metal3/${name}`, namespace: 'metal3', name, uid: `uid-${name}`, provisionerId: '', spec,
    credentials: { username: USERNAME, password: PASSWORD }, userData: USER_DATA,
    ...(o.fence ? { fence: o.fence } : {}),
  };
}

const ARGS: { [O in FixtureOperation]: Extract<CallArgs, { op: O }> } = {
  register: { op: 'register', restartOnFailure: false, credentialsChanged: false },
  inspect: { op: 'inspect', restartOnFailure: false, refresh: false },
  prepare: { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null } },
  provision: { op: 'provision', image: { url: 'http://images/os.qcow2', checksum: 'abc' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined },
  deprovision: { op: 'deprovision', restartOnFailure: false, automatedCleaning: true },
  adopt: { op: 'adopt', restartOnFailure: false },
  powerOn: { op: 'powerOn', force: false },
  powerOff: { op: 'powerOff', mode: 'hard', force: false },
  hardwareState: { op: 'hardwareState' },
  detach: { op: 'detach', force: false },
  delete: { op: 'delete' },
  service: { op: 'service', restartOnFailure: false, firmware: { settings: { ProcTurboMode: 'Disabled' }, updates: [] } },
  firmware: { op: 'firmware' },
};

interface Rig {
  server: FixtureServer;
  client: RemoteFixtureProvisioner;
  logLines: string[];
}

// Each test its own server on a free port, with its log captured at the most verbose level.
async function rig(t: { teardown(fn: () => Promise<void>): void }, options: Parameters<typeof startFixtureServer>[0] = {}, timeoutMs = 30_000): Promise<Rig> {
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const log = pino({ level: 'trace' }, sink) as unknown as Logger;
  const server = await startFixtureServer({ ...options, log });
  const client = await createRemoteFixtureProvisioner({ url: server.url, timeoutMs });
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  return { server, client, logLines };
}

async function post(url: string, body: string): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: the assertions on status say what went wrong.
  }
  return { status: res.status, text, json };
}

test('fixture remote - a whole host lifecycle through the client, counted by the server', async (t) => {
  const { server, client } = await rig(t, { options: { provisionPasses: 2, pollMs: 5 } });
  const h = hostData('worker-0');
  t.deepEqual(await client.register(h, ARGS.register), { kind: 'done', provisionerId: 'fixture-uid-worker-0' });
  t.deepEqual(await client.inspect(h, ARGS.inspect), { kind: 'done', hardware: CANNED_HARDWARE });
  t.deepEqual(await client.prepare(h, ARGS.prepare), { kind: 'done' });
  t.deepEqual(await client.provision(h, ARGS.provision), { kind: 'continuing', afterMs: 5 });
  t.like(await client.node(h.key), { provisionState: 'deploying', gatedOp: 'provision' });
  t.deepEqual(await client.provision(h, ARGS.provision), { kind: 'done', poweredOn: true });
  t.deepEqual(await client.hardwareState(h, ARGS.hardwareState), { kind: 'done', poweredOn: true });
  t.like(await client.deprovision(h, ARGS.deprovision), { kind: 'continuing' });
  t.like(await client.deprovision(h, ARGS.deprovision), { kind: 'done' });
  t.like(await client.node(h.key), { provisionState: 'available', provisionCount: 1, power: false });
  t.deepEqual(await client.delete(h, ARGS.delete), { kind: 'done' });
  t.is(await client.node(h.key), undefined);
  t.deepEqual(await client.powerOn(h, ARGS.powerOn), { kind: 'needsRegistration' });

  const all = await client.counters();
  t.like(all.totals, { register: 1, inspect: 1, prepare: 1, provision: 2, deprovision: 2, hardwareState: 1, delete: 1, powerOn: 1 });
  t.like(all.startTotals, { register: 1, inspect: 1, prepare: 1, provision: 1, deprovision: 1, hardwareState: 0, delete: 1, powerOn: 0 });
  t.is(all.duplicateStarts, 0);
  t.is(all.fencedCalls, 0);
  t.is(all.busy, 0);
  t.is(all.maxBusy, 1);
  t.deepEqual(Object.keys(all.hosts), [h.key]);
  t.like(all.hosts[h.key], { provisionCount: 0, state: null, starts: { provision: 1 } });
  // The server's fixture is the one counted: the same numbers in process.
  t.deepEqual(all.totals, server.fixture.totals());

  const one = await client.counters(h.key);
  t.deepEqual(Object.keys(one.hosts), [h.key]);
  const none = await client.counters('metal3/never');
  t.like(none.hosts['metal3/never'], { state: null, provisionCount: 0, calls: { register: 0 } });

  await client.resetCounters();
  t.like((await client.counters()).totals, { register: 0, provision: 0 });
});

test('fixture remote - provision re-driven on an active node is one deployment and one start', async (t) => {
  const { client, server } = await rig(t);
  const h = hostData('worker-0');
  for (const op of ['register', 'inspect', 'prepare', 'provision'] as const) await (client[op] as (h: HostData, a: CallArgs) => Promise<unknown>).call(client, h, ARGS[op]);
  // A second node took the shard over and re-issues the step it finds in status.
  const takeover = hostData('worker-0', { fence: { shard: 3, epoch: 2, holder: 'node-b' } });
  t.deepEqual(await client.provision(takeover, ARGS.provision), { kind: 'done', poweredOn: true });
  const c = await client.counters(h.key);
  t.like(c.hosts[h.key], { provisionCount: 1, state: 'active', calls: { provision: 2 }, starts: { provision: 1 } });
  t.is(c.duplicateStarts, 0);
  t.is(server.fixture.node(h.key)?.provisionCount, 1);
});

test('fixture remote - a call from a stale owner is refused as transient and counted', async (t) => {
  const { client, logLines } = await rig(t);
  const h = hostData('worker-0');
  t.like(await client.register({ ...h, fence: { shard: 5, epoch: 4, holder: 'node-b' } }, ARGS.register), { kind: 'done' });
  const stale = await client.inspect({ ...h, fence: { shard: 5, epoch: 3, holder: 'node-a' } }, ARGS.inspect);
  t.deepEqual(stale, { kind: 'transient', message: 'fixture: call from a stale owner of shard 5 (epoch 3 < 4); refused' });
  // Without a fence a call is never refused.
  t.like(await client.inspect(h, ARGS.inspect), { kind: 'done' });
  const c = await client.counters();
  t.is(c.fencedCalls, 1);
  t.like(c.hosts[h.key], { calls: { inspect: 1 }, starts: { inspect: 1 } });
  const log = await client.callLog();
  t.deepEqual(log.map((r) => [r.op, r.epoch, r.holder, r.refused]), [['register', 4, 'node-b', false], ['inspect', 3, 'node-a', true], ['inspect', null, null, false]]);
  t.deepEqual((await client.callLog(1)).map((r) => r.op), ['inspect']);
  t.true(logLines.some((l) => l.includes('stale owner') && l.includes('"holder":"node-a"')));
});

test('fixture remote - bad bodies get 400 naming the field; unknown routes 404; wrong methods 405', async (t) => {
  const { server } = await rig(t);
  const h = hostData('worker-0');
  const noName = await post(`${server.url}/v1/calls/register`, JSON.stringify({ host: { ...h, name: undefined }, args: ARGS.register }));
  t.is(noName.status, 400);
  t.is(noName.json.field, 'host.name');
  t.regex(String(noName.json.error), /invalid register call: host\.name: /);

  const badBoot = await post(`${server.url}/v1/calls/provision`, JSON.stringify({ host: h, args: { ...ARGS.provision, bootMode: 'BIOS' } }));
  t.is(badBoot.status, 400);
  t.is(badBoot.json.field, 'args.bootMode');

  const badFence = await post(`${server.url}/v1/calls/inspect`, JSON.stringify({ host: { ...h, fence: { shard: 1, epoch: 'two', holder: 'x' } }, args: ARGS.inspect }));
  t.is(badFence.status, 400);
  t.is(badFence.json.field, 'host.fence.epoch');

  const mismatch = await post(`${server.url}/v1/calls/provision`, JSON.stringify({ host: h, args: ARGS.inspect }));
  t.is(mismatch.status, 400);
  t.is(mismatch.json.field, 'args.op');

  const notJson = await post(`${server.url}/v1/calls/register`, '{"host":');
  t.is(notJson.status, 400);
  t.regex(String(notJson.json.error), /not valid JSON/);

  const unknownOp = await post(`${server.url}/v1/calls/reboot`, JSON.stringify({ host: h, args: { op: 'reboot' } }));
  t.is(unknownOp.status, 404);
  t.regex(String(unknownOp.json.error), /unknown operation "reboot"/);

  t.is((await fetch(`${server.url}/v1/calls/register`)).status, 405);
  t.is((await fetch(`${server.url}/v2/anything`)).status, 404);
  t.is((await fetch(`${server.url}/v1/nodes/metal3%2Fnever`)).status, 404);
  t.is((await fetch(`${server.url}/v1/nodes/metal3%E0%A4%A`)).status, 400);
  t.deepEqual(await (await fetch(`${server.url}/v1/config`)).json(), { pool: 'fixture:default', exemptVirtualMedia: true });
  // Nothing reached the fixture.
  t.deepEqual([...server.fixture.calls().keys()], []);
});

test('fixture remote - credentials and user data appear in no answer and no server log line', async (t) => {
  const { server, client, logLines } = await rig(t, { options: { failHosts: { 'worker-1': ['provision'] } } });
  const bodies: string[] = [];
  const record = async (path: string, body: unknown): Promise<void> => {
    bodies.push((await post(`${server.url}${path}`, JSON.stringify(body))).text);
  };
  const h = hostData('worker-1');
  for (const op of ['register', 'inspect', 'prepare', 'provision', 'hardwareState', 'deprovision', 'delete'] as const) await record(`/v1/calls/${op}`, { host: h, args: ARGS[op] });
  // Bad bodies that carry the secrets next to the broken field, or in it.
  await record('/v1/calls/register', { host: { ...h, spec: { ...h.spec, online: 'yes' } }, args: ARGS.register });
  await record('/v1/calls/register', { host: { ...h, credentials: { username: USERNAME, password: 42 } }, args: ARGS.register });
  await record('/v1/calls/register', { host: { ...h, credentials: PASSWORD }, args: ARGS.register });
  await record('/v1/calls/register', { host: { ...h, userData: [USER_DATA] }, args: ARGS.register });
  await record('/v1/calls/provision', { host: h, args: ARGS.register });
  // A register without a password fails naming what is missing, not the user name.
  await record('/v1/calls/register', { host: { ...hostData('worker-2'), credentials: { username: USERNAME, password: '' } }, args: ARGS.register });
  for (const path of ['/v1/counters', '/v1/calls', '/v1/config', '/v1/nodes/metal3%2Fworker-1']) bodies.push(await (await fetch(`${server.url}${path}`)).text());
  // The client's own results too, including a failure.
  const results = [await client.register(h, ARGS.register), await client.provision(h, ARGS.provision)];
  t.like(results[1], { kind: 'failed', message: 'injected provision failure' });
  bodies.push(JSON.stringify(results));

  t.true(bodies.length >= 17);
  t.true(logLines.length >= 8, 'every call was logged');
  for (const text of [...bodies, ...logLines]) for (const secret of SECRETS) t.false(text.includes(secret), `${secret} in ${text}`);
});

test('fixture remote - capacity is computed locally as the fixture computes it', async (t) => {
  const { client } = await rig(t, { options: { pool: 'fixture:rack-9' } });
  const local = createFixtureProvisioner({ pool: 'fixture:rack-9' });
  for (const address of ['redfish://192.0.2.1/x', 'redfish-virtualmedia://192.0.2.1/x', 'idrac-virtualmedia+https://192.0.2.1/x', 'ipmi://192.0.2.1:623']) {
    const h = hostData('w', { address });
    t.deepEqual(client.capacity(h), local.capacity(h), address);
  }
  t.deepEqual(client.capacityConfig, { pool: 'fixture:rack-9', exemptVirtualMedia: true });
});

test('fixture remote - a dead server gives transient results, never a throw or a secret', async (t) => {
  const server = await startFixtureServer();
  const client = await createRemoteFixtureProvisioner({ url: server.url, timeoutMs: 2_000 });
  t.teardown(() => client.close());
  const h = hostData('worker-0');
  t.like(await client.register(h, ARGS.register), { kind: 'done' });
  await server.close();
  for (const op of ['register', 'provision', 'hardwareState'] as const) {
    const r = await (client[op] as (h: HostData, a: CallArgs) => Promise<{ kind: string; message?: string }>).call(client, h, ARGS[op]);
    t.is(r.kind, 'transient', op);
    t.regex(r.message ?? '', new RegExp(`fixture server: ${op} of metal3/worker-0: `));
    for (const secret of SECRETS) t.false((r.message ?? '').includes(secret));
  }
  // Creating a client against nothing rejects, with a named error.
  const err = await t.throwsAsync(createRemoteFixtureProvisioner({ url: server.url, timeoutMs: 2_000 }));
  t.true(err instanceof RemoteFixtureError);
  t.regex(err?.message ?? '', /GET \/v1\/config/);
  await t.throwsAsync(createRemoteFixtureProvisioner({ url: 'not a url' }), { instanceOf: RemoteFixtureError });
});

test('fixture remote - 5xx and timeouts are transient; 4xx fails; calls share one kept-alive connection', async (t) => {
  let connections = 0;
  const hung: http.ServerResponse[] = [];
  const fake = http.createServer((req, res) => {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/config') reply(200, { pool: 'fixture:default', exemptVirtualMedia: false });
      else if (req.url === '/v1/calls/register') reply(503, { error: `overloaded; echoing ${PASSWORD}` });
      else if (req.url === '/v1/calls/inspect') reply(400, { error: 'no such thing' });
      else if (req.url === '/v1/calls/prepare') reply(200, { kind: 'sideways' });
      else if (req.url === '/v1/calls/provision') hung.push(res);
      else reply(200, { kind: 'done', poweredOn: false });
    });
  });
  fake.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    fake.close(() => resolve());
    fake.closeAllConnections();
  }));
  const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const client = await createRemoteFixtureProvisioner({ url, timeoutMs: 30_000 });
  const impatient = await createRemoteFixtureProvisioner({ url, timeoutMs: 1_500 });
  t.teardown(async () => {
    await client.close();
    await impatient.close();
  });
  const h = hostData('worker-0');

  const overloaded = await client.register(h, ARGS.register);
  t.like(overloaded, { kind: 'transient' });
  t.regex((overloaded as { message: string }).message, /HTTP 503/);
  t.false((overloaded as { message: string }).message.includes(PASSWORD), 'a quoted secret is masked');
  t.like(await client.inspect(h, ARGS.inspect), { kind: 'failed' });
  t.like(await client.prepare(h, ARGS.prepare), { kind: 'transient' });
  const timedOut = await impatient.provision(h, ARGS.provision);
  t.like(timedOut, { kind: 'transient' });
  t.regex((timedOut as { message: string }).message, /within 1500 ms/);
  t.is(hung.length, 1);

  const before = connections;
  for (let i = 0; i < 200; i++) t.deepEqual(await client.hardwareState(h, ARGS.hardwareState), { kind: 'done', poweredOn: false });
  t.true(connections - before <= 1, `${connections - before} new connections for 200 calls`);
});

test('fixture remote - a thousand concurrent calls through one client', async (t) => {
  // Generous: calls wait in the agent's queue for one of its sockets, on a loaded test machine.
  const { client, server } = await rig(t, {}, 110_000);
  const hosts = Array.from({ length: 250 }, (_, i) => hostData(`h${i}`));
  await Promise.all(hosts.map(async (h) => {
    for (const op of ['register', 'inspect', 'prepare', 'provision'] as const) {
      const r = await (client[op] as (h: HostData, a: CallArgs) => Promise<{ kind: string }>).call(client, h, ARGS[op]);
      if (r.kind !== 'done') throw new Error(`${op} of ${h.key}: ${JSON.stringify(r)}`);
    }
  }));
  const c = await client.counters();
  t.is(c.startTotals.provision, 250);
  t.is(c.duplicateStarts, 0);
  t.is(Object.keys(c.hosts).length, 250);
  t.is(server.fixture.totals().register, 250);
});
