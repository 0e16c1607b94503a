import type { OpResult } from '../../../machines/bmh/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { continuing, failed } from './outcome.ts';

/** What Ironic says went wrong with a node: its last_error, with its fault when it set one. */
export function nodeReason(node: IronicNode): string {
  const error = node.last_error?.trim() || 'Ironic gave no reason';
  return node.fault ? `${error} (Ironic fault: ${node.fault})` : error;
}

/**
 * A node Ironic itself put in maintenance (its `fault`: power failure, clean failure, rescue
 * abort failure, service failure) takes no provision state change: Ironic refuses it, and
 * clearing the maintenance would hide the fault. BMO waits without a word (retryAfterDelay);
 * the host's status says why here, and the attempt is repeated after `retryMs`. Callers ask it
 * where `node.fault` is set.
 */
export function heldByFault(node: IronicNode, retryMs: number): OpResult {
  const why = node.maintenance_reason?.trim() || node.last_error?.trim();
  return failed(`Ironic holds node ${node.name ?? node.uuid} in maintenance with fault "${node.fault ?? ''}"${why ? `: ${why}` : ''}; retrying once Ironic clears it`, retryMs);
}

/**
 * A node in maintenance without a fault (set by hand, or left by a detach that did not get to
 * delete it) is taken out of maintenance before a provision state change, as BMO's
 * tryChangeNodeProvisionState does: Ironic refuses a deployment in maintenance (400 "... because
 * it's in maintenance mode"), and the host failed that way, with backoff, until someone cleared it
 * by hand. Callers ask it where `node.maintenance` is set and `node.fault` is not (heldByFault).
 */
export async function leaveMaintenanceNow(ctx: Pick<StepContext, 'client' | 'polls'>, node: IronicNode): Promise<OpResult> {
  await ctx.client.unsetMaintenance(node.uuid);
  return continuing(ctx.polls.shortMs);
}
