import { cidrContains, hostRange } from './ipv4.ts';

// subnets/{id}/ op=reserved_ip_ranges and op=unreserved_ip_ranges: Subnet.get_ipranges_in_use and
// get_ipranges_not_in_use rendered as MAASIPSet does. The used ranges are sorted, overlapping ones
// merged (their purposes joined), then adjacent ones of the same purposes joined; the unused are
// the gaps between them over the subnet's hosts (network and broadcast left out).

export interface UsageInput {
  readonly cidr: string;
  readonly gatewayIp: string | null;
  readonly dnsServers: readonly string[];
  /** Every allocated address (StaticIPAddress rows), in any subnet. */
  readonly assigned: readonly string[];
  readonly ranges: ReadonlyArray<{ readonly startIp: string; readonly endIp: string; readonly type: string }>;
}

interface Span {
  first: number;
  last: number;
  purpose: Set<string>;
}

const toNumber = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toText = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
const samePurpose = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((p) => b.has(p));

function condense(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.first - b.first || a.last - b.last);
  const merged: Span[] = [];
  for (const s of sorted) {
    const prev = merged[merged.length - 1];
    if (prev && ((prev.first <= s.first && s.first <= prev.last) || (prev.first <= s.last && s.last <= prev.last))) {
      merged[merged.length - 1] = { first: Math.min(prev.first, s.first), last: Math.max(prev.last, s.last), purpose: new Set([...prev.purpose, ...s.purpose]) };
    } else {
      merged.push({ ...s, purpose: new Set(s.purpose) });
    }
  }
  const out: Span[] = [];
  for (const s of merged) {
    const prev = out[out.length - 1];
    if (prev && s.first === prev.last + 1 && samePurpose(prev.purpose, s.purpose)) out[out.length - 1] = { first: prev.first, last: s.last, purpose: s.purpose };
    else out.push(s);
  }
  return out;
}

function inUse(u: UsageInput): Span[] {
  const one = (ip: string, purpose: string): Span => ({ first: toNumber(ip), last: toNumber(ip), purpose: new Set([purpose]) });
  const spans: Span[] = [];
  if (u.gatewayIp && cidrContains(u.cidr, u.gatewayIp)) spans.push(one(u.gatewayIp, 'gateway-ip'));
  for (const ip of u.dnsServers) if (cidrContains(u.cidr, ip)) spans.push(one(ip, 'dns-server'));
  for (const ip of new Set(u.assigned)) if (cidrContains(u.cidr, ip)) spans.push(one(ip, 'assigned-ip'));
  for (const r of u.ranges) if (cidrContains(u.cidr, r.startIp)) spans.push({ first: toNumber(r.startIp), last: toNumber(r.endIp), purpose: new Set([r.type]) });
  return condense(spans);
}

export function reservedIpRanges(u: UsageInput) {
  return inUse(u).map((s) => ({ start: toText(s.first), end: toText(s.last), num_addresses: s.last - s.first + 1, purpose: [...s.purpose].sort() }));
}

export function unreservedIpRanges(u: UsageInput) {
  const { first, last } = hostRange(u.cidr);
  const out: Array<{ start: string; end: string; num_addresses: number }> = [];
  let start = first;
  for (const s of [...inUse(u), { first: last + 1, last: last + 1 }]) {
    const end = Math.min(s.first - 1, last);
    if (end >= start) out.push({ start: toText(start), end: toText(end), num_addresses: end - start + 1 });
    start = Math.max(start, s.last + 1);
  }
  return out;
}
