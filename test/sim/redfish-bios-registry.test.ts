// The simulated BMC's BIOS attribute registry: the rules it publishes, the PATCHes it refuses by
// them (as a BMC words the refusal), one registry per server model, passwords never shown.
import test from 'ava';
import { biosProblem, modelInfo, SIM_MODELS, startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(url: string, info: SimSystemInfo, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const messageOf = (body: Record<string, unknown>) => (body.error as { '@Message.ExtendedInfo': { MessageId: string; Message: string; RelatedProperties?: string[] }[] })['@Message.ExtendedInfo'][0];

const SIM1 = modelInfo('SIM-1').registry;

test('bios registry - every refusal names the attribute and the Base message a BMC would use', (t) => {
  const refused = (changes: Record<string, unknown>) => biosProblem(SIM1, changes);
  t.like(refused({ NoSuch: 'x' }), { messageId: 'PropertyUnknown', attribute: 'NoSuch' });
  t.like(refused({ SerialNumber: 'X1' }), { messageId: 'PropertyNotWritable', attribute: 'SerialNumber' });
  t.like(refused({ ProcVirtualization: 'Maybe' }), { messageId: 'PropertyValueNotInList', attribute: 'ProcVirtualization' });
  t.like(refused({ ProcVirtualization: true }), { messageId: 'PropertyValueTypeError' });
  t.like(refused({ BootDelaySeconds: '5' }), { messageId: 'PropertyValueTypeError', attribute: 'BootDelaySeconds' }, 'an integer sent as a string is refused');
  t.like(refused({ BootDelaySeconds: 61 }), { messageId: 'PropertyValueOutOfRange' });
  t.like(refused({ BootDelaySeconds: -1 }), { messageId: 'PropertyValueOutOfRange' });
  t.like(refused({ BootDelaySeconds: 1.5 }), { messageId: 'PropertyValueTypeError' });
  t.like(refused({ AssetTag: 'x'.repeat(17) }), { messageId: 'PropertyValueFormatError', attribute: 'AssetTag' });
  t.like(refused({ SecureBootAllowed: 'true' }), { messageId: 'PropertyValueTypeError' });
  t.like(refused({ AdminPassword: 'short' }), { messageId: 'PropertyValueFormatError', attribute: 'AdminPassword' });
  t.false((refused({ AdminPassword: 'short' })?.message ?? '').includes('short'), 'a password value is never repeated');
  t.is(refused({ ProcVirtualization: 'Disabled', BootDelaySeconds: 60, AssetTag: 'x'.repeat(16), SecureBootAllowed: false, AdminPassword: 'long-enough', BootMode: 'Bios' }), undefined);
});

test('bios registry - each model\'s defaults obey its own rules and every attribute it shows is in its registry', async (t) => {
  const sim = await startRedfishSim({ systems: SIM_MODELS.map((model) => ({ model })) });
  t.teardown(() => sim.stop());
  for (const [i, model] of SIM_MODELS.entries()) {
    const { registry } = modelInfo(model);
    const writable = registry.attributes.filter((a) => !a.readOnly && a.type !== 'Password' && a.defaultValue !== null);
    t.is(biosProblem(registry, Object.fromEntries(writable.map((a) => [a.name, a.defaultValue]))), undefined, `${model} defaults`);
    const info = sim.systems[i] as SimSystemInfo;
    const bios = await call(sim.url, info, 'GET', `${info.systemPath}/Bios`);
    t.is(bios.body.AttributeRegistry, registry.id);
    t.deepEqual(Object.keys(bios.body.Attributes as object).sort(), registry.attributes.map((a) => a.name).sort(), `${model}: current attributes are the registry's`);
  }
  t.notDeepEqual(modelInfo('SIM-1').registry.attributes.map((a) => a.name), modelInfo('SIM-2').registry.attributes.map((a) => a.name));
});

test('bios registry - /redfish/v1/Registries lists a file per model the caller has, whose Location holds the registry; servers of one model share it', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'a' }, { id: 'b' }, { id: 'c', model: 'SIM-2' }], password: 'shared-password' });
  t.teardown(() => sim.stop());
  const [a, b, c] = sim.systems as [SimSystemInfo, SimSystemInfo, SimSystemInfo];
  const root = await call(sim.url, a, 'GET', '/redfish/v1');
  t.deepEqual(root.body.Registries, { '@odata.id': '/redfish/v1/Registries' });
  // One account opens all three systems here: it sees both models' registries, once each.
  const all = await call(sim.url, a, 'GET', '/redfish/v1/Registries');
  t.deepEqual((all.body.Members as { '@odata.id': string }[]).map((m) => m['@odata.id']).sort(), ['/redfish/v1/Registries/BiosAttributeRegistrySIM1.v1_0_0', '/redfish/v1/Registries/BiosAttributeRegistrySIM2.v1_0_0']);
  const ofA = (await call(sim.url, a, 'GET', `${a.systemPath}/Bios`)).body.AttributeRegistry;
  const ofB = (await call(sim.url, b, 'GET', `${b.systemPath}/Bios`)).body.AttributeRegistry;
  const ofC = (await call(sim.url, c, 'GET', `${c.systemPath}/Bios`)).body.AttributeRegistry;
  t.is(ofA, ofB, 'one model, one registry');
  t.not(ofA, ofC);

  const file = await call(sim.url, a, 'GET', `/redfish/v1/Registries/${String(ofA)}`);
  t.like(file.body, { '@odata.type': '#MessageRegistryFile.v1_1_3.MessageRegistryFile', Id: ofA, Languages: ['en'], Registry: 'BiosAttributeRegistrySIM1.1.0' });
  const location = (file.body.Location as { Language: string; Uri: string }[])[0];
  t.deepEqual(location, { Language: 'en', Uri: `/redfish/v1/Registries/${String(ofA)}/en` });
  const reg = await call(sim.url, a, 'GET', location?.Uri ?? '');
  t.like(reg.body, { '@odata.type': '#AttributeRegistry.v1_3_6.AttributeRegistry', Id: ofA, Language: 'en', OwningEntity: 'metalfleet', RegistryVersion: '1.0.0' });
  const attrs = (reg.body.RegistryEntries as { Attributes: Record<string, unknown>[] }).Attributes;
  const byName = Object.fromEntries(attrs.map((x) => [x.AttributeName, x]));
  t.like(byName.BootDelaySeconds, { Type: 'Integer', LowerBound: 0, UpperBound: 60, ReadOnly: false, ResetRequired: true });
  t.like(byName.SerialNumber, { Type: 'String', ReadOnly: true, IsSystemUniqueProperty: true, MaxLength: 32 });
  t.like(byName.AssetTag, { Type: 'String', MinLength: 0, MaxLength: 16 });
  t.like(byName.AdminPassword, { Type: 'Password', DefaultValue: null, MinLength: 8, MaxLength: 32 });
  t.like(byName.SecureBootAllowed, { Type: 'Boolean', DefaultValue: true });
  t.deepEqual(byName.ProcVirtualization?.Value, [{ ValueName: 'Enabled', ValueDisplayName: 'Enabled' }, { ValueName: 'Disabled', ValueDisplayName: 'Disabled' }]);
  t.is((await call(sim.url, a, 'GET', '/redfish/v1/Registries/NoSuch.v1_0_0')).status, 404);
});

