// Firmware versions as the simulated BMC reports them in every place a client reads them
// (FirmwareInventory, ComputerSystem.BiosVersion, Manager.FirmwareVersion, the chassis' NetworkAdapters
// where newer Ironic reads NIC firmware), all moving together after a SimpleUpdate.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { waitUntil } from '../support/wait.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(url: string, info: SimSystemInfo, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

async function versions(url: string, info: SimSystemInfo) {
  const inv = async (c: string) => (await call(url, info, 'GET', `/redfish/v1/UpdateService/FirmwareInventory/${c}-${info.id}`)).body.Version;
  const adapter = (await call(url, info, 'GET', `/redfish/v1/Chassis/${info.id}/NetworkAdapters/NIC.Slot.1`)).body as { Controllers: { FirmwarePackageVersion: string }[] };
  return {
    inventory: { BIOS: await inv('BIOS'), BMC: await inv('BMC'), NIC: await inv('NIC') },
    biosVersion: (await call(url, info, 'GET', info.systemPath)).body.BiosVersion,
    bmcVersion: (await call(url, info, 'GET', `/redfish/v1/Managers/${info.id}`)).body.FirmwareVersion,
    nicVersion: adapter.Controllers[0]?.FirmwarePackageVersion,
  };
}

test('redfish firmware - every place a version shows agrees, before and after updates by inventory item and by system target', async (t) => {
  // One account opens both systems: targeted updates touch only the one named (untargeted ones
  // go to every system the account opens, redfish-shared-update.test.ts).
  const sim = await startRedfishSim({ systems: [{ id: 'a' }, { id: 'b' }], password: 'shared-password', updateMs: 0 });
  t.teardown(() => sim.stop());
  const [a, b] = sim.systems as [SimSystemInfo, SimSystemInfo];
  const before = await versions(sim.url, a);
  t.deepEqual(before, { inventory: { BIOS: '2.10.1', BMC: '5.00.00', NIC: '22.5.7' }, biosVersion: '2.10.1', bmcVersion: '5.00.00', nicVersion: '22.5.7' });
  const chassis = await call(sim.url, a, 'GET', `/redfish/v1/Chassis/${a.id}/NetworkAdapters`);
  t.deepEqual(chassis.body.Members, [{ '@odata.id': `/redfish/v1/Chassis/${a.id}/NetworkAdapters/NIC.Slot.1` }]);

  const update = '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate';
  t.is((await call(sim.url, a, 'POST', update, { ImageURI: 'http://fw.example/nic-22.5.8.bin', Targets: [a.systemPath] })).status, 202);
  t.is((await call(sim.url, a, 'POST', update, { ImageURI: 'http://fw.example/bios-2.10.2.bin', Targets: [`/redfish/v1/UpdateService/FirmwareInventory/BIOS-${a.id}`] })).status, 202);
  t.is((await call(sim.url, a, 'POST', update, { ImageURI: 'http://fw.example/bios.bin', Targets: ['/redfish/v1/Systems/nobody'] })).status, 400);
  await waitUntil(() => sim.system(a.id).state.firmware.NIC !== '22.5.7' && sim.system(a.id).state.firmware.BIOS !== '2.10.1', 5_000, 'both updates to complete');
  const after = await versions(sim.url, a);
  t.deepEqual(after, { inventory: { BIOS: '2.10.2', BMC: '5.00.00', NIC: '22.5.8' }, biosVersion: '2.10.2', bmcVersion: '5.00.00', nicVersion: '22.5.8' });
  t.deepEqual(sim.system(b.id).state.firmware, { BIOS: '2.10.1', BMC: '5.00.00', NIC: '22.5.7' }, 'the other system is untouched');
});
