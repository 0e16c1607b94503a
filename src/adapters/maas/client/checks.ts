import { isIP } from 'node:net';
import type { Call } from './call.ts';
import { invalid } from './call.ts';

// Input checks shared by the per-resource calls: each refuses the call before anything is sent.

export function checkSystemId(c: Call, systemId: string): void {
  if (typeof systemId !== 'string' || systemId.trim() === '' || systemId.includes('/')) throw invalid(c, 'the system id is empty or not a MAAS system id');
}

export function checkDnsId(c: Call, id: number): void {
  if (!Number.isSafeInteger(id) || id < 0) throw invalid(c, `the DNS resource id must be a whole number, not ${String(id)}`);
}

export function checkIps(c: Call, ips: readonly string[]): void {
  const bad = ips.filter((ip) => isIP(ip) === 0);
  if (bad.length > 0) throw invalid(c, `ipAddresses must be IPv4 or IPv6 addresses; not: ${bad.map((b) => JSON.stringify(b)).join(', ')}`);
}

export function checkTtl(c: Call, ttl: number | undefined): void {
  if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl < 0)) throw invalid(c, `addressTtl must be a whole number of seconds, not ${String(ttl)}`);
}

export function checkCount(c: Call, name: string, v: number | undefined): void {
  if (v !== undefined && (!Number.isFinite(v) || v < 0)) throw invalid(c, `${name} must be a number >= 0, not ${String(v)}`);
}
