import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { nodeName } from './node-name.ts';

/** What a lookup found: the host's node, or none, and a named node that holds its boot MAC. */
export interface NodeLookup {
  readonly node: IronicNode | null;
  /**
   * Found by the boot MAC's port but named: another host's node (had it been this host's, the name
   * lookup would have found it). Never this host's node; register reports it (BMO's
   * macAddressConflictError), every other call takes the host's node as missing.
   */
  readonly macHeldBy?: IronicNode;
}

// BMO's lookup order (findExistingHost): the ID we stored, then the node name, then the port of
// the boot MAC (a node enrolled by hand without a name). A node found by MAC that has a name was
// taken over as this host's before, and was then written, fenced and deleted as if it were.
// A call's first lookup takes the node the owner fence has just read (ctx.prefound), rather than
// asking Ironic for it twice in one poll.
export async function lookupNode(ctx: Pick<StepContext, 'client' | 'prefound'>, host: HostData): Promise<NodeLookup> {
  const pre = ctx.prefound;
  if (pre && !pre.used) {
    pre.used = true;
    return pre.macHeldBy ? { node: pre.node, macHeldBy: pre.macHeldBy } : { node: pre.node };
  }
  const client = ctx.client;
  if (host.provisionerId) {
    const byId = await client.getNode(host.provisionerId);
    if (byId) return { node: byId };
  }
  const byName = await client.getNode(nodeName(host));
  if (byName) return { node: byName };
  const mac = host.spec.bootMACAddress;
  if (!mac) return { node: null };
  const ports = await client.listPorts({ address: mac.toLowerCase() });
  const port = ports[0];
  const byMac = port ? await client.getNode(port.node_uuid) : null;
  if (byMac?.name) return { node: null, macHeldBy: byMac };
  return { node: byMac };
}

/** The host's node, or null when Ironic has none (a named node holding its MAC is not its). */
export async function findNode(ctx: Pick<StepContext, 'client' | 'prefound'>, host: HostData): Promise<IronicNode | null> {
  return (await lookupNode(ctx, host)).node;
}
