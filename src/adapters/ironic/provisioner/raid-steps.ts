import type { RaidTarget } from '../../../api/index.ts';
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

/** Ironic's target_raid_config for `target`: the logical disks create_configuration builds. */
export function targetRaidConfig(target: RaidTarget | null): Record<string, unknown> {
  const software = target?.softwareRAIDVolumes;
  if (software != null) {
    return { logical_disks: software.map((v, i) => ({ raid_level: v.level, size_gb: v.sizeGibibytes ?? 'MAX', controller: 'software', ...(v.rootVolume === true || (v.rootVolume === undefined && i === 0) ? { is_root_volume: true } : {}) })) };
  }
  return {
    logical_disks: (target?.hardwareRAIDVolumes ?? []).map((v, i) => ({
      raid_level: v.level,
      size_gb: v.sizeGibibytes ?? 'MAX',
      ...(i === 0 ? { is_root_volume: true } : {}),
      ...(v.name ? { volume_name: v.name } : {}),
      ...(v.controller ? { controller: v.controller } : {}),
      ...(v.physicalDisks ? { physical_disks: v.physicalDisks } : {}),
      ...(v.rotational !== undefined ? { disk_type: v.rotational ? 'hdd' : 'ssd' } : {}),
      ...(v.numberOfPhysicalDisks !== undefined ? { number_of_physical_disks: v.numberOfPhysicalDisks } : {}),
    })),
  };
}
