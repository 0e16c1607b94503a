import test from 'ava';
import type { ExecutionContext } from 'ava';
import { applyRedfishHost, useRedfishNode, waitHost } from '../support/redfish-node.ts';
import type { RedfishHostOptions } from '../support/redfish-node.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

// The whole lifecycle on Ironic's real redfish drivers: inspection reads the simulated hardware,
// the agent writes the image and config drive onto the simulated disk, cleaning erases it.
const it = useRedfishNode(test, {
  systems: 3,
  objects: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ud', namespace: 'lab' }, stringData: { userData: '#cloud-config\nhostname: rf' } }],
});

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);

async function lifecycle(t: ExecutionContext, system: SimSystemInfo, name: string, o: RedfishHostOptions & { cleaning: 'metadata' | 'disabled' }): Promise<void> {
  const seen = new Set<string>();
  const off = it.node.stats.onChange(() => { const s = state(name)?.state; if (s) seen.add(s); });
  t.teardown(off);
  const server = await applyRedfishHost(it, system, name, { ...o, userData: 'ud', automatedCleaningMode: o.cleaning });
  await waitHost(it, name, () => state(name)?.state === 'provisioned', 90_000, `${name} provisioned`, server);
  for (const s of ['registering', 'inspecting', 'available', 'provisioning', 'provisioned']) t.true(seen.has(s), `${name} passed through ${s}`);

  const snap = await it.node.snapshot(`lab/${name}`);
  // The image and the config drive went onto the disk once, verified.
  const disk = server.disk;
  t.is(disk.writes.length, 1, 'image written exactly once');
  t.is(disk.image?.url, it.dc.images.urlOf('os.img'));
  t.is(disk.image?.checksum.value, it.dc.images.checksum('os.img', 'sha256'));
  t.is(disk.configDrive?.userData, '#cloud-config\nhostname: rf');
  t.is(disk.configDrive?.metaData?.['metal3-name'], name);
  t.is(disk.configDrive?.metaData?.['metal3-namespace'], 'lab');
  t.true(server.system.state.on, 'BMC reports power on');
  t.is(snap?.status.poweredOn, true);
  const ramdiskBoots = server.boots.filter((b) => b.kind === 'ramdisk');
  t.true(ramdiskBoots.length > 0, 'booted the deploy ramdisk');
  t.true(ramdiskBoots.every((b) => b.kind === 'ramdisk' && b.via === (o.virtualMedia ? 'virtual media' : 'pxe')), `ramdisk booted via ${o.virtualMedia ? 'virtual media' : 'pxe'}`);

  // Removing the image deprovisions, cleaning as the host asks.
  const erasesBefore = disk.erases.length;
  await applyRedfishHost(it, system, name, { ...o, userData: 'ud', automatedCleaningMode: o.cleaning, image: false });
  await waitHost(it, name, () => state(name)?.state === 'available', 90_000, `${name} available again`, server);
  t.true(seen.has('deprovisioning'));
  if (o.cleaning === 'metadata') {
    t.true(disk.erases.slice(erasesBefore).some((e) => e.kind === 'metadata'), 'metadata erased');
    t.is(disk.image, null, 'image gone');
  } else {
    t.is(disk.erases.length, erasesBefore, 'nothing erased');
    t.not(disk.image, null, 'image kept');
  }
  t.is(disk.writes.length, 1, 'no further write');

  // Hardware as inspection found it on the simulated server: Ironic 21.4 inspects out of band
  // (redfish), so what there is comes from the node's properties and the ports it created.
  const hw = snap?.status.hardware;
  const sim = server.system.hardware;
  // sushy sums each processor's TotalThreads: logical CPUs, two per core here.
  t.is(hw?.cpu?.count, sim.cpuCount * sim.coresPerCpu * 2, 'CPU count');
  t.is(hw?.ramMebibytes, sim.memoryGiB * 1024, 'memory');
  t.deepEqual((hw?.nics ?? []).map((nic) => nic.mac).sort(), [...sim.macs].sort(), 'NIC MACs');
  // Ironic's local_gb: the smallest drive of at least 4 GiB, in GiB, less one.
  const GiB = 1024 ** 3;
  const smallest = Math.min(...server.system.state.drives.map((d) => d.capacityBytes).filter((b) => b >= 4 * GiB));
  t.deepEqual(hw?.storage?.map((d) => d.sizeBytes), [(Math.floor(smallest / GiB) - 1) * GiB], 'root disk');
}

test('redfish lifecycle - iPXE: inspect, provision, deprovision with metadata cleaning', async (t) => {
  await lifecycle(t, it.dc.systems[0]!, 'rf-pxe', { cleaning: 'metadata' });
});

test('redfish lifecycle - iPXE: deprovision with cleaning disabled keeps the disk', async (t) => {
  await lifecycle(t, it.dc.systems[1]!, 'rf-pxe-keep', { cleaning: 'disabled' });
});

test('redfish lifecycle - virtual media: inspect, provision, deprovision with metadata cleaning', async (t) => {
  await lifecycle(t, it.dc.systems[2]!, 'rf-vmedia', { virtualMedia: true, cleaning: 'metadata' });
});
