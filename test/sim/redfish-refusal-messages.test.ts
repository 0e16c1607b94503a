// A refusal's MessageId says what went wrong, as a client (sushy's HTTPError.code, Ironic's logs)
// reads it: a login with the wrong password is an authorization error at the Sessions URI, not
// "no valid session" with the advice to log in; a volume over a drive the controller has not is a
// value outside the drives it offers, not an authorization error.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

type Info = { MessageId?: string; Message?: string; Resolution?: string; RelatedProperties?: string[] };

async function call(url: string, path: string, body: unknown, auth?: SimSystemInfo): Promise<{ status: number; text: string; headers: Headers; info: Info | undefined }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  const parsed = text === '' ? {} : (JSON.parse(text) as { error?: { '@Message.ExtendedInfo'?: Info[] } });
  return { status: res.status, text, headers: res.headers, info: parsed.error?.['@Message.ExtendedInfo']?.[0] };
}

test('redfish refusal messages - a login with a wrong password is an authorization error at Sessions that never quotes the password', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const wrong = 'not-the-bmc-password-7';
  const r = await call(sim.url, '/redfish/v1/SessionService/Sessions', { UserName: a.username, Password: wrong });
  t.is(r.status, 401);
  t.is(r.info?.MessageId, 'Base.1.8.ResourceAtUriUnauthorized');
  t.regex(r.info?.Message ?? '', /\/redfish\/v1\/SessionService\/Sessions/);
  t.regex(r.info?.Message ?? '', /user name or password/);
  t.notRegex(r.info?.Resolution ?? '', /Establish a session/, 'the advice is not to do what just failed');
  t.false(r.text.includes(wrong) || r.text.includes(a.password), 'no password in the refusal');
  t.truthy(r.headers.get('www-authenticate'), 'a 401 names its scheme (RFC 9110)');
  // A request without credentials is still "no valid session".
  const anon = await fetch(`${sim.url}${a.systemPath}`);
  t.is(anon.status, 401);
  t.regex(await anon.text(), /Base\.1\.8\.NoValidSession/);
});

test('redfish refusal messages - a volume over a drive the controller has not names Links/Drives as a value not in its list', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const r = await call(sim.url, `${a.systemPath}/Storage/1/Volumes`, { RAIDType: 'RAID0', Links: { Drives: [{ '@odata.id': `${a.systemPath}/Storage/1/Drives/Disk9` }] } }, a);
  t.is(r.status, 400);
  t.like(r.info, { MessageId: 'Base.1.8.PropertyValueNotInList', RelatedProperties: ['#/Links/Drives'] });
  t.regex(r.info?.Message ?? '', /Disk9/);
  t.deepEqual(sim.system('n1').state.volumes, []);
});
