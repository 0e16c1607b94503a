// BMO's actionPreparing hands the provisioner PrepareData.RootDeviceHints: the hints
// getHostProvisioningSettings -> updateRootDeviceHints computes for status (spec hints, else the
// hardware profile's, none when a software RAID volume is the root), not the spec's alone.
// setTargetRAIDCfg (pkg/provisioner/ironic/raid.go) marks the first logical disk as the root volume
// only when those hints are nil and no software volume is the root.
import test from 'ava';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import { atState, calls, tick } from '../support/bmh.ts';

const hw = { hardwareRAIDVolumes: [{ level: '1' as const }], softwareRAIDVolumes: null };
type Overrides = NonNullable<Parameters<typeof atState>[1]>;

function prepareArgs(o: Overrides): Extract<CallArgs, { op: 'prepare' }> {
  const prepares = calls(tick(atState('preparing', o)).effects).filter((c): c is Extract<CallArgs, { op: 'prepare' }> => c.op === 'prepare');
  if (prepares.length !== 1) throw new Error(`expected one prepare call, got ${JSON.stringify(prepares)}`);
  return prepares[0]!;
}

test('bmo raid root hints - prepare carries the hardware profile\'s hints when the spec gives none (BMO updateRootDeviceHints)', (t) => {
  t.deepEqual(prepareArgs({ spec: { raid: hw } }).rootDeviceHints, { deviceName: '/dev/sda' }, 'default profile "unknown"');
  t.deepEqual(prepareArgs({ spec: { raid: hw }, status: { hardwareProfile: 'dell-raid' } }).rootDeviceHints, { hctl: '0:2:0:0' }, 'the profile status names');
  t.deepEqual(prepareArgs({ spec: { raid: hw, bmc: { address: 'libvirt://192.168.122.1/', credentialsName: 'bmc' } } }).rootDeviceHints, { deviceName: '/dev/vda' });
});

test('bmo raid root hints - the "empty" profile gives hints with no field, which are still hints (BMO: a non-nil pointer)', (t) => {
  t.deepEqual(prepareArgs({ spec: { raid: hw }, status: { hardwareProfile: 'empty' } }).rootDeviceHints, {});
});

test('bmo raid root hints - the spec\'s hints win over the profile\'s', (t) => {
  t.deepEqual(prepareArgs({ spec: { raid: hw, rootDeviceHints: { serialNumber: 'S1' } }, status: { hardwareProfile: 'dell' } }).rootDeviceHints, { serialNumber: 'S1' });
});

test('bmo raid root hints - a software RAID root volume means no hints at all', (t) => {
  const args = prepareArgs({ spec: { raid: { softwareRAIDVolumes: [{ level: '1' }, { level: '1', rootVolume: true }] }, rootDeviceHints: { deviceName: '/dev/sdb' } } });
  t.is(args.rootDeviceHints, undefined);
  t.false('rootDeviceHints' in args);
});

test('bmo raid root hints - the hints are computed from the host as it is now, not the ones status recorded before a spec change', (t) => {
  // Status still says /dev/sda from registration; the spec now names a disk (BMO recomputes on a copy).
  const args = prepareArgs({ spec: { raid: hw, rootDeviceHints: { deviceName: '/dev/sdc' } }, status: { provisioning: { state: 'preparing', ID: 'node-1', rootDeviceHints: { deviceName: '/dev/sda' } } } });
  t.deepEqual(args.rootDeviceHints, { deviceName: '/dev/sdc' });
});
