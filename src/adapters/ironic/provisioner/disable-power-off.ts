import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';

/**
 * spec.disablePowerOff onto a node created before it changed, as BMO's Register PATCHes
 * disable_power_off whenever it differs from the spec. Only at creation, a host that later asked
 * for it was still powered off by Ironic's own cleaning and deploy steps, and one that no longer
 * asked for it had every power-off refused by Ironic (a power management error that never
 * cleared). Asked before a step that may power the node off; the node as it stands after.
 * A node without the field is on an Ironic before 1.95: registration refuses a host asking for it.
 */
export async function syncDisablePowerOff(ctx: Pick<StepContext, 'client'>, host: HostData, node: IronicNode): Promise<IronicNode> {
  if (typeof node.disable_power_off !== 'boolean') return node;
  const wanted = host.spec.disablePowerOff === true;
  if (node.disable_power_off === wanted) return node;
  return ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/disable_power_off', value: wanted }]);
}
