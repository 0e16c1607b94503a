import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { heldByFault, leaveMaintenanceNow, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// Tell Ironic a running host is already deployed (externally provisioned, or found again after
// Ironic lost its database): adopt, never deploy.
export async function adopt(ctx: StepContext, host: HostData, restartOnFailure: boolean): Promise<OpResult> {
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  switch (node.provision_state) {
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      if (host.spec.image?.url) {
        await ctx.client.patchNode(node.uuid, [
          { op: 'add', path: '/instance_uuid', value: host.uid },
          { op: 'add', path: '/instance_info', value: { image_source: host.spec.image.url, ...(host.spec.image.checksum ? { image_checksum: host.spec.image.checksum } : {}) } },
        ]);
      }
      await ctx.client.setProvisionState(node.uuid, 'adopt');
      return continuing(ctx.polls.shortMs);
    case 'adopting':
      return continuing(ctx.polls.shortMs);
    case 'adopt failed':
      // BMO's words (its errorMessage for a provisioned registration error), with Ironic's reason.
      if (!restartOnFailure) return failed(`Host adoption failed: ${nodeReason(node)}`);
      await ctx.client.setProvisionState(node.uuid, 'adopt');
      return continuing(ctx.polls.shortMs);
    case 'active':
      // BMO's Adopt: maintenance without a fault was set by someone (by hand, a detach that did
      // not finish), whatever its reason, and is cleared; Ironic's own (a fault) is Ironic's to clear.
      if (node.maintenance && !node.fault) await ctx.client.unsetMaintenance(node.uuid);
      return done();
    case 'enroll':
    case 'verifying':
      return needsRegistration;
    default:
      // Deploying, cleaning, available…: the node is in some other flow; the host's own state
      // handler decides what comes next.
      return done();
  }
}
