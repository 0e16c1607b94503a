import { Packr, RESET_BUFFER_MODE } from 'msgpackr';

// The host buckets' values: plain MessagePack maps (no record extension: a record's definition
// travels in every value when structures are not shared, which cost more to pack than it saved;
// lifecycle 10,000 hosts went from 7.6 s to 6.8 s without it). Any node of any version decodes a
// value alone, records written by an earlier build included. A status is smaller than its JSON and
// packs and unpacks faster (issue 29.5). Values written by an older node are JSON and stay
// readable: a JSON object starts with `{` (0x7b), which in MessagePack is the integer 123.
// variableMapSize: a map's size header as small as it fits (one byte up to 15 keys) instead of a
// fixed 3-byte map16, written after one Object.keys rather than a for-in with hasOwnProperty per
// key: still plain MessagePack that any decoder (and every older node) reads, and ~8% less CPU per
// status packed (the scale bench packs 13 records a host).
const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false, int64AsType: 'number', variableMapSize: true });

const JSON_OBJECT_START = 0x7b;
const decoder = new TextDecoder();

/** A record as the host buckets store it. */
export function encodeKvRecord(value: unknown): Uint8Array {
  // pack() returns a view into a shared arena: copy so the bytes outlive the next pack(). A typed
  // array copies in one move; Uint8Array.from walked it byte by byte (a tenth of the lifecycle's CPU).
  // RESET_BUFFER_MODE: the next pack() writes where this one did, since its bytes are copied out
  // now. Without it each pack() starts after the last, and an 8 KiB arena is allocated afresh every
  // few status records (a host's is ~2 KB): ~10% of the CPU of a pack, and garbage outside the heap.
  return new Uint8Array(packr.pack(value, RESET_BUFFER_MODE));
}

/** Whether the bytes are a JSON value (an older node's write, or a hand-made one). */
export function isJsonKvValue(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes[0] === JSON_OBJECT_START;
}

export type DecodedKvValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** Either form, decoded; never throws. The reason says which form it was and its size, never the value. */
export function decodeKvRecord(bytes: Uint8Array): DecodedKvValue {
  if (isJsonKvValue(bytes)) {
    try {
      return { ok: true, value: JSON.parse(decoder.decode(bytes)) as unknown };
    } catch {
      return { ok: false, reason: `${bytes.length} bytes that start as JSON but do not parse as JSON` };
    }
  }
  try {
    return { ok: true, value: packr.unpack(bytes) as unknown };
  } catch {
    return { ok: false, reason: `${bytes.length} bytes that are neither MessagePack nor JSON` };
  }
}
