import type { ListAll } from './answers.ts';
import { orNullOn404, parse } from './answers.ts';
import type { Call, Send } from './call.ts';
import { IronicPort, PortList } from './port.ts';

// The calls on /v1/ports.

export interface PortCalls {
  createPort(p: { nodeUuid: string; address: string; pxeEnabled?: boolean }): Promise<IronicPort>;
  /** With `node`, the ports of that node ([] when the node is gone); with `address`, the port with that MAC. */
  listPorts(q: { node?: string; address?: string }): Promise<IronicPort[]>;
}

export function portCalls({ request, listAll }: { readonly request: Send; readonly listAll: ListAll }): PortCalls {
  return {
    async createPort(p) {
      const body = { node_uuid: p.nodeUuid, address: p.address.toLowerCase(), ...(p.pxeEnabled === undefined ? {} : { pxe_enabled: p.pxeEnabled }) };
      const c: Call = { method: 'POST', path: '/v1/ports', route: 'POST /v1/ports', body };
      return parse(c, IronicPort, await request(c));
    },

    async listPorts(q) {
      const params = new URLSearchParams({ detail: 'true' });
      // Ironic ignores `address` when `node` is given, so the address is then matched here.
      if (q.node !== undefined) params.set('node', q.node);
      else if (q.address !== undefined) params.set('address', q.address.toLowerCase());
      const ports = await orNullOn404(() => listAll('GET /v1/ports', `/v1/ports?${params.toString()}`, PortList, (p) => p.ports));
      const all = (ports ?? []) as IronicPort[];
      const address = q.address?.toLowerCase();
      return address === undefined ? all : all.filter((p) => p.address.toLowerCase() === address);
    },
  };
}
