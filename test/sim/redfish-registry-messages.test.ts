// The Message of an action refusal is the Base registry's text with its arguments filled in
// (Base 1.8: ActionParameterMissing "The action %1 requires the parameter %2 to be present in the
// request body."; ActionParameterValueNotInList "The value '%1' for the parameter %2 in the action
// %3 is not in the list of acceptable values."), as bmcweb fills them.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

interface ErrorBody { error: { code: string; message: string; '@Message.ExtendedInfo': Array<{ MessageId: string; Message: string }> } }

test('redfish registry messages - ComputerSystem.Reset and Manager.Reset refusals carry the Base registry texts', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const [a] = sim.systems;
  if (!a) throw new Error('one system expected');
  const post = async (path: string, body: unknown) => {
    const r = await fetch(sim.url + path, { method: 'POST', headers: { authorization: basic(a), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    t.is(r.status, 400);
    const e = (await r.json()) as ErrorBody;
    t.is(e.error['@Message.ExtendedInfo'][0]?.Message, e.error.message);
    return e.error.message;
  };
  const reset = `${a.systemPath}/Actions/ComputerSystem.Reset`;
  t.is(await post(reset, {}), 'The action ComputerSystem.Reset requires the parameter ResetType to be present in the request body.');
  t.is(await post(reset, { ResetType: 'Bogus' }), "The value 'Bogus' for the parameter ResetType in the action ComputerSystem.Reset is not in the list of acceptable values.");
  t.is(await post(`/redfish/v1/Managers/${a.id}/Actions/Manager.Reset`, { ResetType: 'On' }), "The value 'On' for the parameter ResetType in the action Manager.Reset is not in the list of acceptable values.");
});