test('bios registry - a BMC of one model lists only its own registry and hides the others', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'a' }, { id: 'c', model: 'SIM-2' }] });
  t.teardown(() => sim.stop());
  const [a, c] = sim.systems as [SimSystemInfo, SimSystemInfo];
  const list = await call(sim.url, c, 'GET', '/redfish/v1/Registries');
  t.deepEqual((list.body.Members as { '@odata.id': string }[]).map((m) => m['@odata.id']), ['/redfish/v1/Registries/BiosAttributeRegistrySIM2.v1_0_0']);
  t.is((await call(sim.url, c, 'GET', '/redfish/v1/Registries/BiosAttributeRegistrySIM1.v1_0_0')).status, 404);
  t.is((await call(sim.url, a, 'GET', '/redfish/v1/Registries/BiosAttributeRegistrySIM1.v1_0_0/en')).status, 200);
});

test('bios registry - a PATCH with one bad attribute stages nothing, and the refusal names it', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const info = sim.systems[0] as SimSystemInfo;
  const settings = `${info.systemPath}/Bios/Settings`;
  const cases: [Record<string, unknown>, string, string][] = [
    [{ ProcVirtualization: 'Disabled', SerialNumber: 'FORGED' }, 'PropertyNotWritable', 'SerialNumber'],
    [{ ProcVirtualization: 'Disabled', BootDelaySeconds: 600 }, 'PropertyValueOutOfRange', 'BootDelaySeconds'],
    [{ ProcVirtualization: 'Disabled', Turbo: 'On' }, 'PropertyUnknown', 'Turbo'],
    [{ ProcVirtualization: 'Disabled', BootDelaySeconds: '5' }, 'PropertyValueTypeError', 'BootDelaySeconds'],
  ];
  for (const [attributes, id, name] of cases) {
    const r = await call(sim.url, info, 'PATCH', settings, { Attributes: attributes });
    t.is(r.status, 400, name);
    t.like(messageOf(r.body), { MessageId: `Base.1.8.${id}`, RelatedProperties: [`#/Attributes/${name}`] });
    t.regex(messageOf(r.body)?.Message ?? '', new RegExp(name));
  }
  t.deepEqual(sim.system(info.id).state.bios.pending, {}, 'nothing staged');
  t.is((await call(sim.url, info, 'PATCH', settings, { Attributes: { ProcVirtualization: 'Disabled', BootDelaySeconds: 5 } })).status, 204);
  t.deepEqual(sim.system(info.id).state.bios.pending, { ProcVirtualization: 'Disabled', BootDelaySeconds: 5 });
});

