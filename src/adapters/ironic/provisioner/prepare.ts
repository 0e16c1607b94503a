import type { CallArgs, OpResult } from '../../../machines/bmh/index.ts';
import { parseBmcAddress } from '../../../api/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { firmwareShortfall, firmwareStepsFor } from './firmware-plan.ts';
import { heldByFault, leaveMaintenanceNow, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';
import { raidCleanSteps, raidConfigProblem, raidInterfaceFor, targetRaidConfig } from './raid-steps.ts';

// Manual cleaning for RAID, BIOS settings and firmware updates (reference/bmo.md §5.2 Prepare;
// BMO's Prepare and buildManualCleaningSteps, pkg/provisioner/ironic/ironic.go). A host that asks
// for nothing to be configured is prepared as soon as it is manageable.
export async function prepare(ctx: StepContext, host: HostData, args: Extract<CallArgs, { op: 'prepare' }>): Promise<OpResult> {
  const { restartOnFailure } = args;
  const cannot = await firmwareShortfall(ctx, args.firmware);
  if (cannot) return cannot;
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  // A retry after a failed clean does not trust what the failed attempt left (BMO: ActualRAID nil).
  const actualRaid = restartOnFailure ? null : args.raid.actual;
  const raidSteps = raidCleanSteps(args.raid.target, actualRaid);
  const driverRaid = driverRaidInterface(ctx, host, node);
  if (driverRaid === 'no-raid' && (args.raid.target?.hardwareRAIDVolumes?.length ?? 0) > 0) {
    return failed(`RAID settings are defined, but the node's driver ${node.driver} does not support RAID`, null);
  }
  // A config error: retrying cannot help until the spec changes.
  const raidProblem = raidConfigProblem(args.raid.target);
  if (raidProblem) return failed(raidProblem, null);
  // The BIOS is read only where a clean may start: not while one runs or has just finished.
  const settled = (node.provision_state === 'available' || node.provision_state === 'manageable') && !node.target_provision_state && !ctx.cleaning.has(node.uuid);
  const fw = settled ? await firmwareStepsFor(ctx, node, args.firmware) : { steps: [] };
  if ('refused' in fw) return fw.refused;
  const steps = [...raidSteps, ...fw.steps];
  switch (node.provision_state) {
    case 'available':
      if (steps.length === 0) return done();
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      // Our clean finished (its mark is dropped either way), or there is nothing to clean.
      if (ctx.cleaning.delete(node.uuid) || steps.length === 0) return done();
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      if (steps.some((s) => s.step === 'create_configuration')) {
        // Ironic cannot change the interface mid-clean, so it is set before the clean starts.
        // Nodes on the fake-hardware override keep their fake interface: no ramdisk runs there.
        const raidInterface = ctx.override ? node.raid_interface ?? '' : raidInterfaceFor(driverRaid, args.raid.target, actualRaid);
        if (raidInterface !== (node.raid_interface ?? '')) await ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/raid_interface', value: raidInterface }]);
        await ctx.client.setTargetRaidConfig(node.uuid, targetRaidConfig(args.raid.target, args.rootDeviceHints));
      }
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

// The raid interface the host's BMC type gives (BMO's bmcAccess.RAIDInterface()), not the node's,
// which stays 'agent' after software RAID was built: hardware RAID then goes back to the driver's.
function driverRaidInterface(ctx: StepContext, host: HostData, node: IronicNode): string {
  if (ctx.override) return 'fake';
  const bmc = parseBmcAddress(host.spec.bmc?.address ?? '');
  return bmc.ok ? bmc.bmc.interfaces.raid : (node.raid_interface ?? '');
}
