import test from 'ava';
import type { IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { RaidTarget, RootDeviceHints } from '../../src/api/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';

// The RAID a manageable node is asked to build (PUT states/raid) and the RAID configs refused
// before any write, as BMO's setTargetRAIDCfg / BuildTargetRAIDCfg (pkg/provisioner/ironic/raid.go).

function host(rootDeviceHints?: RootDeviceHints): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'redfish://10.0.0.1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01',
      ...(rootDeviceHints ? { rootDeviceHints } : {}),
    },
  };
}

/** A provisioner whose manageable node records the writes made to it. */
function manageable(raidInterface = 'redfish'): { p: Provisioner; writes: { name: string; args: unknown[] }[] } {
  const writes: { name: string; args: unknown[] }[] = [];
  const node = { uuid: 'node-1', name: 'ns~h1', provision_state: 'manageable', driver: 'redfish', raid_interface: raidInterface } as IronicNode;
  const write = (name: string) => async (...args: unknown[]) => {
    writes.push({ name, args: args.slice(1) });
    return node;
  };
  const client = {
    endpoint: 'http://ironic.test',
    stats: { byRouteStatus: {} },
    getNode: async () => node,
    setProvisionState: write('setProvisionState'),
    patchNode: write('patchNode'),
    setTargetRaidConfig: write('setTargetRaidConfig'),
  } as unknown as IronicClient;
  return { p: createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } }), writes };
}

// The hints go in the call (BMO's PrepareData.RootDeviceHints, what status records), as the machine sends them.
async function sentRaid(target: RaidTarget, hints?: RootDeviceHints): Promise<unknown> {
  const { p, writes } = manageable();
  await p.prepare(host(hints), { op: 'prepare', restartOnFailure: false, raid: { target, actual: null }, ...(hints ? { rootDeviceHints: hints } : {}) });
  return writes.find((w) => w.name === 'setTargetRaidConfig')?.args[0];
}

const hw = (volumes: NonNullable<RaidTarget['hardwareRAIDVolumes']>): RaidTarget => ({ hardwareRAIDVolumes: volumes, softwareRAIDVolumes: null });
const sw = (volumes: NonNullable<RaidTarget['softwareRAIDVolumes']>): RaidTarget => ({ hardwareRAIDVolumes: null, softwareRAIDVolumes: volumes });

test('ironic raid - without root device hints the first hardware volume is the root volume', async (t) => {
  t.deepEqual(await sentRaid(hw([{ level: '1' }, { level: '0', sizeGibibytes: 100 }])), {
    logical_disks: [{ raid_level: '1', size_gb: 'MAX', is_root_volume: true }, { raid_level: '0', size_gb: 100 }],
  });
});

test('ironic raid - root device hints leave every hardware volume unmarked', async (t) => {
  t.deepEqual(await sentRaid(hw([{ level: '1' }, { level: '0' }]), { deviceName: '/dev/sdb' }), {
    logical_disks: [{ raid_level: '1', size_gb: 'MAX' }, { raid_level: '0', size_gb: 'MAX' }],
  });
});

test('ironic raid - software volumes say whether each is the root volume, the first by default only without hints', async (t) => {
  t.deepEqual(await sentRaid(sw([{ level: '1' }, { level: '0' }])), {
    logical_disks: [
      { raid_level: '1', size_gb: 'MAX', controller: 'software', is_root_volume: true },
      { raid_level: '0', size_gb: 'MAX', controller: 'software', is_root_volume: false },
    ],
  });
  t.deepEqual(await sentRaid(sw([{ level: '1' }, { level: '0' }]), { deviceName: '/dev/md0' }), {
    logical_disks: [
      { raid_level: '1', size_gb: 'MAX', controller: 'software', is_root_volume: false },
      { raid_level: '0', size_gb: 'MAX', controller: 'software', is_root_volume: false },
    ],
  });
  t.deepEqual(await sentRaid(sw([{ level: '1' }, { level: '1', rootVolume: true }])), {
    logical_disks: [
      { raid_level: '1', size_gb: 'MAX', controller: 'software', is_root_volume: false },
      { raid_level: '1', size_gb: 'MAX', controller: 'software', is_root_volume: true },
    ],
  });
});

