import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import { versionSupports } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { continuing, done } from './outcome.ts';

const BUSY = new Set(['verifying', 'inspecting', 'cleaning', 'deploying', 'deleting', 'adopting', 'rescuing', 'unrescuing', 'servicing']);
const WAITS = new Set(['inspect wait', 'clean wait', 'service wait', 'wait call-back']);

// reference/bmo.md §5.2 Delete and Detach: take the node out of Ironic. Detach leaves the machine
// as it is (an active node goes into maintenance first so Ironic lets go without undeploying).
export async function removeNode(ctx: StepContext, host: HostData, force: boolean): Promise<OpResult> {
  const node = await findNode(ctx, host);
  if (!node) return done();
  const state = node.provision_state;
  if (BUSY.has(state)) return continuing(ctx.polls.shortMs);
  // Ironic before 1.110 refuses to abort a deployment waiting for the agent (wait call-back);
  // there the node goes into maintenance and is deleted like any other busy node.
  if (WAITS.has(state)) {
    if (!force) return continuing(ctx.polls.longMs);
    const abortable = state !== 'wait call-back' || versionSupports((await ctx.client.negotiated()).version, 'deploy-abort');
    if (abortable) {
      await ctx.client.setProvisionState(node.uuid, 'abort');
      return continuing(ctx.polls.shortMs);
    }
  }
  if (state === 'available' || state === 'manageable') {
    if (node.instance_uuid) await ctx.client.patchNode(node.uuid, [{ op: 'remove', path: '/instance_uuid' }]);
  } else if (state !== 'enroll' && !node.maintenance) {
    await ctx.client.setMaintenance(node.uuid, 'removed by metalfleet');
  }
  await ctx.client.deleteNode(node.uuid);
  return done();
}
