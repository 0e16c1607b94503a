// @Redfish.ActionInfo (DMTF ActionInfo, DSP0266 "Allowable values"): many BMCs (OpenBMC's bmcweb,
// newer iLO) describe an action's parameters in a ResetActionInfo resource instead of, or beside,
// inline @Redfish.AllowableValues. The simulated BMC offers both, and they agree with what the
// action takes: a client that reads either one sends a ResetType the BMC accepts.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(url: string, info: SimSystemInfo, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

interface ActionInfo { '@odata.id': string; '@odata.type': string; Parameters: { Name: string; Required: boolean; DataType: string; AllowableValues: string[] }[] }

for (const [what, resource, action] of [['ComputerSystem.Reset', (s: SimSystemInfo) => s.systemPath, '#ComputerSystem.Reset'], ['Manager.Reset', (s: SimSystemInfo) => `/redfish/v1/Managers/${s.id}`, '#Manager.Reset']] as const) {
  test(`redfish action info - ${what} names a ResetActionInfo whose ResetType values are the inline AllowableValues, each one accepted`, async (t) => {
    const sim = await startRedfishSim({ systems: 2 });
    t.teardown(() => sim.stop());
    const [me, other] = sim.systems as [SimSystemInfo, SimSystemInfo];
    const owner = (await call(sim.url, me, 'GET', resource(me))).body;
    const act = (owner.Actions as Record<string, Record<string, unknown>>)[action] ?? {};
    const infoUri = act['@Redfish.ActionInfo'];
    t.is(infoUri, `${resource(me)}/ResetActionInfo`);
    const info = await call(sim.url, me, 'GET', String(infoUri));
    t.is(info.status, 200);
    t.is(info.headers.get('allow'), 'GET');
    const body = info.body as unknown as ActionInfo;
    t.like(body, { '@odata.id': infoUri, '@odata.type': '#ActionInfo.v1_1_2.ActionInfo' });
    t.deepEqual(body.Parameters.map((p) => [p.Name, p.Required, p.DataType]), [['ResetType', true, 'String']]);
    t.deepEqual(body.Parameters[0]?.AllowableValues, act['ResetType@Redfish.AllowableValues']);
    for (const type of body.Parameters[0]?.AllowableValues ?? []) {
      t.is((await call(sim.url, me, 'POST', String(act.target), { ResetType: type })).status, 204, type);
    }
    // Another BMC's ActionInfo is unknown here, as its other resources are.
    t.is((await call(sim.url, me, 'GET', `${resource(other)}/ResetActionInfo`)).status, 404);
  });
}
