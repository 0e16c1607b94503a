import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { RaidTarget, RootDeviceHints } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { redfishHostData, settled } from '../support/redfish-host-data.ts';

// The target_raid_config Ironic receives (PUT /v1/nodes/{node}/states/raid) is judged on the root
// device hints the prepare call carries, which are BMO's PrepareData.RootDeviceHints (status's
// hints: the spec's, else the hardware profile's), not on the spec's hints alone. BMO's
// setTargetRAIDCfg (pkg/provisioner/ironic/raid.go): is_root_volume on the first logical disk only
// when those hints are nil and no software volume is the root.

const base: HostData = redfishHostData('raid', '52:54:00:aa:ee:01');

/** Registers the host on a fresh server, prepares it with `raid` and `hints`: the node's target_raid_config. */
async function sentRaid(t: { teardown(fn: () => unknown): void; is(a: unknown, b: unknown, m?: string): void }, raid: RaidTarget, hints: RootDeviceHints | undefined, specHints?: RootDeviceHints): Promise<unknown> {
  const s = await startIronicApiServer({ maxVersion: '1.87', phaseDelayMs: 2 });
  const client = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    client.close();
    await s.close();
  });
  const p = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 5, longMs: 10 }, imageCheck: { enabled: false } });
  const host: HostData = { ...base, spec: { ...base.spec, ...(specHints ? { rootDeviceHints: specHints } : {}) } };
  const registered = await settled(() => p.register(host, { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  if (registered.kind !== 'done' || !registered.provisionerId) throw new Error(JSON.stringify(registered));
  const h = { ...host, provisionerId: registered.provisionerId };
  const prepared = await settled(() => p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: { target: raid, actual: null }, ...(hints ? { rootDeviceHints: hints } : {}) }));
  t.is(prepared.kind, 'done', JSON.stringify(prepared));
  return s.node(registered.provisionerId)?.fields.target_raid_config;
}

const hw: RaidTarget = { hardwareRAIDVolumes: [{ level: '1' }, { level: '0', sizeGibibytes: 100 }], softwareRAIDVolumes: null };

test('bmo raid root hints - the hardware profile\'s hints in the call leave the first hardware volume unmarked, though the spec has none', async (t) => {
  t.deepEqual(await sentRaid(t, hw, { deviceName: '/dev/sda' }), {
    logical_disks: [{ raid_level: '1', size_gb: 'MAX' }, { raid_level: '0', size_gb: 100 }],
  });
});

test('bmo raid root hints - the "empty" profile\'s hints (no field set) are still hints: no volume is marked', async (t) => {
  t.deepEqual(await sentRaid(t, hw, {}), {
    logical_disks: [{ raid_level: '1', size_gb: 'MAX' }, { raid_level: '0', size_gb: 100 }],
  });
});

test('bmo raid root hints - no hints in the call mark the first hardware volume as the root, whatever the spec says', async (t) => {
  t.deepEqual(await sentRaid(t, hw, undefined, { deviceName: '/dev/sdb' }), {
    logical_disks: [{ raid_level: '1', size_gb: 'MAX', is_root_volume: true }, { raid_level: '0', size_gb: 100 }],
  });
});
