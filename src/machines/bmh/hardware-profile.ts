import type { BareMetalHost, BareMetalHostStatus, RootDeviceHints } from '../../api/index.ts';

// BMO's hardware profiles (apis/metal3.io/v1alpha1/profile) and matchProfile: the profile names
// the root disk a host deploys to when its spec gives no hints, so a host never lands on a disk
// Ironic picked by itself. Pure.

export const DEFAULT_PROFILE = 'unknown';

const PROFILES: Readonly<Record<string, RootDeviceHints>> = {
  unknown: { deviceName: '/dev/sda' },
  libvirt: { deviceName: '/dev/vda' },
  dell: { hctl: '0:0:0:0' },
  'dell-raid': { hctl: '0:2:0:0' },
  openstack: { deviceName: '/dev/vdb' },
  empty: {},
};

export const PROFILE_NAMES: readonly string[] = Object.keys(PROFILES);

/** BMO's getHardwareProfileName: status first, then spec, then libvirt BMCs, then "unknown". */
export function profileNameOf(host: BareMetalHost & { status: BareMetalHostStatus }): string {
  if (host.status.hardwareProfile) return host.status.hardwareProfile;
  if (host.spec.hardwareProfile) return host.spec.hardwareProfile;
  if (host.spec.bmc?.address.startsWith('libvirt')) return 'libvirt';
  return DEFAULT_PROFILE;
}

export type ProfileMatch =
  | { readonly ok: true; readonly profile: string; readonly rootDeviceHints: RootDeviceHints | undefined }
  | { readonly ok: false; readonly message: string };

/**
 * The profile a host has and the root device hints its status should record (BMO
 * updateRootDeviceHints): none when software RAID defines a root volume, else the spec's hints,
 * else the profile's. An unknown profile name is BMO's registration error.
 */
export function matchProfile(host: BareMetalHost & { status: BareMetalHostStatus }): ProfileMatch {
  const profile = profileNameOf(host);
  const hints = PROFILES[profile];
  if (!Object.hasOwn(PROFILES, profile) || hints === undefined) {
    return { ok: false, message: `no hardware profile named ${JSON.stringify(profile)} (known: ${PROFILE_NAMES.join(', ')})` };
  }
  const rootVolumes = (host.spec.raid?.softwareRAIDVolumes ?? []).filter((v) => v.rootVolume === true).length;
  if (rootVolumes > 0) return { ok: true, profile, rootDeviceHints: undefined };
  return { ok: true, profile, rootDeviceHints: host.spec.rootDeviceHints ?? hints };
}

/** The hints a deploy uses: the profile's when it matches, else the spec's (an unknown profile is reported at registration). */
export function effectiveRootDeviceHints(host: BareMetalHost & { status: BareMetalHostStatus }): RootDeviceHints | undefined {
  const match = matchProfile(host);
  return match.ok ? match.rootDeviceHints : host.spec.rootDeviceHints;
}
