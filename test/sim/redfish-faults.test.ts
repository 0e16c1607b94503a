// Per-system faults: refused credentials, latency, a power state that never changes, 500s.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function status(url: string, info: SimSystemInfo, path: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<number> {
  const headers: Record<string, string> = init.token ? { 'x-auth-token': init.token } : { authorization: basic(info) };
  const res = await fetch(url + path, { method: init.method ?? 'GET', headers: { ...headers, 'content-type': 'application/json' }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  await res.arrayBuffer();
  return res.status;
}

test('redfish faults - refuse-credentials refuses Basic, new sessions and live sessions of that system only', async (t) => {
  const sim = await startRedfishSim({ systems: 2 });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  const login = await fetch(`${sim.url}/redfish/v1/SessionService/Sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ UserName: a.username, Password: a.password }) });
  const token = login.headers.get('x-auth-token') ?? '';
  await login.arrayBuffer();
  sim.system(a.id).setFaults({ refuseCredentials: true });
  t.is(await status(sim.url, a, a.systemPath), 401);
  t.is(await status(sim.url, a, a.systemPath, { token }), 401);
  t.is(await status(sim.url, a, '/redfish/v1/SessionService/Sessions', { method: 'POST', body: { UserName: a.username, Password: a.password } }), 401);
  t.is(await status(sim.url, b, b.systemPath), 200);
  sim.system(a.id).setFaults({ refuseCredentials: false });
  t.is(await status(sim.url, a, a.systemPath, { token }), 200);
});

test('redfish faults - power-stuck accepts a reset and never changes the power state', async (t) => {
  const sim = await startRedfishSim({ systems: [{ faults: { powerStuck: true } }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0];
  if (!a) throw new Error('one system expected');
  let events = 0;
  sim.system(a.id).on('power', () => events++);
  t.is(await status(sim.url, a, `${a.systemPath}/Actions/ComputerSystem.Reset`, { method: 'POST', body: { ResetType: 'On' } }), 204);
  t.false(sim.system(a.id).state.on);
  t.is(events, 0);
});

test('redfish faults - 5xx answers 500 with a Redfish body for everything about that system', async (t) => {
  const sim = await startRedfishSim({ systems: 2 });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  sim.system(a.id).setFaults({ serverError: true });
  for (const path of [a.systemPath, `/redfish/v1/Managers/${a.id}`, '/redfish/v1/UpdateService/FirmwareInventory']) t.is(await status(sim.url, a, path), 500, path);
  const res = await fetch(sim.url + a.systemPath, { headers: { authorization: basic(a) } });
  t.like(await res.json(), { error: { code: 'Base.1.8.InternalError' } });
  t.is(await status(sim.url, b, b.systemPath), 200);
  t.is(await status(sim.url, b, '/redfish/v1'), 200);
});

test('redfish faults - slow delays every answer about that system, and only that system', async (t) => {
  const sim = await startRedfishSim({ systems: 2 });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  sim.system(a.id).setFaults({ latencyMs: 400 });
  const order: string[] = [];
  const t0 = performance.now();
  const slow = status(sim.url, a, a.systemPath).then((s) => order.push(`a:${s}`));
  const fast = status(sim.url, b, b.systemPath).then((s) => order.push(`b:${s}`));
  await Promise.all([slow, fast]);
  t.deepEqual(order, ['b:200', 'a:200'], 'the other system answers while this one is still waiting');
  t.true(performance.now() - t0 >= 395, 'at least the latency');
});

test.serial('redfish faults - stop ends the wait of a slow answer: no timer of the sim outlives it', async (t) => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const sim = await startRedfishSim({ systems: 1 });
  const [a] = sim.systems;
  if (!a) throw new Error('one system expected');
  sim.system(a.id).setFaults({ latencyMs: 600_000 });
  // A BMC that stopped answering: the request waits in the sim until it is stopped.
  const waiting = status(sim.url, a, a.systemPath).then((s) => `status ${s}`, (err: unknown) => `failed: ${String(err)}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await sim.stop();
  t.regex(await waiting, /failed/, 'the connection was closed');
  t.is(timers(), before, 'nothing left to keep the process alive for the fault\'s ten minutes');
});

test('redfish faults - with one account for several systems (--password-file), a fault of one system leaves the others\' service root and collections alone', async (t) => {
  const sim = await startRedfishSim({ systems: 2, password: 'one-password-for-the-rack' });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  sim.system(a.id).setFaults({ serverError: true });
  // sushy reads the service root with the account's credentials before anything else (Ironic on every call).
  for (const path of ['/redfish/v1', '/redfish/v1/Systems', '/redfish/v1/Managers', b.systemPath]) t.is(await status(sim.url, b, path), 200, path);
  t.is(await status(sim.url, a, a.systemPath), 500, 'the faulty system itself still fails');
  sim.system(a.id).setFaults({ serverError: false, latencyMs: 5_000 });
  const t0 = performance.now();
  t.is(await status(sim.url, b, '/redfish/v1/Systems'), 200);
  t.true(performance.now() - t0 < 2_000, 'the collection is not as slow as the one slow system');
  // Every system behind the account failing is the shared endpoint failing.
  sim.system(a.id).setFaults({ latencyMs: 0 });
  sim.system(a.id).setFaults({ serverError: true });
  sim.system(b.id).setFaults({ serverError: true });
  t.is(await status(sim.url, b, '/redfish/v1/Systems'), 500);
});
