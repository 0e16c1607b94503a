import type { CallArgs, OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { heldByFault, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';
import { raidCleanSteps, targetRaidConfig } from './raid-steps.ts';

// Manual cleaning for RAID (reference/bmo.md §5.2 Prepare). A host that asks for nothing to be
// configured is prepared as soon as it is manageable.
export async function prepare(ctx: StepContext, host: HostData, args: Extract<CallArgs, { op: 'prepare' }>): Promise<OpResult> {
  const { restartOnFailure } = args;
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  // A retry after a failed clean does not trust what the failed attempt left (BMO: ActualRAID nil).
  const steps = raidCleanSteps(args.raid.target, restartOnFailure ? null : args.raid.actual);
  if (node.raid_interface === 'no-raid' && (args.raid.target?.hardwareRAIDVolumes?.length ?? 0) > 0) {
    return failed(`RAID settings are defined, but the node's driver ${node.driver} does not support RAID`, null);
  }
  switch (node.provision_state) {
    case 'available':
      if (steps.length === 0) return done();
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (steps.length === 0 || ctx.cleaning.delete(node.uuid)) return done();
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (steps.some((s) => s.step === 'create_configuration')) await ctx.client.setTargetRaidConfig(node.uuid, targetRaidConfig(args.raid.target));
      await ctx.client.setProvisionState(node.uuid, 'clean', { cleanSteps: steps });
      ctx.cleaning.add(node.uuid);
      return continuing(ctx.polls.longMs);
    case 'cleaning':
    case 'clean wait':
      return continuing(ctx.polls.longMs);
    case 'clean failed':
      ctx.cleaning.delete(node.uuid);
      if (!restartOnFailure) return failed(`cleaning failed: ${nodeReason(node)}`);
      if (node.maintenance) await ctx.client.unsetMaintenance(node.uuid);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    default:
      return continuing(ctx.polls.shortMs);
  }
}