test('bios registry - a password attribute reads null, staged or set, and takes effect at the next boot', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const info = sim.systems[0] as SimSystemInfo;
  const system = sim.system(info.id);
  t.is((await call(sim.url, info, 'PATCH', `${info.systemPath}/Bios/Settings`, { Attributes: { AdminPassword: 'firmware-secret' } })).status, 204);
  const pending = await call(sim.url, info, 'GET', `${info.systemPath}/Bios/Settings`);
  t.deepEqual(pending.body.Attributes, { AdminPassword: null });
  t.is(system.state.bios.passwords.AdminPassword, '', 'not before the boot');
  system.setPower(true);
  t.is(system.state.bios.passwords.AdminPassword, 'firmware-secret');
  const current = await call(sim.url, info, 'GET', `${info.systemPath}/Bios`);
  t.like(current.body.Attributes, { AdminPassword: null, UserPassword: null });
  t.false(JSON.stringify(current.body).includes('firmware-secret'));
  const tooShort = await call(sim.url, info, 'POST', `${info.systemPath}/Bios/Actions/Bios.ChangePassword`, { PasswordName: 'AdminPassword', OldPassword: 'firmware-secret', NewPassword: 'short' });
  t.is(tooShort.status, 400);
  t.is(system.state.bios.passwords.AdminPassword, 'firmware-secret');
});

test('bios registry - ResetBios restores the registry defaults at the next boot and keeps the read-only serial number', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const info = sim.systems[0] as SimSystemInfo;
  const system = sim.system(info.id);
  const serial = system.state.bios.current.SerialNumber;
  t.is(serial, system.hardware.serial);
  await call(sim.url, info, 'PATCH', `${info.systemPath}/Bios/Settings`, { Attributes: { BootDelaySeconds: 30, AssetTag: 'rack-7' } });
  system.setPower(true);
  t.like(system.state.bios.current, { BootDelaySeconds: 30, AssetTag: 'rack-7' });
  t.is((await call(sim.url, info, 'POST', `${info.systemPath}/Bios/Actions/Bios.ResetBios`, {})).status, 204);
  t.like(system.state.bios.current, { BootDelaySeconds: 30 }, 'not before the boot');
  system.reset('ForceRestart');
  t.like(system.state.bios.current, { BootDelaySeconds: 0, AssetTag: '', SerialNumber: serial });
});
