// HTTP behaviour of the simulated BMC as a Redfish client sees it: ETags and If-Match, Redfish
// error bodies, sessions scoped to their own system.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { RedfishSim, SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(sim: RedfishSim, path: string, init: { method?: string; auth?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.auth) headers.authorization = init.auth;
  if (init.token) headers['x-auth-token'] = init.token;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(sim.url + path, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

/** body[k0][k1]…: a path into parsed JSON, undefined where it stops. */
function at(body: unknown, ...path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), body);
}
const messageId = (body: unknown) => at(body, 'error', '@Message.ExtendedInfo', 0, 'MessageId');

async function started(t: { teardown(fn: () => Promise<void>): void }, systems = 2) {
  const sim = await startRedfishSim({ systems });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems;
  if (!a || !b) throw new Error('two systems expected');
  return { sim, a, b };
}

test('redfish http - the service root is public, OData-annotated, and links the services sushy looks for', async (t) => {
  const { sim } = await started(t);
  const root = await call(sim, '/redfish/v1/');
  t.is(root.status, 200);
  t.is(root.headers.get('odata-version'), '4.0');
  t.like(root.body, { '@odata.id': '/redfish/v1', '@odata.type': '#ServiceRoot.v1_5_0.ServiceRoot', '@odata.context': '/redfish/v1/$metadata#ServiceRoot.ServiceRoot' });
  t.like(root.body, { Links: { Sessions: { '@odata.id': '/redfish/v1/SessionService/Sessions' } }, Tasks: { '@odata.id': '/redfish/v1/TaskService' } });
});

test('redfish http - HEAD answers as GET does, headers and no body (RFC 9110: every server supports GET and HEAD)', async (t) => {
  const { sim, a } = await started(t);
  const get = await fetch(sim.url + a.systemPath, { headers: { authorization: basic(a) } });
  const head = await fetch(sim.url + a.systemPath, { method: 'HEAD', headers: { authorization: basic(a) } });
  t.is(head.status, 200);
  t.is(head.headers.get('etag'), get.headers.get('etag'));
  t.is(head.headers.get('content-length'), get.headers.get('content-length'));
  t.is(await head.text(), '');
  t.is((await fetch(sim.url + a.systemPath, { method: 'HEAD' })).status, 401, 'HEAD needs the credentials GET needs');
  t.is((await fetch(`${sim.url}${a.systemPath}/Actions/ComputerSystem.Reset`, { method: 'HEAD', headers: { authorization: basic(a) } })).status, 405, 'an action has no GET, so no HEAD');
});

test('redfish http - a PATCH with a stale If-Match is refused with 412 and changes nothing; the current ETag works', async (t) => {
  const { sim, a } = await started(t);
  const first = await call(sim, a.systemPath, { auth: basic(a) });
  const etag = first.headers.get('etag') ?? '';
  t.regex(etag, /^"[\w-]+"$/);
  await call(sim, a.systemPath, { method: 'PATCH', auth: basic(a), body: { IndicatorLED: 'Lit' }, headers: { 'if-match': etag } });
  const stale = await call(sim, a.systemPath, { method: 'PATCH', auth: basic(a), body: { Boot: { BootSourceOverrideTarget: 'Pxe' } }, headers: { 'if-match': etag } });
  t.is(stale.status, 412);
  t.is(messageId(stale.body), 'Base.1.8.PreconditionFailed');
  t.is(sim.system(a.id).state.boot.target, 'None');
  const now = (await call(sim, a.systemPath, { auth: basic(a) })).headers.get('etag') ?? '';
  t.not(now, etag);
  const current = await call(sim, a.systemPath, { method: 'PATCH', auth: basic(a), body: { Boot: { BootSourceOverrideTarget: 'Pxe' } }, headers: { 'if-match': now } });
  t.is(current.status, 200);
  t.like(current.body, { Boot: { BootSourceOverrideTarget: 'Pxe' } });
});

