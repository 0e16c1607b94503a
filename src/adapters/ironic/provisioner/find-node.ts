import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { nodeName } from './node-name.ts';

// BMO's lookup order: the ID we stored, then the node name, then the port of the boot MAC (a
// node enrolled by hand, or before the name was set).
// A call's first lookup takes the node the owner fence has just read (ctx.prefound), rather than
// asking Ironic for it twice in one poll.
export async function findNode(ctx: Pick<StepContext, 'client' | 'prefound'>, host: HostData): Promise<IronicNode | null> {
  const pre = ctx.prefound;
  if (pre && !pre.used) {
    pre.used = true;
    return pre.node;
  }
  const client = ctx.client;
  if (host.provisionerId) {
    const byId = await client.getNode(host.provisionerId);
    if (byId) return byId;
  }
  const byName = await client.getNode(nodeName(host));
  if (byName) return byName;
  const mac = host.spec.bootMACAddress;
  if (!mac) return null;
  const ports = await client.listPorts({ address: mac.toLowerCase() });
  const port = ports[0];
  return port ? client.getNode(port.node_uuid) : null;
}
