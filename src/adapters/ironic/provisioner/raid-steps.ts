import type { RaidTarget, RootDeviceHints } from '../../../api/index.ts';
import { raidWouldChange } from '../../../machines/bmh/index.ts';

type CleanStep = Readonly<Record<string, unknown>>;

/**
 * The manual clean steps that take a node from `actual` RAID to `target` (BMO's
 * BuildRAIDCleanSteps). Software RAID wins when the target names a software list: an empty one
 * deletes what exists (with the disks' metadata), a non-empty one is rebuilt. Otherwise a nil
 * hardware list keeps the controller's volumes, an empty one deletes them, and a different one
 * is deleted and created. No change, no steps.
 */
export function raidCleanSteps(target: RaidTarget | null, actual: RaidTarget | null): CleanStep[] {
  if (!raidWouldChange(target, actual)) return [];
  const software = target?.softwareRAIDVolumes ?? null;
  // Software RAID lives in the disks' metadata, which goes with it.
  const clear = software !== null
    ? [{ interface: 'raid', step: 'delete_configuration' }, { interface: 'deploy', step: 'erase_devices_metadata' }]
    : [{ interface: 'raid', step: 'delete_configuration' }];
  const wanted = software ?? target?.hardwareRAIDVolumes ?? [];
  return wanted.length === 0 ? clear : [...clear, { interface: 'raid', step: 'create_configuration' }];
}

/**
 * The raid_interface a node needs to build `target` (BMO's CheckRAIDInterface): software RAID,
 * asked for or being removed, is the agent's (the ramdisk runs mdadm); otherwise the driver's.
 */
export function raidInterfaceFor(current: string, target: RaidTarget | null, actual: RaidTarget | null): string {
  if (!target) return current;
  if ((target.softwareRAIDVolumes?.length ?? 0) > 0 || (actual?.softwareRAIDVolumes?.length ?? 0) > 0) return 'agent';
  return current;
}

/**
 * Why Ironic must not be asked to build `target`, or null (BMO's buildTargetHardwareRAIDCfg and
 * buildTargetSoftwareRAIDCfg). The host deploys to the first software volume, so it must be a
 * mirror to survive a disk failure; the schema already bounds the rest of software RAID (at most
 * two volumes, levels 0/1/1+0, two or more disks each).
 */
export function raidConfigProblem(target: RaidTarget | null): string | null {
  const named = new Map<string, number>();
  for (const [i, v] of (target?.hardwareRAIDVolumes ?? []).entries()) {
    const path = `spec.raid.hardwareRAIDVolumes[${i}]`;
    const earlier = v.name ? named.get(v.name) : undefined;
    if (earlier !== undefined) return `${path}.name ${JSON.stringify(v.name)} is also the name of volume ${earlier}: give each hardware RAID volume its own name`;
    if (v.name) named.set(v.name, i);
    const disks = v.physicalDisks?.length ?? 0;
    if (disks > 0 && !v.controller) return `${path}.controller is required when physicalDisks are given: name the RAID controller`;
    if (disks > 0 && v.numberOfPhysicalDisks !== undefined && v.numberOfPhysicalDisks !== disks) {
      return `${path}.numberOfPhysicalDisks is ${v.numberOfPhysicalDisks} but physicalDisks lists ${disks}: make them agree`;
    }
  }
  const first = target?.softwareRAIDVolumes?.[0];
  if (!first || first.level === '1') return null;
  return `spec.raid.softwareRAIDVolumes[0].level is "${first.level}": the first software RAID volume must be RAID level 1 (the host deploys to it); change it to "1"`;
}

/**
 * Ironic's target_raid_config for `target`: the logical disks create_configuration builds (BMO's
 * setTargetRAIDCfg). Software volumes say whether each is the root volume (rootVolume, false by
 * default); the first volume is made the root only when no volume is and no root device hints
 * apply, which otherwise pick the disk. `rootDeviceHints` are the prepare call's (BMO's
 * PrepareData.RootDeviceHints: status's hints, the hardware profile's when the spec gives none,
 * `{}` for the "empty" profile). A host with a known profile thus always has hints, unless a
 * software volume is its root (which is then marked itself), and BMO marks no default volume.
 */
export function targetRaidConfig(target: RaidTarget | null, rootDeviceHints: RootDeviceHints | undefined): Record<string, unknown> {
  const software = target?.softwareRAIDVolumes;
  const disks: Record<string, unknown>[] = software != null
    ? software.map((v) => ({
      raid_level: v.level,
      size_gb: v.sizeGibibytes ?? 'MAX',
      controller: 'software',
      is_root_volume: v.rootVolume === true,
      ...(v.physicalDisks ? { physical_disks: v.physicalDisks.map(diskHints) } : {}),
    }))
    : (target?.hardwareRAIDVolumes ?? []).map((v) => ({
      raid_level: v.level,
      size_gb: v.sizeGibibytes ?? 'MAX',
      ...(v.name ? { volume_name: v.name } : {}),
      ...(v.controller ? { controller: v.controller } : {}),
      ...(v.physicalDisks ? { physical_disks: v.physicalDisks } : {}),
      ...(v.rotational !== undefined ? { disk_type: v.rotational ? 'hdd' : 'ssd' } : {}),
      ...(v.numberOfPhysicalDisks !== undefined ? { number_of_physical_disks: v.numberOfPhysicalDisks } : {}),
    }));
  const rootVolumes = (software ?? []).filter((v) => v.rootVolume === true).length;
  const [first] = disks;
  if (first && rootDeviceHints === undefined && rootVolumes === 0) first['is_root_volume'] = true;
  return { logical_disks: disks };
}

/**
 * One software RAID disk as Ironic's device hints, with the operators BMO's MakeHintMap gives:
 * exact string match (`s==`), substring for model and vendor (`<in>`), a minimum size. A zero
 * size is unset, as in BMO's Go struct.
 */
function diskHints(h: RootDeviceHints): Record<string, string> {
  const out: Record<string, string> = {};
  if (h.deviceName) out[h.deviceName.startsWith('/dev/disk/by-path/') ? 'by_path' : 'name'] = `s== ${h.deviceName}`;
  if (h.hctl) out['hctl'] = `s== ${h.hctl}`;
  if (h.model) out['model'] = `<in> ${h.model}`;
  if (h.vendor) out['vendor'] = `<in> ${h.vendor}`;
  if (h.serialNumber) out['serial'] = `s== ${h.serialNumber}`;
  if (h.minSizeGigabytes) out['size'] = `>= ${String(h.minSizeGigabytes)}`;
  if (h.wwn) out['wwn'] = `s== ${h.wwn}`;
  if (h.wwnWithExtension) out['wwn_with_extension'] = `s== ${h.wwnWithExtension}`;
  if (h.wwnVendorExtension) out['wwn_vendor_extension'] = `s== ${h.wwnVendorExtension}`;
  if (h.rotational !== undefined) out['rotational'] = String(h.rotational);
  return out;
}
