import { Packr } from 'msgpackr';

// The host buckets' values: MessagePack with msgpackr's record extension. Every value carries
// its own record definitions (no shared structures), so any node of any version decodes it
// alone; a status record is about half its JSON size and packs and unpacks faster than
// JSON.stringify and JSON.parse (issue 29.5: the lifecycle's cost was mostly JSON KV writes).
// Values written by an older node are JSON and stay readable: a JSON object starts with `{`
// (0x7b), which in MessagePack is the positive integer 123, never a record.
const packr = new Packr({ useRecords: true, mapsAsObjects: true, moreTypes: false, int64AsType: 'number' });

const JSON_OBJECT_START = 0x7b;
const decoder = new TextDecoder();

/** A record as the host buckets store it. */
export function encodeKvRecord(value: unknown): Uint8Array {
  // pack() returns a view into a shared arena: copy so the bytes outlive the next pack().
  return Uint8Array.from(packr.pack(value));
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
