import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';

// BMO names nodes "<namespace>~<name>" so one Ironic can serve hosts of many namespaces.
export function nodeName(host: Pick<HostData, 'namespace' | 'name'>): string {
  return `${host.namespace}~${host.name}`;
}

/**
 * The host's name onto an existing node that lacks it, as BMO's Register PATCHes name on every
 * node it updates: a node enrolled by hand and found by its boot MAC, or one renamed in Ironic.
 * Named, the node is found by name again after the host's stored ID is lost (a restored Ironic
 * database gives new UUIDs), and it is no longer taken for a stranger's nameless node.
 */
export async function syncNodeName(ctx: Pick<StepContext, 'client'>, host: HostData, node: IronicNode): Promise<IronicNode> {
  const wanted = nodeName(host);
  if (node.name === wanted) return node;
  return ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/name', value: wanted }]);
}
