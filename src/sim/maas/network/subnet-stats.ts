import { cidrContains, hostCount, hostRange } from './ipv4.ts';

// GET /subnets/{id}/?op=statistics: IPRangeStatistics.render_json over the subnet's host range,
// where the gateway and every address in use (machines, DNS resources) are unavailable.

// Python's f"{x:.0%}": rounds half to even, as format() does.
function percent(x: number): string {
  const scaled = x * 100;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const rounded = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return `${rounded}%`;
}

export function subnetStatistics(cidr: string, gateway: string | null, inUse: readonly string[]) {
  const { first, last, toNumber } = hostRange(cidr);
  const used = new Set<number>();
  for (const ip of [...inUse, ...(gateway === null ? [] : [gateway])]) if (cidrContains(cidr, ip)) used.add(toNumber(ip));
  const total = hostCount(cidr);
  // The longest run of free addresses between the used ones.
  let largest = 0;
  let previous = first - 1;
  for (const n of [...used].filter((u) => u >= first && u <= last).sort((a, b) => a - b)) {
    largest = Math.max(largest, n - previous - 1);
    previous = n;
  }
  largest = Math.max(largest, last - previous);
  const unavailable = used.size;
  const usage = total === 0 ? 0 : unavailable / total;
  return {
    num_available: total - unavailable,
    largest_available: largest,
    num_unavailable: unavailable,
    total_addresses: total,
    usage,
    usage_string: percent(usage),
    available_string: percent(1 - usage),
    first_address: hostRange(cidr).firstText,
    last_address: hostRange(cidr).lastText,
    ip_version: 4,
  };
}
