import type { HostData } from '../../../ports/index.ts';
import type { IronicClient, IronicNode } from '../client/index.ts';
import { nodeName } from './node-name.ts';

// BMO's lookup order: the ID we stored, then the node name, then the port of the boot MAC (a
// node enrolled by hand, or before the name was set).
export async function findNode(client: IronicClient, host: HostData): Promise<IronicNode | null> {
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
