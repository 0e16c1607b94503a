import { MaasApiError } from '../http/api-error.ts';
import { hostRange } from './ipv4.ts';

/** The lowest address of the subnet not in `taken`: what MAAS hands a device or machine link (503 when none is left). */
export function firstFree(cidr: string, taken: ReadonlySet<string>): string {
  const range = hostRange(cidr);
  for (let n = range.first; n <= range.last; n++) {
    const ip = [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
    if (!taken.has(ip)) return ip;
  }
  throw new MaasApiError(503, `No more IPs available in subnet: ${cidr}.`);
}