test('redfish http - errors carry Redfish bodies: 401, 404, 405, 400 (bad value, unknown property, malformed JSON)', async (t) => {
  const { sim, a } = await started(t);
  const shape = (r: { body: Record<string, unknown> }, id: string) => {
    // DSP0266 §9.6 (and bmcweb, iDRAC, AMI): `code` is the MessageId of the one message the body carries.
    t.like(r.body, { error: { code: `Base.1.8.${id}` } });
    t.is(typeof at(r.body, 'error', 'message'), 'string');
    t.is(messageId(r.body), `Base.1.8.${id}`);
  };
  const anon = await call(sim, a.systemPath);
  t.is(anon.status, 401);
  shape(anon, 'NoValidSession');
  const missing = await call(sim, '/redfish/v1/Systems/nope', { auth: basic(a) });
  t.is(missing.status, 404);
  shape(missing, 'ResourceMissingAtURI');
  const del = await call(sim, a.systemPath, { method: 'DELETE', auth: basic(a) });
  t.is(del.status, 405);
  t.is(del.headers.get('allow'), 'GET, PATCH');
  shape(del, 'OperationNotAllowed');
  const badValue = await call(sim, a.systemPath, { method: 'PATCH', auth: basic(a), body: { Boot: { BootSourceOverrideEnabled: 'Sometimes' } } });
  t.is(badValue.status, 400);
  shape(badValue, 'PropertyValueNotInList');
  t.deepEqual(at(badValue.body, 'error', '@Message.ExtendedInfo', 0, 'RelatedProperties'), ['#/Boot/BootSourceOverrideEnabled']);
  const readOnly = await call(sim, a.systemPath, { method: 'PATCH', auth: basic(a), body: { PowerState: 'On' } });
  shape(readOnly, 'PropertyNotWritable');
  const res = await fetch(`${sim.url}${a.systemPath}`, { method: 'PATCH', headers: { authorization: basic(a), 'content-type': 'application/json' }, body: '{"Boot":' });
  t.is(res.status, 400);
  t.is(messageId(await res.json()), 'Base.1.8.MalformedJSON');
  const reset = await call(sim, `${a.systemPath}/Actions/ComputerSystem.Reset`, { method: 'POST', auth: basic(a), body: { ResetType: 'Explode' } });
  shape(reset, 'ActionParameterValueNotInList');
});

test('redfish http - Manager.Reset takes only a ResetType its @Redfish.AllowableValues lists, as ComputerSystem.Reset does', async (t) => {
  const { sim, a } = await started(t);
  const manager = await call(sim, `/redfish/v1/Managers/${a.id}`, { auth: basic(a) });
  const action = at(manager.body, 'Actions', '#Manager.Reset') as { target: string; 'ResetType@Redfish.AllowableValues': string[] };
  const missing = await call(sim, action.target, { method: 'POST', auth: basic(a), body: {} });
  t.is(missing.status, 400);
  t.is(messageId(missing.body), 'Base.1.8.ActionParameterMissing');
  const unlisted = await call(sim, action.target, { method: 'POST', auth: basic(a), body: { ResetType: 'PowerCycle' } });
  t.is(unlisted.status, 400);
  t.is(messageId(unlisted.body), 'Base.1.8.ActionParameterValueNotInList');
  t.deepEqual(at(unlisted.body, 'error', '@Message.ExtendedInfo', 0, 'RelatedProperties'), ['#/ResetType']);
  for (const type of action['ResetType@Redfish.AllowableValues']) {
    t.is((await call(sim, action.target, { method: 'POST', auth: basic(a), body: { ResetType: type } })).status, 204, type);
  }
});

