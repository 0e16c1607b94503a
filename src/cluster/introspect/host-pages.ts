import type { HostRow } from '../../bus/messages/introspect.ts';

// The hosts (and MaasClusters, and actors) of a big node do not fit one NATS message (10,000 host rows are
// about 1.4 MB against the 1 MiB default limit), so a node answers them a page at a time: rows in
// key order after the request's `after`, up to a byte budget well under the limit, and `next`
// when more follow.
// gather() follows `next`, so every client of the verb sees the whole list.

/** JSON bytes of rows per page; MessagePack is smaller still, so the reply stays under 1 MiB. */
export const HOST_PAGE_BYTES = 512 * 1024;

// A BareMetalHost and a MaasMachine may share a key: by key alone, a page that ended between the
// two began the next after that key and never listed the second. The cursor is key and kind; a
// space sorts below every character a key may hold, so the order is still the keys'.
const hostCursor = (row: HostRow): string => `${row.key} ${row.kind}`;

export function pageOfHosts(rows: readonly HostRow[], after: string | undefined, budget = HOST_PAGE_BYTES): { hosts: HostRow[]; next?: string } {
  const { rows: hosts, next } = pageBy(rows, hostCursor, after, budget);
  return next === undefined ? { hosts } : { hosts, next };
}

/** Rows keyed by `key`, in key order after `after`, up to `budget` JSON bytes (at least one row). */
export function pageOf<R extends { readonly key: string }>(rows: readonly R[], after: string | undefined, budget = HOST_PAGE_BYTES): { rows: R[]; next?: string } {
  return pageBy(rows, (r) => r.key, after, budget);
}

/** Rows in the order of `keyOf` (unique per row) after `after`, up to `budget` JSON bytes (at least one row). */
export function pageBy<R>(rows: readonly R[], keyOf: (row: R) => string, after: string | undefined, budget = HOST_PAGE_BYTES): { rows: R[]; next?: string } {
  const sorted = [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const start = after === undefined ? 0 : sorted.findIndex((r) => keyOf(r) > after);
  if (start < 0) return { rows: [] };
  const page: R[] = [];
  let bytes = 0;
  for (let i = start; i < sorted.length; i++) {
    const row = sorted[i]!;
    bytes += JSON.stringify(row).length;
    // Always at least one row, so a page moves on whatever one row weighs.
    if (bytes > budget && page.length > 0) return { rows: page, next: keyOf(page[page.length - 1]!) };
    page.push(row);
  }
  return { rows: page };
}
