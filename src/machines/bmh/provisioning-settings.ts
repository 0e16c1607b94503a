import type { BareMetalHost, BareMetalHostStatus, RaidConfig, RaidTarget } from '../../api/index.ts';
import { effectiveRootDeviceHints } from './hardware-profile.ts';
import type { Turn } from './turn.ts';

type HostWithStatus = BareMetalHost & { status: BareMetalHostStatus };

/** A RAID config from the API as its Go struct reads it. */
export function raidOf(raid: RaidConfig | null | undefined): RaidTarget | null {
  if (!raid) return null;
  return { hardwareRAIDVolumes: raid.hardwareRAIDVolumes ?? null, softwareRAIDVolumes: raid.softwareRAIDVolumes ?? null };
}

/**
 * BMO's saveHostProvisioningSettings, RAID part: the RAID a host should have. No spec RAID (or an
 * empty one) keeps the hardware RAID status records and clears software RAID, so a host that had
 * RAID gets `{hardware: as recorded, software: []}` and one that never had any stays at none.
 */
export function desiredRaid(host: HostWithStatus): RaidTarget | null {
  const spec = raidOf(host.spec.raid);
  if (spec && (spec.hardwareRAIDVolumes !== null || spec.softwareRAIDVolumes !== null)) return spec;
  const recorded = raidOf(host.status.provisioning.raid);
  if (!recorded) return null;
  return { hardwareRAIDVolumes: recorded.hardwareRAIDVolumes?.length ? recorded.hardwareRAIDVolumes : null, softwareRAIDVolumes: [] };
}

/** True when preparing must run before the host may be provisioned (BMO's getHostProvisioningSettings dirty). */
export function provisioningSettingsChanged(host: HostWithStatus): boolean {
  return raidWouldChange(desiredRaid(host), raidOf(host.status.provisioning.raid))
    || JSON.stringify(effectiveRootDeviceHints(host) ?? null) !== JSON.stringify(host.status.provisioning.rootDeviceHints ?? null);
}

/**
 * Whether making `target` of `actual` changes anything on the host (BMO's BuildRAIDCleanSteps
 * would give steps). A software list decides alone (hardware is then ignored), and an empty one
 * over none is nothing to clear; otherwise a nil hardware list keeps what is there, and any
 * other differs unless equal. BMO compares the Go structs instead and so runs a preparing pass
 * for differences that build no step (nil against an empty list); here those cost nothing.
 */
export function raidWouldChange(target: RaidTarget | null, actual: RaidTarget | null): boolean {
  const software = target?.softwareRAIDVolumes ?? null;
  if (software !== null) return JSON.stringify(software) !== JSON.stringify(actual?.softwareRAIDVolumes ?? []);
  const hardware = target?.hardwareRAIDVolumes ?? null;
  if (hardware === null) return false;
  return JSON.stringify(hardware) !== JSON.stringify(actual?.hardwareRAIDVolumes ?? null);
}

/**
 * BMO's clearHostProvisioningSettings, after a teardown and when an available host is taken as
 * externally provisioned: the software RAID that status records is forgotten, so the next preparing
 * builds it again before a deploy (hardware RAID is kept, so it is not configured again), and so
 * are the deprecated firmware settings. BMO forgets the root device hints as well, which sends
 * every torn-down host through a preparing with nothing to do; here they stay (a deploy records
 * the hints it uses anyway).
 */
export function clearProvisioningSettings(t: Turn): void {
  const { raid, firmware } = t.status.provisioning;
  const software = raid?.softwareRAIDVolumes ?? null;
  if (software === null && firmware === undefined) return;
  const patch: Partial<BareMetalHostStatus['provisioning']> = {};
  if (raid && software !== null) patch.raid = { ...raid, softwareRAIDVolumes: null };
  if (firmware !== undefined) patch.firmware = undefined;
  t.patchProvisioning(patch);
}