test('redfish http - a session opens only its own system, manager and chassis (another system\'s are 404, as on its own BMC), and DELETE ends it', async (t) => {
  const { sim, a, b } = await started(t);
  const bad = await call(sim, '/redfish/v1/SessionService/Sessions', { method: 'POST', body: { UserName: a.username, Password: b.password.slice(1) } });
  t.is(bad.status, 401);
  const login = await call(sim, '/redfish/v1/SessionService/Sessions', { method: 'POST', body: { UserName: a.username, Password: a.password } });
  t.is(login.status, 201);
  const token = login.headers.get('x-auth-token') ?? '';
  const location = login.headers.get('location') ?? '';
  t.true(token.length >= 32);
  t.is(location, `/redfish/v1/SessionService/Sessions/${String(login.body.Id)}`);
  t.false(JSON.stringify(login.body).includes(a.password));
  for (const path of [a.systemPath, `/redfish/v1/Managers/${a.id}`, `/redfish/v1/Chassis/${a.id}`, `/redfish/v1/Managers/${a.id}/VirtualMedia/Cd`]) {
    t.is((await call(sim, path, { token })).status, 200, path);
  }
  const other = await call(sim, '/redfish/v1/SessionService/Sessions', { method: 'POST', body: { UserName: b.username, Password: b.password } });
  // What another system's BMC has is unknown here, exactly as a URI that names nothing.
  for (const path of [b.systemPath, `${b.systemPath}/Bios`, `/redfish/v1/Managers/${b.id}`, `/redfish/v1/Chassis/${b.id}`, `/redfish/v1/UpdateService/FirmwareInventory/BIOS-${b.id}`, String(other.headers.get('location'))]) {
    const r = await call(sim, path, { token });
    t.is(r.status, 404, path);
    t.is(messageId(r.body), 'Base.1.8.ResourceMissingAtURI', path);
  }
  t.is((await call(sim, `${b.systemPath}/Actions/ComputerSystem.Reset`, { method: 'POST', token, body: { ResetType: 'On' } })).status, 404);
  t.false(sim.system(b.id).state.on, 'another system is not reset');
  // Nor are its faults this BMC's: a failing or slow neighbour answers this caller as any unknown URI.
  sim.system(b.id).setFaults({ serverError: true });
  t.is((await call(sim, b.systemPath, { token })).status, 404);
  sim.system(b.id).setFaults({ serverError: false });
  const systems = await call(sim, '/redfish/v1/Systems', { token });
  t.deepEqual(systems.body.Members, [{ '@odata.id': a.systemPath }]);
  t.is((await call(sim, location, { method: 'DELETE', token })).status, 204);
  t.is((await call(sim, a.systemPath, { token })).status, 401);
});

test('redfish http - volumes: POST validates RAID level, drives and capacity; DELETE removes', async (t) => {
  const { sim, a } = await started(t);
  const vols = `${a.systemPath}/Storage/1/Volumes`;
  const drive = (id: string) => ({ '@odata.id': `${a.systemPath}/Storage/1/Drives/${id}` });
  const tooFew = await call(sim, vols, { method: 'POST', auth: basic(a), body: { RAIDType: 'RAID5', Links: { Drives: [drive('Disk0'), drive('Disk1')] } } });
  t.is(tooFew.status, 400);
  t.regex(String(at(tooFew.body, 'error', 'message')), /RAID5 needs at least 3 drives/);
  const tooBig = await call(sim, vols, { method: 'POST', auth: basic(a), body: { RAIDType: 'RAID1', CapacityBytes: 500_000_000_000, Links: { Drives: [drive('Disk0'), drive('Disk1')] } } });
  t.is(tooBig.status, 400);
  const made = await call(sim, vols, { method: 'POST', auth: basic(a), body: { RAIDType: 'RAID0', Links: { Drives: [drive('Disk2'), drive('Disk3')] } } });
  t.is(made.status, 201);
  t.is(made.headers.get('location'), `${vols}/1`);
  t.like(made.body, { RAIDType: 'RAID0', CapacityBytes: 3_840_000_000_000, Links: { Drives: [drive('Disk2'), drive('Disk3')] } });
  t.deepEqual(sim.system(a.id).state.volumes.map((v) => v.driveIds), [['Disk2', 'Disk3']]);
  t.is((await call(sim, `${vols}/1`, { method: 'DELETE', auth: basic(a) })).status, 204);
  t.deepEqual(sim.system(a.id).state.volumes, []);
  t.is((await call(sim, `${vols}/1`, { auth: basic(a) })).status, 404);
});

test('redfish http - a session ends after SessionTimeout idle seconds, not after SessionTimeout in use; then its token is 401', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const sim = await startRedfishSim({ systems: 1, now: () => now });
  t.teardown(() => sim.stop());
  const [a] = sim.systems;
  if (!a) throw new Error('one system expected');
  const login = await call(sim, '/redfish/v1/SessionService/Sessions', { method: 'POST', body: { UserName: a.username, Password: a.password } });
  const token = login.headers.get('x-auth-token') ?? '';
  t.like((await call(sim, '/redfish/v1/SessionService', { token })).body, { SessionTimeout: 1800 });
  for (let i = 0; i < 3; i++) {
    now += 1_000_000;
    t.is((await call(sim, a.systemPath, { token })).status, 200, 'used within the timeout: still alive');
  }
  now += 1_800_001;
  const expired = await call(sim, a.systemPath, { token });
  t.is(expired.status, 401);
  t.is(messageId(expired.body), 'Base.1.8.NoValidSession');
  t.deepEqual((await call(sim, '/redfish/v1/SessionService/Sessions', { auth: basic(a) })).body.Members, []);
});

