import { isIPv4 } from 'node:net';

// IPv4 CIDR arithmetic for subnets (the simulated networks are IPv4 only).

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function toText(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** "10.1.2.3/24" → "10.1.2.0/24" (MAAS stores the network address); undefined if not a CIDR. */
export function parseCidr(text: string): string | undefined {
  const m = /^\s*([\d.]+)\/(\d{1,2})\s*$/.exec(text);
  if (!m || !isIPv4(m[1] ?? '')) return undefined;
  const prefix = Number(m[2]);
  if (prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const network = Math.floor(toNumber(m[1] ?? '') / size) * size;
  return `${toText(network)}/${prefix}`;
}

export function cidrContains(cidr: string, ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const [base = '', prefixText = '32'] = cidr.split('/');
  const size = 2 ** (32 - Number(prefixText));
  return Math.floor(toNumber(ip) / size) === Math.floor(toNumber(base) / size);
}

/** Usable host addresses of a subnet (network and broadcast excluded below /31). */
export function hostCount(cidr: string): number {
  const prefix = Number(cidr.split('/')[1] ?? '32');
  const size = 2 ** (32 - prefix);
  return prefix >= 31 ? size : size - 2;
}

/** The first and last host address of a subnet, as numbers and as text. */
export function hostRange(cidr: string): { first: number; last: number; firstText: string; lastText: string; toNumber: (ip: string) => number } {
  const [base = '', prefixText = '32'] = cidr.split('/');
  const prefix = Number(prefixText);
  const size = 2 ** (32 - prefix);
  const network = toNumber(base);
  const first = prefix >= 31 ? network : network + 1;
  const last = prefix >= 31 ? network + size - 1 : network + size - 2;
  return { first, last, firstText: toText(first), lastText: toText(last), toNumber };
}
