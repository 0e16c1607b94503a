// What real clients read of the simulated BMC's refusals and authentication, against the DMTF
// Base registry (DSP8011) and bmcweb: each message carries its registry's Severity (and, from
// Base 1.8, MessageSeverity), Resolution, text and MessageArgs; a login names an unknown
// property and refuses a body that is not JSON; a stale X-Auth-Token beside good Basic
// credentials is answered as the Basic caller (bmcweb tries each scheme); a VirtualMedia takes a
// PATCH of its writable properties (sushy's set_verify_certificate) under If-Match.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

interface Info { MessageId?: string; Message?: string; MessageArgs?: string[]; Severity?: string; MessageSeverity?: string; Resolution?: string; RelatedProperties?: string[] }

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function send(url: string, method: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; info: Info | undefined; text: string; headers: Headers }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  const parsed = text === '' ? {} : (JSON.parse(text) as { error?: { '@Message.ExtendedInfo'?: Info[] } });
  return { status: res.status, info: parsed.error?.['@Message.ExtendedInfo']?.[0], text, headers: res.headers };
}

test('redfish base registry fidelity - each message carries its registry Severity, MessageSeverity and Resolution', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }, { id: 'old', bmc: 'legacy-transfer-protocol' }] });
  t.teardown(() => sim.stop());
  const [a, old] = sim.systems as [SimSystemInfo, SimSystemInfo];
  const missing = await send(`${sim.url}${a.systemPath}/Actions/ComputerSystem.Reset`, 'POST', {}, { authorization: basic(a) });
  t.is(missing.status, 400);
  t.like(missing.info, {
    MessageId: 'Base.1.8.ActionParameterMissing', Severity: 'Critical', MessageSeverity: 'Critical',
    Resolution: 'Supply the action with the required parameter in the request body when the request is resubmitted.',
    MessageArgs: ['ComputerSystem.Reset', 'ResetType'],
  });
  const unknown = await send(`${sim.url}${a.systemPath}/Actions/ComputerSystem.Reset`, 'POST', { ResetType: 'On', Bogus: 1 }, { authorization: basic(a) });
  t.like(unknown.info, { MessageId: 'Base.1.8.ActionParameterUnknown', Severity: 'Warning', MessageSeverity: 'Warning', MessageArgs: ['ComputerSystem.Reset', 'Bogus'] });
  const nobody = await send(`${sim.url}${a.systemPath}`, 'GET', undefined, {});
  t.like(nobody.info, { MessageId: 'Base.1.8.NoValidSession', Severity: 'Critical', MessageSeverity: 'Critical' });
  const missingUri = await send(`${sim.url}/redfish/v1/Nothing`, 'GET', undefined, { authorization: basic(a) });
  t.like(missingUri.info, { Severity: 'Critical', MessageArgs: ['/redfish/v1/Nothing'] });
  // Base 1.5 predates MessageSeverity: its messages carry Severity alone.
  const legacy = await send(`${sim.url}${old.systemPath}/Actions/ComputerSystem.Reset`, 'POST', {}, { authorization: basic(old) });
  t.like(legacy.info, { MessageId: 'Base.1.5.ActionParameterMissing', Severity: 'Critical' });
  t.false(legacy.info !== undefined && 'MessageSeverity' in legacy.info, 'no MessageSeverity under Base 1.5');
});

test('redfish base registry fidelity - refusals use the Base registry MessageIds, texts and MessageArgs', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const auth = { authorization: basic(a) };
  const boot = await send(`${sim.url}${a.systemPath}`, 'PATCH', { Boot: 'Pxe' }, auth);
  t.is(boot.status, 400);
  t.like(boot.info, { MessageId: 'Base.1.8.PropertyValueTypeError', Message: "The value 'Pxe' for the property Boot is of a different type than the property can accept.", MessageArgs: ['Pxe', 'Boot'], RelatedProperties: ['#/Boot'] });
  const led = await send(`${sim.url}${a.systemPath}`, 'PATCH', { IndicatorLED: 'Purple' }, auth);
  t.like(led.info, { MessageId: 'Base.1.8.PropertyValueNotInList', Message: "The value 'Purple' for the property IndicatorLED is not in the list of acceptable values.", MessageArgs: ['Purple', 'IndicatorLED'] });
  const bootKey = await send(`${sim.url}${a.systemPath}`, 'PATCH', { Boot: { Nope: 1 } }, auth);
  t.like(bootKey.info, { MessageId: 'Base.1.8.PropertyUnknown', Message: 'The property Boot/Nope is not in the list of valid properties for the resource.', MessageArgs: ['Boot/Nope'] });
  const protocol = await send(`${sim.url}/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate`, 'POST', { ImageURI: 'http://example.test/fw.bin', TransferProtocol: 'GOPHER' }, auth);
  t.like(protocol.info, { MessageId: 'Base.1.8.ActionParameterValueNotInList', Message: "The value 'GOPHER' for the parameter TransferProtocol in the action UpdateService.SimpleUpdate is not in the list of acceptable values.", MessageArgs: ['GOPHER', 'TransferProtocol', 'UpdateService.SimpleUpdate'] });
  const password = await send(`${sim.url}${a.systemPath}/Bios/Actions/Bios.ChangePassword`, 'POST', { PasswordName: 'NoSuch', OldPassword: 'x', NewPassword: 'y' }, auth);
  t.like(password.info, { MessageId: 'Base.1.8.ActionParameterValueNotInList', Message: "The value 'NoSuch' for the parameter PasswordName in the action Bios.ChangePassword is not in the list of acceptable values.", MessageArgs: ['NoSuch', 'PasswordName', 'Bios.ChangePassword'] });
  const reset = await send(`${sim.url}${a.systemPath}/Actions/ComputerSystem.Reset`, 'POST', { ResetType: 7 }, auth);
  t.like(reset.info, { MessageId: 'Base.1.8.ActionParameterValueTypeError', Message: "The value '7' for the parameter ResetType in the action ComputerSystem.Reset is of a different type than the parameter can accept.", MessageArgs: ['7', 'ResetType', 'ComputerSystem.Reset'] });
});