test('redfish http - InsertMedia into a drive that holds an image is refused (409 ResourceInUse) and keeps that image; after EjectMedia it is taken', async (t) => {
  const { sim, a } = await started(t);
  const cd = `/redfish/v1/Managers/${a.id}/VirtualMedia/Cd`;
  const first = await call(sim, `${cd}/Actions/VirtualMedia.InsertMedia`, { method: 'POST', auth: basic(a), body: { Image: 'http://10.0.0.1/first.iso' } });
  t.is(first.status, 204);
  // Through either path to the drive (the manager's or the system's): one drive, one image.
  for (const path of [cd, `${a.systemPath}/VirtualMedia/Cd`]) {
    const again = await call(sim, `${path}/Actions/VirtualMedia.InsertMedia`, { method: 'POST', auth: basic(a), body: { Image: 'http://10.0.0.1/second.iso' } });
    t.is(again.status, 409, path);
    t.like(again.body, { error: { code: 'Base.1.8.ResourceInUse' } });
    t.regex(String(at(again.body, 'error', 'message')), /first\.iso.*EjectMedia/s);
  }
  t.like(sim.system(a.id).state.virtualMedia.Cd, { image: 'http://10.0.0.1/first.iso', inserted: true });
  t.is((await call(sim, `${cd}/Actions/VirtualMedia.EjectMedia`, { method: 'POST', auth: basic(a), body: {} })).status, 204);
  t.is((await call(sim, `${cd}/Actions/VirtualMedia.InsertMedia`, { method: 'POST', auth: basic(a), body: { Image: 'http://10.0.0.1/second.iso' } })).status, 204);
  t.like(sim.system(a.id).state.virtualMedia.Cd, { image: 'http://10.0.0.1/second.iso', inserted: true });
  const floppy = await call(sim, `/redfish/v1/Managers/${a.id}/VirtualMedia/Floppy/Actions/VirtualMedia.InsertMedia`, { method: 'POST', auth: basic(a), body: { Image: 'http://10.0.0.1/config.img' } });
  t.is(floppy.status, 204, 'the other drive is free');
});

test('redfish http - a legacy-transfer-protocol BMC speaks Base.1.5 and refuses InsertMedia without TransferProtocolType, naming it, as sushy story 2009871 quotes', async (t) => {
  const sim = await startRedfishSim({ systems: [{ bmc: 'legacy-transfer-protocol' }, {}] });
  t.teardown(() => sim.stop());
  const [old, current] = sim.systems;
  if (!old || !current) throw new Error('two systems expected');
  const insert = (s: SimSystemInfo, body: unknown) => call(sim, `/redfish/v1/Managers/${s.id}/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia`, { method: 'POST', auth: basic(s), body });
  const bare = await insert(old, { Image: 'https://10.0.0.1/deploy.iso' });
  t.is(bare.status, 400);
  t.like(bare.body, { error: { code: 'Base.1.5.ActionParameterMissing' } });
  t.is(messageId(bare.body), 'Base.1.5.ActionParameterMissing');
  t.deepEqual(at(bare.body, 'error', '@Message.ExtendedInfo', 0, 'RelatedProperties'), ['#/TransferProtocolType']);
  t.is(sim.system(old.id).state.virtualMedia.Cd.image, null, 'a refused insert attaches nothing');
  const wrong = await insert(old, { Image: 'https://10.0.0.1/deploy.iso', TransferProtocolType: 'NFS' });
  t.is(wrong.status, 400);
  t.is(messageId(wrong.body), 'Base.1.5.ActionParameterValueFormatError');
  t.is((await insert(old, { Image: 'https://10.0.0.1/deploy.iso', TransferProtocolType: 'HTTPS' })).status, 204);
  t.like(sim.system(old.id).state.virtualMedia.Cd, { image: 'https://10.0.0.1/deploy.iso', inserted: true });
  // Every error of that BMC is in its registry; the other BMC keeps Base.1.8 and takes the bare insert.
  t.like((await call(sim, `/redfish/v1/Managers/${old.id}/VirtualMedia/Nope`, { auth: basic(old) })).body, { error: { code: 'Base.1.5.ResourceMissingAtURI' } });
  t.is((await insert(current, { Image: 'https://10.0.0.1/deploy.iso' })).status, 204);
  t.like((await call(sim, `/redfish/v1/Managers/${current.id}/VirtualMedia/Nope`, { auth: basic(current) })).body, { error: { code: 'Base.1.8.ResourceMissingAtURI' } });
});
