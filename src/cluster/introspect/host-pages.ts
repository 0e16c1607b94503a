import type { HostRow } from '../../bus/messages/introspect.ts';

// The hosts of a big node do not fit one NATS message (10,000 rows are about 1.4 MB against the
// 1 MiB default limit), so a node answers them a page at a time: rows in key order after the
// request's `after`, up to a byte budget well under the limit, and `next` when more follow.
// gather() follows `next`, so every client of the verb sees the whole list.

/** JSON bytes of rows per page; MessagePack is smaller still, so the reply stays under 1 MiB. */
export const HOST_PAGE_BYTES = 512 * 1024;

export function pageOfHosts(rows: readonly HostRow[], after: string | undefined, budget = HOST_PAGE_BYTES): { hosts: HostRow[]; next?: string } {
  const sorted = [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const start = after === undefined ? 0 : sorted.findIndex((r) => r.key > after);
  if (start < 0) return { hosts: [] };
  const hosts: HostRow[] = [];
  let bytes = 0;
  for (let i = start; i < sorted.length; i++) {
    const row = sorted[i]!;
    bytes += JSON.stringify(row).length;
    // Always at least one row, so a page moves on whatever one row weighs.
    if (bytes > budget && hosts.length > 0) return { hosts, next: hosts[hosts.length - 1]!.key };
    hosts.push(row);
  }
  return { hosts };
}
