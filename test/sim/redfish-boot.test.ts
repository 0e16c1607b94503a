// What the rest of the virtual datacenter sees: power and boot events, a Once override consumed
// at the boot it steers, pending BIOS applied at boot, virtual media handed to the booting system.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { BootEvent, PowerEvent, SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function send(url: string, info: SimSystemInfo, method: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

test('redfish boot - a Once override steers one boot, is consumed, and the next boot uses the default device', async (t) => {
  const sim = await startRedfishSim({ systems: [{ defaultBootTarget: 'Hdd' }] });
  t.teardown(() => sim.stop());
  const info = sim.systems[0];
  if (!info) throw new Error('one system expected');
  const system = sim.system(info.id);
  const boots: BootEvent[] = [];
  const power: PowerEvent[] = [];
  system.on('boot', (e) => boots.push(e));
  system.on('power', (e) => power.push(e));

  t.is(await send(sim.url, info, 'PATCH', info.systemPath, { Boot: { BootSourceOverrideTarget: 'Pxe', BootSourceOverrideEnabled: 'Once', BootSourceOverrideMode: 'Legacy' } }), 200);
  t.is(await send(sim.url, info, 'POST', `${info.systemPath}/Actions/ComputerSystem.Reset`, { ResetType: 'On' }), 204);
  t.deepEqual(power, [{ on: true }]);
  t.deepEqual(boots, [{ target: 'Pxe', mode: 'Legacy', virtualMedia: { image: null, inserted: false } }]);
  t.like(system.state.boot, { target: 'Pxe', enabled: 'Disabled' });

  t.is(await send(sim.url, info, 'POST', `${info.systemPath}/Actions/ComputerSystem.Reset`, { ResetType: 'ForceRestart' }), 204);
  t.is(boots[1]?.target, 'Hdd');
  t.deepEqual(power, [{ on: true }], 'a restart is a boot, not a power change');
  t.is(system.state.boots, 2);
});

test('redfish boot - a Continuous Cd override boots the inserted virtual media every time', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const info = sim.systems[0];
  if (!info) throw new Error('one system expected');
  const system = sim.system(info.id);
  const boots: BootEvent[] = [];
  system.on('boot', (e) => boots.push(e));
  const cd = `/redfish/v1/Managers/${info.id}/VirtualMedia/Cd`;
  t.is(await send(sim.url, info, 'POST', `${cd}/Actions/VirtualMedia.InsertMedia`, { Image: 'http://10.0.0.1/ipa.iso' }), 204);
  t.is(await send(sim.url, info, 'POST', `${cd}/Actions/VirtualMedia.InsertMedia`, { Image: 'not a url' }), 400);
  await send(sim.url, info, 'PATCH', info.systemPath, { Boot: { BootSourceOverrideTarget: 'Cd', BootSourceOverrideEnabled: 'Continuous' } });
  system.setPower(true);
  system.reset('PowerCycle');
  const expected: BootEvent = { target: 'Cd', mode: 'UEFI', virtualMedia: { image: 'http://10.0.0.1/ipa.iso', inserted: true } };
  t.deepEqual(boots, [expected, expected]);
  t.is(await send(sim.url, info, 'POST', `${cd}/Actions/VirtualMedia.EjectMedia`, {}), 204);
  t.deepEqual(system.state.virtualMedia.Cd, { image: null, inserted: false, writeProtected: true });
});

test('redfish boot - pending BIOS settings and secure boot take effect at the next boot, not before', async (t) => {
  const sim = await startRedfishSim({ systems: [{ powerOn: true }] });
  t.teardown(() => sim.stop());
  const info = sim.systems[0];
  if (!info) throw new Error('one system expected');
  const system = sim.system(info.id);
  t.is(await send(sim.url, info, 'PATCH', `${info.systemPath}/Bios/Settings`, { Attributes: { SriovGlobalEnable: 'Enabled' } }), 204);
  t.is(await send(sim.url, info, 'PATCH', `${info.systemPath}/Bios/Settings`, { Attributes: { BootDelaySeconds: 'soon' } }), 400);
  t.is(await send(sim.url, info, 'PATCH', `${info.systemPath}/Bios`, { Attributes: { SriovGlobalEnable: 'Enabled' } }), 405);
  t.is(await send(sim.url, info, 'PATCH', `${info.systemPath}/SecureBoot`, { SecureBootEnable: true }), 204);
  const before = system.snapshot();
  t.like(before.bios, { current: { SriovGlobalEnable: 'Disabled' }, pending: { SriovGlobalEnable: 'Enabled' } });
  t.is(before.secureBoot.currentBoot, 'Disabled');
  t.true(system.reset('GracefulRestart'));
  t.like(system.state.bios, { current: { SriovGlobalEnable: 'Enabled' }, pending: {} });
  t.like(before.bios, { current: { SriovGlobalEnable: 'Disabled' } }, 'a snapshot does not follow the live state');
  t.is(system.state.secureBoot.currentBoot, 'Enabled');
});
