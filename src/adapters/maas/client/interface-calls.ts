import { z } from 'zod';
import type { Call, Send } from './call.ts';
import { invalid, parse } from './call.ts';
import { checkSystemId } from './checks.ts';
import { formPairs } from './form.ts';

// A node's interfaces and their links to subnets (api/interfaces.py): read them, link_subnet,
// unlink_subnet. On a machine MAAS allows these only while it is New, Ready, Allocated or Broken
// (409 otherwise), and only for an admin (403).

const LinkSubnet = z.looseObject({ id: z.number().int(), cidr: z.string(), name: z.string().optional() });

export const InterfaceLink = z.looseObject({
  id: z.number().int(),
  /** auto, dhcp, static or link_up. */
  mode: z.string(),
  subnet: LinkSubnet.optional(),
  ip_address: z.string().optional(),
});
export type InterfaceLink = z.infer<typeof InterfaceLink>;

export const MaasInterface = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
  mac_address: z.string().nullable().optional(),
  links: z.array(InterfaceLink),
});
export type MaasInterface = z.infer<typeof MaasInterface>;

export type LinkMode = 'auto' | 'dhcp' | 'static' | 'link_up';

export interface LinkSubnetOptions {
  mode: LinkMode;
  /** The subnet's id, name or CIDR. */
  subnet?: string;
  /** STATIC only; MAAS picks a free address in the subnet when unset. */
  ipAddress?: string;
  /** Make the subnet's gateway the node's default gateway (AUTO and STATIC only). */
  defaultGateway?: boolean;
  force?: boolean;
}

export interface InterfaceCalls {
  /** GET /nodes/{id}/interfaces/. */
  listInterfaces(systemId: string): Promise<MaasInterface[]>;
  /** POST /nodes/{id}/interfaces/{nic}/ op=link_subnet: answers the interface as it is after. */
  linkSubnet(systemId: string, nic: number | string, o: LinkSubnetOptions): Promise<MaasInterface>;
  /** POST /nodes/{id}/interfaces/{nic}/ op=unlink_subnet id=<link id>. */
  unlinkSubnet(systemId: string, nic: number | string, linkId: number): Promise<MaasInterface>;
}

function nicCall(systemId: string, nic: number | string, op: string, form: ReturnType<typeof formPairs>): Call {
  return {
    method: 'POST', path: `/nodes/${encodeURIComponent(systemId)}/interfaces/${encodeURIComponent(String(nic))}/`,
    route: `POST /nodes/{id}/interfaces/{id}/ op=${op}`, op, form,
  };
}

export function interfaceCalls(request: Send): InterfaceCalls {
  return {
    async listInterfaces(systemId) {
      const c: Call = { method: 'GET', path: `/nodes/${encodeURIComponent(systemId)}/interfaces/`, route: 'GET /nodes/{id}/interfaces/' };
      checkSystemId(c, systemId);
      return parse(c, z.array(MaasInterface), await request(c));
    },

    async linkSubnet(systemId, nic, o) {
      const c = nicCall(systemId, nic, 'link_subnet', formPairs({
        op: 'link_subnet', mode: o.mode.toUpperCase(), subnet: o.subnet, ip_address: o.ipAddress, default_gateway: o.defaultGateway, force: o.force,
      }));
      checkSystemId(c, systemId);
      if (o.ipAddress !== undefined && o.mode !== 'static') throw invalid(c, `ipAddress is taken with mode static only, not ${o.mode}`);
      return parse(c, MaasInterface, await request(c));
    },

    async unlinkSubnet(systemId, nic, linkId) {
      const c = nicCall(systemId, nic, 'unlink_subnet', formPairs({ op: 'unlink_subnet', id: linkId }));
      checkSystemId(c, systemId);
      return parse(c, MaasInterface, await request(c));
    },
  };
}
