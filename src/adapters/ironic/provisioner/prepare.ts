import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// Manual cleaning for RAID (reference/bmo.md §5.2 Prepare). A host that asks for nothing to be
// configured is prepared as soon as it is manageable.
export async function prepare(ctx: StepContext, host: HostData, restartOnFailure: boolean): Promise<OpResult> {
  const node = await findNode(ctx.client, host);
  if (!node) return needsRegistration;
  const steps = cleanSteps(host);
  switch (node.provision_state) {
    case 'available':
      if (steps.length === 0) return done();
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (steps.length === 0 || ctx.cleaning.delete(node.uuid)) return done();
      if (host.spec.raid) {
        await ctx.client.patchNode(node.uuid, [{ op: 'add', path: '/target_raid_config', value: targetRaid(host) }]);
      }
      await ctx.client.setProvisionState(node.uuid, 'clean', { cleanSteps: steps });
      ctx.cleaning.add(node.uuid);
      return continuing(ctx.polls.longMs);
    case 'cleaning':
    case 'clean wait':
      return continuing(ctx.polls.longMs);
    case 'clean failed':
      ctx.cleaning.delete(node.uuid);
      if (!restartOnFailure) return failed(`cleaning failed: ${node.last_error ?? 'Ironic gave no reason'}`);
      if (node.maintenance) await ctx.client.unsetMaintenance(node.uuid);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    default:
      return continuing(ctx.polls.shortMs);
  }
}

function cleanSteps(host: HostData): Array<Record<string, unknown>> {
  const raid = host.spec.raid;
  if (!raid || (!raid.hardwareRAIDVolumes?.length && !raid.softwareRAIDVolumes?.length)) return [];
  return [
    { interface: 'raid', step: 'delete_configuration' },
    { interface: 'raid', step: 'create_configuration' },
  ];
}

function targetRaid(host: HostData): Record<string, unknown> {
  const raid = host.spec.raid;
  const logical = [
    ...(raid?.hardwareRAIDVolumes ?? []).map((v) => ({ raid_level: v.level, size_gb: v.sizeGibibytes ?? 'MAX', ...(v.name ? { volume_name: v.name } : {}), ...(v.controller ? { controller: v.controller } : {}), ...(v.physicalDisks ? { physical_disks: v.physicalDisks } : {}) })),
    ...(raid?.softwareRAIDVolumes ?? []).map((v) => ({ raid_level: v.level, size_gb: v.sizeGibibytes ?? 'MAX', controller: 'software' })),
  ];
  return { logical_disks: logical };
}
