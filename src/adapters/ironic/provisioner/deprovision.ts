import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { syncDisablePowerOff } from './disable-power-off.ts';
import { heldByFault, leaveMaintenanceNow, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// reference/bmo.md §5.2 Deprovision: undeploy (with automated cleaning as the host asks) until the
// node is available again.
export async function deprovision(ctx: StepContext, host: HostData, o: { restartOnFailure: boolean; automatedCleaning: boolean }): Promise<OpResult> {
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  switch (node.provision_state) {
    // Rescued (by hand, at Ironic) or failing to be, a node undeploys with "deleted" too (states.py).
    case 'active':
    case 'deploy failed':
    case 'wait call-back':
    case 'rescue':
    case 'rescue wait':
    case 'rescue failed':
    case 'unrescue failed':
      if (node.target_provision_state && node.provision_state === 'active') return continuing(ctx.polls.shortMs);
      if (node.provision_state !== 'deploy failed') if (node.fault) return heldByFault(node, ctx.polls.longMs);
      await syncDisablePowerOff(ctx, host, node);
      await ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/automated_clean', value: o.automatedCleaning }]);
      await ctx.client.setProvisionState(node.uuid, 'deleted');
      return continuing(ctx.polls.shortMs);
    case 'error':
      if (!o.restartOnFailure) return failed(`deprovisioning failed: ${nodeReason(node)}`);
      await ctx.client.setProvisionState(node.uuid, 'deleted');
      return continuing(ctx.polls.shortMs);
    // A failed adoption has no deployment of Ironic's to undo: manage, then provide cleans it.
    case 'adopt failed':
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'clean failed':
      if (!o.restartOnFailure) return failed(`cleaning failed: ${nodeReason(node)}`);
      if (node.maintenance) await ctx.client.unsetMaintenance(node.uuid);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      await syncDisablePowerOff(ctx, host, node);
      await ctx.client.setProvisionState(node.uuid, 'provide');
      return continuing(ctx.polls.shortMs);
    case 'available':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      return done();
    case 'enroll':
      // Never got as far as manageable (re-registered after a lost database): nothing deployed.
      return done();
    default:
      return continuing(ctx.polls.longMs);
  }
}