test('ironic raid - a software RAID whose first volume is not RAID 1 is refused for good, before any write', async (t) => {
  for (const level of ['0', '1+0'] as const) {
    const { p, writes } = manageable();
    const result = await p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: sw([{ level }, { level: '1' }]), actual: null } });
    t.deepEqual(result, {
      kind: 'failed',
      message: `spec.raid.softwareRAIDVolumes[0].level is "${level}": the first software RAID volume must be RAID level 1 (the host deploys to it); change it to "1"`,
      retryAfterMs: null,
    });
    t.deepEqual(writes, []);
  }
});

test('ironic raid - software RAID 1 first, then any level, is built by the agent raid interface', async (t) => {
  const { p, writes } = manageable('redfish');
  const result = await p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: sw([{ level: '1' }, { level: '1+0' }]), actual: null } });
  t.is(result.kind, 'continuing');
  t.deepEqual(writes.map((w) => w.name), ['patchNode', 'setTargetRaidConfig', 'setProvisionState']);
  t.deepEqual(writes[0]?.args[0], [{ op: 'replace', path: '/raid_interface', value: 'agent' }]);
  // Already agent: nothing to change.
  const again = manageable('agent');
  await again.p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: sw([{ level: '1' }]), actual: null } });
  t.deepEqual(again.writes.map((w) => w.name), ['setTargetRaidConfig', 'setProvisionState']);
});

test('ironic raid - hardware RAID is built by the driver raid interface, also on a node left on agent by software RAID', async (t) => {
  const { p, writes } = manageable('redfish');
  await p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: hw([{ level: '1' }]), actual: null } });
  t.deepEqual(writes.map((w) => w.name), ['setTargetRaidConfig', 'setProvisionState']);
  const agent = manageable('agent');
  await agent.p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: hw([{ level: '1' }]), actual: null } });
  t.deepEqual(agent.writes.map((w) => w.name), ['patchNode', 'setTargetRaidConfig', 'setProvisionState']);
  t.deepEqual(agent.writes[0]?.args[0], [{ op: 'replace', path: '/raid_interface', value: 'redfish' }]);
});

test('ironic raid - software volume disks go to Ironic as device hints with their operators', async (t) => {
  const sent = await sentRaid(sw([{
    level: '1',
    physicalDisks: [
      { deviceName: '/dev/sda', minSizeGigabytes: 100, rotational: false },
      { deviceName: '/dev/disk/by-path/pci-0000:00:1f.2-ata-2', model: 'PERC', vendor: 'Dell', serialNumber: 'S1', hctl: '0:0:1:0', wwn: 'w', wwnWithExtension: 'we', wwnVendorExtension: 've', minSizeGigabytes: 0 },
    ],
  }]));
  t.deepEqual(sent, {
    logical_disks: [{
      raid_level: '1', size_gb: 'MAX', controller: 'software', is_root_volume: true,
      physical_disks: [
        { name: 's== /dev/sda', size: '>= 100', rotational: 'false' },
        { by_path: 's== /dev/disk/by-path/pci-0000:00:1f.2-ata-2', model: '<in> PERC', vendor: '<in> Dell', serial: 's== S1', hctl: 's== 0:0:1:0', wwn: 's== w', wwn_with_extension: 's== we', wwn_vendor_extension: 's== ve' },
      ],
    }],
  });
});

test('ironic raid - hardware volumes Ironic cannot build as given are refused for good, before any write', async (t) => {
  const cases: [NonNullable<RaidTarget['hardwareRAIDVolumes']>, string][] = [
    [[{ level: '1', name: 'os' }, { level: '0' }, { level: '5', name: 'os' }],
      'spec.raid.hardwareRAIDVolumes[2].name "os" is also the name of volume 0: give each hardware RAID volume its own name'],
    [[{ level: '1', physicalDisks: ['Disk.Bay.0', 'Disk.Bay.1'] }],
      'spec.raid.hardwareRAIDVolumes[0].controller is required when physicalDisks are given: name the RAID controller'],
    [[{ level: '1', controller: 'RAID.Integrated.1-1', numberOfPhysicalDisks: 3, physicalDisks: ['Disk.Bay.0', 'Disk.Bay.1'] }],
      'spec.raid.hardwareRAIDVolumes[0].numberOfPhysicalDisks is 3 but physicalDisks lists 2: make them agree'],
  ];
  for (const [volumes, message] of cases) {
    const { p, writes } = manageable();
    const result = await p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: hw(volumes), actual: null } });
    t.deepEqual(result, { kind: 'failed', message, retryAfterMs: null });
    t.deepEqual(writes, []);
  }
});
