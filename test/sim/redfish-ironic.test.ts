// The real Ironic 21.4 `redfish` driver code (power, management, raid, virtual media boot helpers)
// against the simulated BMC, with a stand-in node and task: test/sim/redfish/ironic_check.py.
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { RedfishSim, SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./redfish/ironic_check.py', import.meta.url));
// Under CI a missing Ironic is a failure that names it; elsewhere the test is skipped.
const HAVE_IRONIC = process.env.CI === 'true' || spawnSync(PYTHON, ['-c', 'import ironic.drivers.modules.redfish.raid, sushy'], { stdio: 'ignore' }).status === 0;

async function runIronic(sim: RedfishSim, me: SimSystemInfo): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    execFile(PYTHON, [SCRIPT, sim.url, me.systemPath, me.username], { encoding: 'utf8', timeout: 110_000, env: { ...process.env, SIM_PASSWORD: me.password } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${SCRIPT} failed (${err.message}); install ironic-conductor and python3-sushy (apt). stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

(HAVE_IRONIC ? test : test.skip)('redfish ironic - the redfish driver powers, sets boot device and mode, builds RAID, inserts virtual media and blinks the chassis LED', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const me = sim.systems[0];
  if (!me) throw new Error('one system expected');
  const get = checksFrom(await runIronic(sim, me));
  t.deepEqual(get('power').seen, ['power off', 'power on', 'power on', 'power off']);
  t.like(get('management'), { device: { boot_device: 'pxe', persistent: false }, boot_mode: 'uefi', macs: [...me.macs].sort() });
  t.like(get('raid'), { disks: ['Disk0', 'Disk1', 'Disk2', 'Disk3'], created: '1', raid_config: { logical_disks: [{ id: '1', controller: '1', raid_level: '1', size_gb: 447 }] } });
  t.deepEqual(get('virtual_media').inserted, [['Cd', 'http://10.0.0.1/deploy.iso', true], ['Floppy', null, false]]);
  t.deepEqual(get('virtual_media').ejected, [['Cd', null, false], ['Floppy', null, false]]);
  // Ironic keys a chassis LED by Chassis.UUID and sets it with a PATCH of IndicatorLED.
  t.like(get('chassis_indicator'), { ids: [me.uuid], state: 'blinking' });
  t.is(sim.system(me.id).state.indicatorLed, 'Blinking');
  t.is(sim.system(me.id).state.boot.enabled, 'Once', 'Ironic set a one-time PXE boot that no boot has consumed yet');
});

// Runs whatever the environment: a missing Ironic or sushy fails it, naming them.
test('redfish ironic - Ironic 21.4 boots virtual media from a BMC that requires TransferProtocolType (Base.1.5): its sushy retries with it', async (t) => {
  const sim = await startRedfishSim({ systems: [{ bmc: 'legacy-transfer-protocol' }] });
  t.teardown(() => sim.stop());
  const me = sim.systems[0];
  if (!me) throw new Error('one system expected');
  const get = checksFrom(await runIronic(sim, me));
  t.deepEqual(get('virtual_media').inserted, [['Cd', 'http://10.0.0.1/deploy.iso', true], ['Floppy', null, false]]);
  t.deepEqual(get('virtual_media').ejected, [['Cd', null, false], ['Floppy', null, false]]);
  t.deepEqual(get('power').seen, ['power off', 'power on', 'power on', 'power off'], 'the rest of the driver is unaffected');
});
