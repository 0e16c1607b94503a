import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import { HardwareDetails } from '../../src/api/index.ts';
import type { HardwareDetails as HardwareDetailsType } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { redfishHostData, settled } from '../support/redfish-host-data.ts';

// What inspection makes of Ironic's inventory is what BMO's GetHardwareDetails
// (pkg/provisioner/ironic/hardwaredetails/hardwaredetails.go) makes of it, in the types of its
// HardwareDetails, so the HardwareData and BareMetalHost CRDs (integer fields, unknown fields
// pruned) store it whole: speedGbps is speed_mbps / 1000 in Go's integer division (2500 Mbit/s is
// 2), clockMegahertz the frequency rounded (math.Round), and an integer field never gets a fraction.

const base: HostData = redfishHostData('inv', '52:54:00:aa:ff:01');

async function inspected(t: { teardown(fn: () => unknown): void }, inventory: unknown): Promise<HardwareDetailsType> {
  const s = await startIronicApiServer({ maxVersion: '1.87', phaseDelayMs: 2, inventory: () => ({ inventory }) });
  const client = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    client.close();
    await s.close();
  });
  const p = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 5, longMs: 10 }, imageCheck: { enabled: false } });
  const registered = await settled(() => p.register(base, { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  if (registered.kind !== 'done' || !registered.provisionerId) throw new Error(JSON.stringify(registered));
  const h = { ...base, provisionerId: registered.provisionerId };
  const r = await settled(() => p.inspect(h, { op: 'inspect', restartOnFailure: false, refresh: false }));
  if (r.kind !== 'done' || !r.hardware) throw new Error(JSON.stringify(r));
  return r.hardware;
}

const INVENTORY = {
  memory: { total: 17179869184, physical_mb: 16384 },
  cpu: { architecture: 'x86_64', model_name: 'Test CPU', count: 8, frequency: '2399.7' },
  interfaces: [
    { name: 'eth0', mac_address: '52:54:00:aa:ff:01', ipv4_address: '192.0.2.5', speed_mbps: 2500 },
    { name: 'eth1', mac_address: '52:54:00:aa:ff:02', speed_mbps: 100 },
    { name: 'eth2', mac_address: '52:54:00:aa:ff:03' },
  ],
  disks: [{ name: '/dev/sda', size: 480103981056, rotational: false }],
  hostname: 'inv',
};

test('bmo inspect hardware - speedGbps is speed_mbps / 1000 truncated, as Go\'s integer division in BMO\'s getNICDetails', async (t) => {
  const hw = await inspected(t, INVENTORY);
  t.deepEqual(hw.nics?.map((n) => n.speedGbps), [2, 0, undefined], '100 Mbit/s is 0 Gbit/s; no speed given, none written');
});

test('bmo inspect hardware - clockMegahertz is the frequency rounded (BMO getCPUDetails: math.Round)', async (t) => {
  const hw = await inspected(t, INVENTORY);
  t.is(hw.cpu?.clockMegahertz, 2400);
});

test('bmo inspect hardware - a fraction where Go has an int never reaches an integer field', async (t) => {
  const hw = await inspected(t, { ...INVENTORY, memory: { physical_mb: 16383.75 }, cpu: { ...INVENTORY.cpu, count: 8.0000001 }, disks: [{ name: '/dev/sda', size: 480103981056.5 }], interfaces: [{ name: 'eth0', mac_address: '52:54:00:aa:ff:01', speed_mbps: 2500.9 }] });
  t.is(hw.ramMebibytes, 16383);
  t.is(hw.cpu?.count, 8);
  t.is(hw.storage?.[0]?.sizeBytes, 480103981056);
  t.is(hw.nics?.[0]?.speedGbps, 2);
});

test('bmo inspect hardware - what inspection returns is HardwareDetails as the CRD stores it: zod keeps every field', async (t) => {
  const hw = await inspected(t, INVENTORY);
  const parsed = HardwareDetails.safeParse(hw);
  t.true(parsed.success, JSON.stringify(parsed.error?.issues));
  t.deepEqual(parsed.data, hw);
});
