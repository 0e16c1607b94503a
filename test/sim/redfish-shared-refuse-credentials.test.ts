// Shared credentials (sim redfish --password-file) and one system told to refuse them
// (--fault node-0=refuse-credentials): that system's resources answer 401, as they do with its own
// random password, never 404 as if it were absent (Ironic then reported a missing resource).
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string; auth: string | null }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.text(), auth: res.headers.get('www-authenticate') };
}

test('redfish shared credentials - a refusing system answers 401 to Basic, its neighbour 200', async (t) => {
  const sim = await startRedfishSim({ systems: [{ faults: { refuseCredentials: true } }, {}], password: 'shared-PW-1' });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  const auth = { authorization: basic('admin', 'shared-PW-1') };
  for (const path of [a.systemPath, `${a.systemPath}/Bios`]) {
    const r = await get(sim.url + path, auth);
    t.is(r.status, 401, `${path}: ${r.body}`);
    t.notRegex(r.body, /ResourceMissingAtURI/);
    t.truthy(r.auth);
  }
  t.is((await get(sim.url + b.systemPath, auth)).status, 200);
  // A system nobody has stays unknown.
  t.is((await get(`${sim.url}/redfish/v1/Systems/node-99`, auth)).status, 404);
  sim.system(a.id).setFaults({ refuseCredentials: false });
  t.is((await get(sim.url + a.systemPath, auth)).status, 200);
});

test('redfish shared credentials - a session of the shared account gets 401 from the refusing system', async (t) => {
  const sim = await startRedfishSim({ systems: 2, password: 'shared-PW-2' });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  const login = async (): Promise<string> => {
    const res = await fetch(`${sim.url}/redfish/v1/SessionService/Sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ UserName: 'admin', Password: 'shared-PW-2' }) });
    await res.arrayBuffer();
    t.is(res.status, 201);
    return res.headers.get('x-auth-token') ?? '';
  };
  const before = await login();
  sim.system(a.id).setFaults({ refuseCredentials: true });
  const after = await login();
  for (const token of [before, after]) {
    t.is((await get(sim.url + a.systemPath, { 'x-auth-token': token })).status, 401);
    t.is((await get(sim.url + b.systemPath, { 'x-auth-token': token })).status, 200);
  }
});
