import { formatEventTime } from '../fleet/events-query.ts';
import { cidrContains } from './ipv4.ts';
import type { Params } from '../http/params.ts';
import { parseStringBool } from '../http/params.ts';
import { validationError } from '../http/api-error.ts';

// GET /subnets/{id}/?op=ip_addresses: Subnet.render_json_for_related_ips, one entry per address in
// use in the subnet, sorted by address; with_username and with_summary (default true) add the
// user and the node / DNS resource holding it.

/** IPADDRESS_TYPE: how the address was given. */
export const AllocType = { auto: 0, sticky: 1, userReserved: 4 } as const;

export interface AddressHolder {
  readonly ip: string;
  readonly allocType: number;
  readonly user: string | null;
  /** ms on the simulator's clock. */
  readonly created: number;
  readonly node?: { systemId: string; nodeType: number; fqdn: string; hostname: string; isContainer: boolean; via: string };
  readonly dns?: { id: number; name: string; domain: string };
}

function flag(params: Params, key: string): boolean {
  const text = params.get(key);
  if (text === undefined) return true;
  const value = parseStringBool(text);
  if (value === undefined) throw validationError({ [key]: ["Value should be 'true' or 'false'"] });
  return value;
}

function ipOrder(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

export function subnetIpAddresses(cidr: string, holders: readonly AddressHolder[], params: Params) {
  const withUsername = flag(params, 'with_username');
  // with_node_summary=false is the older spelling of with_summary=false.
  const withSummary = flag(params, 'with_summary') && flag(params, 'with_node_summary');
  return holders
    .filter((h) => cidrContains(cidr, h.ip))
    .sort((a, b) => ipOrder(a.ip) - ipOrder(b.ip))
    .map((h) => {
      const time = formatEventTime(h.created);
      const entry: Record<string, unknown> = { ip: h.ip, alloc_type: h.allocType, created: time, updated: time };
      if (withUsername && h.user !== null) entry.user = h.user;
      if (withSummary && h.node) {
        entry.node_summary = { system_id: h.node.systemId, node_type: h.node.nodeType, fqdn: h.node.fqdn, hostname: h.node.hostname, is_container: h.node.isContainer, via: h.node.via };
      }
      if (withSummary && h.dns) entry.dns_records = [{ id: h.dns.id, name: h.dns.name, domain: h.dns.domain }];
      return entry;
    });
}
