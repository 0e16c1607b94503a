// SecureBoot.ResetKeys and Bios.ChangePassword refuse a missing or mistyped parameter as every other
// action of the simulated BMC does (and bmcweb answers): ActionParameterMissing naming it, then
// ActionParameterValueTypeError, and ActionParameterValueNotInList only for a string the action
// does not list. Before, all three were "not in the list".
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function post(url: string, info: SimSystemInfo, path: string, body: unknown): Promise<{ status: number; text: string; info: { MessageId?: string; RelatedProperties?: string[] } | undefined }> {
  const res = await fetch(url + path, { method: 'POST', headers: { authorization: basic(info), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  const parsed = text === '' ? {} : (JSON.parse(text) as { error?: { '@Message.ExtendedInfo'?: { MessageId?: string; RelatedProperties?: string[] }[] } });
  return { status: res.status, text, info: parsed.error?.['@Message.ExtendedInfo']?.[0] };
}

test('redfish action parameters - ResetKeys and ChangePassword tell a missing parameter and a wrong type from a value not in the list', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const resetKeys = `${a.systemPath}/SecureBoot/Actions/SecureBoot.ResetKeys`;
  const change = `${a.systemPath}/Bios/Actions/Bios.ChangePassword`;
  const refused = (messageId: string, parameter: string) => ({ status: 400, info: { MessageId: `Base.1.8.${messageId}`, RelatedProperties: [`#/${parameter}`] } });

  t.like(await post(sim.url, a, resetKeys, {}), refused('ActionParameterMissing', 'ResetKeysType'));
  t.like(await post(sim.url, a, resetKeys, { ResetKeysType: 5 }), refused('ActionParameterValueTypeError', 'ResetKeysType'));
  t.like(await post(sim.url, a, resetKeys, { ResetKeysType: 'DeleteSomeKeys' }), refused('ActionParameterValueNotInList', 'ResetKeysType'));
  t.is(sim.system('n1').state.secureBoot.mode, 'UserMode', 'no refused request changed the keys');
  t.is((await post(sim.url, a, resetKeys, { ResetKeysType: 'DeleteAllKeys' })).status, 204);

  const secret = 'new-bios-secret-1';
  t.like(await post(sim.url, a, change, { OldPassword: '', NewPassword: secret }), refused('ActionParameterMissing', 'PasswordName'));
  t.like(await post(sim.url, a, change, { PasswordName: 5, OldPassword: '', NewPassword: secret }), refused('ActionParameterValueTypeError', 'PasswordName'));
  const notListed = await post(sim.url, a, change, { PasswordName: 'RootPassword', OldPassword: '', NewPassword: secret });
  t.like(notListed, refused('ActionParameterValueNotInList', 'PasswordName'));
  t.false(notListed.text.includes(secret), 'the refusal does not quote the new password');
  t.like(await post(sim.url, a, change, { PasswordName: 'toString', OldPassword: '', NewPassword: secret }), refused('ActionParameterValueNotInList', 'PasswordName'), 'an Object.prototype name is no password');
  t.deepEqual(sim.system('n1').state.bios.passwords, { AdminPassword: '', UserPassword: '' });
  t.is((await post(sim.url, a, change, { PasswordName: 'AdminPassword', OldPassword: '', NewPassword: secret })).status, 204);
});
