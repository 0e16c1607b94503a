import test from 'ava';
import { applyRedfishHost, useRedfishNode, waitHost } from '../support/redfish-node.ts';

// Hardware RAID through Ironic's redfish raid interface (PUT states/raid, manual clean steps):
// the simulated controller's volumes are what the host asked for.
const it = useRedfishNode(test, { systems: 1 });

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);

test('redfish raid - a RAID-1 volume is built while preparing; an empty list deletes it', async (t) => {
  const system = it.dc.systems[0]!;
  const name = 'rf-raid';
  const seen = new Set<string>();
  const off = it.node.stats.onChange(() => { const s = state(name)?.state; if (s) seen.add(s); });
  t.teardown(off);
  // Ironic's redfish raid needs the drives named when no size is given (size_gb MAX); metalfleet
  // then needs their controller (the simulated BMC's Storage/1).
  const server = await applyRedfishHost(it, system, name, { image: false, raid: { hardwareRAIDVolumes: [{ name: 'root', level: '1', controller: '1', physicalDisks: ['Disk0', 'Disk1'] }] } });
  await waitHost(it, name, () => state(name)?.state === 'available' && server.system.state.volumes.length === 1, 90_000, 'available with one volume', server);
  t.true(seen.has('preparing'), 'passed through preparing');
  const [volume] = server.system.state.volumes;
  t.is(volume?.raidType, 'RAID1');
  t.deepEqual(volume?.driveIds, ['Disk0', 'Disk1']);
  t.is((await it.node.snapshot(`lab/${name}`))?.status.errorType ?? '', '');

  seen.clear();
  await applyRedfishHost(it, system, name, { image: false, raid: { hardwareRAIDVolumes: [] } });
  await waitHost(it, name, () => seen.has('preparing') && state(name)?.state === 'available' && server.system.state.volumes.length === 0, 90_000, 'prepared again, no volume', server);
  t.deepEqual(server.system.state.volumes, []);
  t.is(server.disk.writes.length, 0);
});
