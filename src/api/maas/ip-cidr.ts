import { isIP } from 'node:net';

// IPv4 and IPv6 addresses and CIDRs, as a control-plane VIP and its subnet are written. Enough to
// say whether an address lies in a subnet; nothing here talks to MAAS.

export interface Cidr {
  /** The network address as given, e.g. 10.1.0.0 or fd00::. */
  readonly network: string;
  readonly prefix: number;
  readonly version: 4 | 6;
}

/** "10.1.0.0/24" or "fd00:1::/64"; null when the text is not a CIDR. */
export function parseCidr(text: string): Cidr | null {
  const m = /^([^/\s]+)\/(\d{1,3})$/.exec(text.trim());
  if (!m) return null;
  const version = isIP(m[1] ?? '');
  if (version !== 4 && version !== 6) return null;
  const prefix = Number(m[2]);
  if (prefix > (version === 4 ? 32 : 128)) return null;
  return { network: m[1] ?? '', prefix, version };
}

/** 4, 6, or 0 when the text is not an address. */
export function ipVersion(text: string): 0 | 4 | 6 {
  const v = isIP(text);
  return v === 4 || v === 6 ? v : 0;
}

function ipv4Bits(ip: string): bigint {
  return ip.split('.').reduce((n, octet) => (n << 8n) + BigInt(Number(octet)), 0n);
}

function ipv6Bits(ip: string): bigint {
  // An embedded IPv4 tail (::ffff:10.0.0.1) is two groups.
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4Bits(v4[1] ?? '');
    text = `${text.slice(0, -(v4[1] ?? '').length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) + BigInt(parseInt(g, 16)), 0n);
}

function bits(ip: string, version: 4 | 6): bigint {
  return version === 4 ? ipv4Bits(ip) : ipv6Bits(ip);
}

/** Whether `ip` lies in `cidr` (same family, same network bits). */
export function cidrContains(cidr: Cidr, ip: string): boolean {
  if (ipVersion(ip) !== cidr.version) return false;
  const width = cidr.version === 4 ? 32 : 128;
  const shift = BigInt(width - cidr.prefix);
  return bits(ip, cidr.version) >> shift === bits(cidr.network, cidr.version) >> shift;
}
