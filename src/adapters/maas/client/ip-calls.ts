import { isIP } from 'node:net';
import { z } from 'zod';
import type { Call, Send } from './call.ts';
import { invalid, parse } from './call.ts';
import { MaasError } from './errors.ts';
import { formPairs } from './form.ts';

// The calls on /ipaddresses/ (MAAS's IPAddressesHandler): addresses reserved for use outside
// MAAS, as a control-plane VIP is. Reservations are the key's user's own (USER_RESERVED).

export const IpAddress = z.looseObject({
  ip: z.string(),
  alloc_type: z.number().int(),
  alloc_type_name: z.string().optional(),
  subnet: z.looseObject({ cidr: z.string() }).nullable().optional(),
});
export type IpAddress = z.infer<typeof IpAddress>;

const IpAddressList = z.array(IpAddress);

export interface ReserveIp {
  /** The subnet, as MAAS takes a specifier: its CIDR, id or name. */
  subnet: string;
  /** A given address; MAAS picks a free one of the subnet when absent. */
  ip?: string;
  /** "name.domain" (or a bare name in the default domain): MAAS puts the address in that DNS name until it is released. */
  hostname?: string;
}

export interface IpCalls {
  /** The key's user's reserved addresses, or the one given. */
  listIpAddresses(q?: { ip?: string }): Promise<IpAddress[]>;
  reserveIp(r: ReserveIp): Promise<IpAddress>;
  /** True when released; false when MAAS holds no such reservation of this user (already released). */
  releaseIp(ip: string): Promise<boolean>;
}

function checkIp(c: Call, ip: string | undefined): void {
  if (ip !== undefined && isIP(ip) === 0) throw invalid(c, `ip must be an IPv4 or IPv6 address, not ${JSON.stringify(ip)}`);
}

export function ipCalls(request: Send): IpCalls {
  return {
    async listIpAddresses(q = {}) {
      const c: Call = { method: 'GET', path: '/ipaddresses/', route: 'GET /ipaddresses/', query: formPairs({ ip: q.ip }) };
      checkIp(c, q.ip);
      return parse(c, IpAddressList, await request(c));
    },

    async reserveIp(r) {
      const c: Call = {
        method: 'POST', path: '/ipaddresses/', route: 'POST /ipaddresses/ op=reserve', op: 'reserve',
        form: formPairs({ op: 'reserve', subnet: r.subnet, ip: r.ip, hostname: r.hostname }),
      };
      if (typeof r.subnet !== 'string' || r.subnet.trim() === '') throw invalid(c, 'subnet is required: the CIDR, id or name of a MAAS subnet');
      checkIp(c, r.ip);
      return parse(c, IpAddress, await request(c));
    },

    async releaseIp(ip) {
      const c: Call = { method: 'POST', path: '/ipaddresses/', route: 'POST /ipaddresses/ op=release', op: 'release', form: formPairs({ op: 'release', ip }) };
      checkIp(c, ip);
      try {
        await request(c);
        return true;
      } catch (err) {
        // MAAS answers 400 "IP address X does not exist, is not the correct type of address, or
        // does not belong to the requesting user." for a reservation already gone.
        if (err instanceof MaasError && err.status === 400 && err.maasMessage.includes('does not exist')) return false;
        throw err;
      }
    },
  };
}