test('redfish base registry fidelity - a login refuses unknown properties and a body that is not JSON', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const sessions = `${sim.url}/redfish/v1/SessionService/Sessions`;
  const extra = await send(sessions, 'POST', { UserName: a.username, Password: a.password, Color: 'blue' }, {});
  t.is(extra.status, 400);
  t.like(extra.info, { MessageId: 'Base.1.8.PropertyUnknown', MessageArgs: ['Color'], RelatedProperties: ['#/Color'] });
  t.false(extra.text.includes(a.password));
  const form = await send(sessions, 'POST', JSON.stringify({ UserName: a.username, Password: a.password }), { 'content-type': 'application/x-www-form-urlencoded' });
  t.is(form.status, 415);
  t.regex(form.info?.Message ?? '', /Content-Type/);
  t.false(form.text.includes(a.password));
  // JSON with a charset is JSON.
  const ok = await send(sessions, 'POST', { UserName: a.username, Password: a.password }, { 'content-type': 'application/json; charset=utf-8' });
  t.is(ok.status, 201);
});

test('redfish base registry fidelity - a stale X-Auth-Token beside valid Basic credentials is answered as the Basic caller', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const both = await fetch(`${sim.url}${a.systemPath}`, { headers: { 'x-auth-token': 'no-such-token', authorization: basic(a) } });
  t.is(both.status, 200);
  const tokenOnly = await fetch(`${sim.url}${a.systemPath}`, { headers: { 'x-auth-token': 'no-such-token' } });
  t.is(tokenOnly.status, 401);
  const wrongBasic = await fetch(`${sim.url}${a.systemPath}`, { headers: { 'x-auth-token': 'no-such-token', authorization: `Basic ${Buffer.from(`${a.username}:wrong`).toString('base64')}` } });
  t.is(wrongBasic.status, 401);
});

test('redfish base registry fidelity - a VirtualMedia takes a PATCH of VerifyCertificate and WriteProtected under If-Match', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const auth = { authorization: basic(a) };
  const cd = `${sim.url}/redfish/v1/Managers/${a.id}/VirtualMedia/Cd`;
  const before = await fetch(cd, { headers: auth });
  const etag = before.headers.get('etag') ?? '';
  t.is(((await before.json()) as { VerifyCertificate?: boolean }).VerifyCertificate, false);
  const patched = await send(cd, 'PATCH', { VerifyCertificate: true }, { ...auth, 'if-match': etag });
  t.is(patched.status, 200);
  t.like(JSON.parse(patched.text), { VerifyCertificate: true });
  // The same drive through the system's collection shows the change.
  const viaSystem = (await (await fetch(`${sim.url}${a.systemPath}/VirtualMedia/Cd`, { headers: auth })).json()) as { VerifyCertificate?: boolean };
  t.true(viaSystem.VerifyCertificate);
  const stale = await send(cd, 'PATCH', { VerifyCertificate: false }, { ...auth, 'if-match': etag });
  t.is(stale.status, 412);
  const wrongType = await send(cd, 'PATCH', { VerifyCertificate: 'yes' }, auth);
  t.like(wrongType.info, { MessageId: 'Base.1.8.PropertyValueTypeError', MessageArgs: ['yes', 'VerifyCertificate'] });
  const readOnly = await send(cd, 'PATCH', { MediaTypes: ['CD'] }, auth);
  t.like(readOnly.info, { MessageId: 'Base.1.8.PropertyNotWritable', MessageArgs: ['MediaTypes'] });
  const wp = await send(cd, 'PATCH', { WriteProtected: false }, auth);
  t.is(wp.status, 200);
  t.like(JSON.parse(wp.text), { WriteProtected: false, VerifyCertificate: true });
});

test('redfish base registry fidelity - a GeneralError (a body too large or not JSON) is Critical and keeps the service resolution', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const r = await send(`${sim.url}${a.systemPath}`, 'PATCH', 'IndicatorLED=Lit', { authorization: basic(a), 'content-type': 'text/plain' });
  t.is(r.status, 415);
  t.like(r.info, { MessageId: 'Base.1.8.GeneralError', Severity: 'Critical', MessageSeverity: 'Critical' });
  t.regex(r.info?.Resolution ?? '', /application\/json/);
});
