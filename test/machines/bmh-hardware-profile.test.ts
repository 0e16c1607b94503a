// BMO's hardware profiles and root device hints (profile.go, getHardwareProfileName,
// updateRootDeviceHints): pure, before the machine records them in status.
import test from 'ava';
import { matchProfile, profileNameOf } from '../../src/machines/bmh/hardware-profile.ts';
import { makeHost } from '../support/bmh.ts';
import type { BareMetalHost, BareMetalHostStatus } from '../../src/api/index.ts';

type Host = BareMetalHost & { status: BareMetalHostStatus };
const host = (o: { spec?: Partial<BareMetalHost['spec']>; status?: Partial<BareMetalHostStatus> } = {}): Host => {
  const h = makeHost();
  return { ...h, spec: { ...h.spec, ...o.spec }, status: { ...h.status!, ...o.status } } as Host;
};

test('hardware profile - getHardwareProfileName: status wins, then spec, then a libvirt BMC, else "unknown"', (t) => {
  t.is(profileNameOf(host()), 'unknown');
  t.is(profileNameOf(host({ spec: { bmc: { address: 'libvirt://192.168.122.1/', credentialsName: 'bmc' } } })), 'libvirt');
  t.is(profileNameOf(host({ spec: { hardwareProfile: 'dell' } })), 'dell');
  t.is(profileNameOf(host({ spec: { hardwareProfile: 'dell' }, status: { hardwareProfile: 'openstack' } })), 'openstack');
});

test('hardware profile - updateRootDeviceHints: the profile\'s hints by default (/dev/sda, /dev/vda for libvirt, HCTL for dell), the spec\'s when given', (t) => {
  t.deepEqual(matchProfile(host()), { ok: true, profile: 'unknown', rootDeviceHints: { deviceName: '/dev/sda' } });
  t.deepEqual(matchProfile(host({ spec: { bmc: { address: 'libvirt://h/', credentialsName: 'bmc' } } })), { ok: true, profile: 'libvirt', rootDeviceHints: { deviceName: '/dev/vda' } });
  t.deepEqual(matchProfile(host({ spec: { hardwareProfile: 'dell-raid' } })), { ok: true, profile: 'dell-raid', rootDeviceHints: { hctl: '0:2:0:0' } });
  t.deepEqual(matchProfile(host({ spec: { hardwareProfile: 'empty' } })), { ok: true, profile: 'empty', rootDeviceHints: {} });
  t.deepEqual(matchProfile(host({ spec: { rootDeviceHints: { serialNumber: 'S123' } } })), { ok: true, profile: 'unknown', rootDeviceHints: { serialNumber: 'S123' } }, 'spec hints win');
});

test('hardware profile - a software RAID root volume clears the hints; an unknown profile is a registration error naming the known ones', (t) => {
  const raid = matchProfile(host({ spec: { rootDeviceHints: { deviceName: '/dev/sdb' }, raid: { softwareRAIDVolumes: [{ level: '1', rootVolume: true }] } } }));
  t.deepEqual(raid, { ok: true, profile: 'unknown', rootDeviceHints: undefined });
  const bad = matchProfile(host({ spec: { hardwareProfile: 'hp-gen9' } }));
  t.false(bad.ok);
  t.regex(bad.ok ? '' : bad.message, /no hardware profile named "hp-gen9" \(known: unknown, libvirt, dell, dell-raid, openstack, empty\)/);
});

// ---- wired into the machine --------------------------------------------------------------------

import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import { settle, T0 } from '../support/bmh.ts';

function drive(h: BareMetalHost): { provisionArgs: CallArgs[]; status: BareMetalHostStatus } {
  const seen: CallArgs[] = [];
  const { last } = settle(step(initialState(h), { type: 'tick' }, T0), (args) => {
    seen.push(args);
    return { kind: 'done' };
  }, T0, 200);
  return { provisionArgs: seen.filter((a) => a.op === 'provision'), status: last.state.host.status };
}

test('hardware profile - BMO matchProfile at registration: status records the profile and its hints, and the deploy sends /dev/sda when the spec gives none', (t) => {
  const { provisionArgs, status } = drive(makeHost());
  t.is(status.hardwareProfile, 'unknown');
  t.deepEqual(status.provisioning.rootDeviceHints, { deviceName: '/dev/sda' });
  t.deepEqual(provisionArgs.map((a) => (a.op === 'provision' ? a.rootDeviceHints : null)), [{ deviceName: '/dev/sda' }]);
});

test('hardware profile - spec hints win over the profile, in status and in the deploy; a libvirt BMC deploys to /dev/vda', (t) => {
  const withHints = makeHost();
  const spec = drive({ ...withHints, spec: { ...withHints.spec, rootDeviceHints: { wwn: '0x5000c500a0b1c2d3' } } });
  t.deepEqual(spec.status.provisioning.rootDeviceHints, { wwn: '0x5000c500a0b1c2d3' });
  t.deepEqual(spec.provisionArgs.map((a) => (a.op === 'provision' ? a.rootDeviceHints : null)), [{ wwn: '0x5000c500a0b1c2d3' }]);
  const libvirt = drive({ ...withHints, spec: { ...withHints.spec, bmc: { address: 'libvirt://192.168.122.1/', credentialsName: 'bmc' } } });
  t.is(libvirt.status.hardwareProfile, 'libvirt');
  t.deepEqual(libvirt.provisionArgs.map((a) => (a.op === 'provision' ? a.rootDeviceHints : null)), [{ deviceName: '/dev/vda' }]);
});

test('hardware profile - an unknown profile name is a registration error and nothing is deployed', (t) => {
  const h = makeHost();
  const { provisionArgs, status } = drive({ ...h, spec: { ...h.spec, hardwareProfile: 'hp-gen9' } });
  t.is(status.errorType, 'registration error');
  t.regex(status.errorMessage, /no hardware profile named "hp-gen9"/);
  t.deepEqual(provisionArgs, []);
  t.is(status.provisioning.state, 'registering');
});
