import type { HostRow } from '../../bus/messages/introspect.ts';

// The hosts (and MaasClusters, and actors) of a big node do not fit one NATS message (10,000 host rows are
// about 1.4 MB against the 1 MiB default limit), so a node answers them a page at a time: rows in
// key order after the request's `after`, up to a byte budget well under the limit, and `next`
// when more follow.
// gather() follows `next`, so every client of the verb sees the whole list.

/** JSON bytes of rows per page; MessagePack is smaller still, so the reply stays under 1 MiB. */
export const HOST_PAGE_BYTES = 512 * 1024;

/**
 * The page budget for a bus that carries at most `maxPayload` bytes a message: HOST_PAGE_BYTES,
 * or half the limit when that is less (a server configured below the 1 MiB default). A fixed
 * budget answered every page from a server with max_payload 64 KiB with `tooLarge`.
 */
export function pageBudget(maxPayload: number): number {
  return Math.max(1024, Math.min(HOST_PAGE_BYTES, Math.floor(maxPayload / 2)));
}

// A BareMetalHost and a MaasMachine may share a key: by key alone, a page that ended between the
// two began the next after that key and never listed the second. The cursor is key and kind; a
// space sorts below every character a key may hold, so the order is still the keys'.
const hostCursor = (row: HostRow): string => `${row.key} ${row.kind}`;

export function pageOfHosts(rows: readonly HostRow[], after: string | undefined, budget = HOST_PAGE_BYTES): { hosts: HostRow[]; next?: string } {
  const { rows: hosts, next } = pageBy(rows, hostCursor, after, budget);
  return next === undefined ? { hosts } : { hosts, next };
}

/** Rows keyed by `key`, in key order after `after`, up to `budget` bytes of UTF-8 JSON (at least one row). */
export function pageOf<R extends { readonly key: string }>(rows: readonly R[], after: string | undefined, budget = HOST_PAGE_BYTES): { rows: R[]; next?: string } {
  return pageBy(rows, (r) => r.key, after, budget);
}

/** Rows in the order of `keyOf` (unique per row) after `after`, up to `budget` bytes of UTF-8 JSON (at least one row). */
export function pageBy<R>(rows: readonly R[], keyOf: (row: R) => string, after: string | undefined, budget = HOST_PAGE_BYTES): { rows: R[]; next?: string } {
  const sorted = [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const start = after === undefined ? 0 : sorted.findIndex((r) => keyOf(r) > after);
  if (start < 0) return { rows: [] };
  const page: R[] = [];
  let bytes = 0;
  for (let i = start; i < sorted.length; i++) {
    const row = sorted[i]!;
    // Bytes, not characters: the reply's strings are UTF-8, where a character of a BMC's error
    // text may take three bytes (a page of 512 K such characters was 1.5 MB on the wire).
    bytes += Buffer.byteLength(JSON.stringify(row), 'utf8');
    // Always at least one row, so a page moves on whatever one row weighs.
    if (bytes > budget && page.length > 0) return { rows: page, next: keyOf(page[page.length - 1]!) };
    page.push(row);
  }
  return { rows: page };
}
