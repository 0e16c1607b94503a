import { fieldError, type FieldError } from './field-error.ts';

// How big the inputs metalfleet takes may be, checked before the expensive step so memory stays
// bounded whatever a file holds (issue 19.5: a 20 MB manifest took 577 s and 4.6 GB, then died).

const MiB = 1024 * 1024;

/**
 * A manifest file: read whole, then parsed one document at a time. 64 MiB is about 250,000
 * hosts of a typical manifest (~270 bytes each), far past any fleet one apply should carry; the
 * text costs up to twice its size in memory (UTF-16), the parsed documents far less.
 */
export const MAX_MANIFEST_FILE_BYTES = 64 * MiB;

/**
 * One YAML document's text, checked before it is parsed: the parser's tree takes ~300 bytes per
 * scalar (a 1 MiB list of numbers is ~250 MB of heap), so this bounds the memory of one parse.
 * YAML is rarely much bigger than the JSON of the same object, so this is the NATS message size.
 */
export const MAX_DOCUMENT_BYTES = 1 * MiB;

/**
 * One object, as the JSON the stores write. The smallest store is NATS: its default max_payload
 * is 1 MiB per message, and the host record is the object plus what the store adds (uid,
 * generation, timestamps, the fence: a few hundred bytes) and the message headers; 64 KiB of
 * headroom keeps every object validate accepts storable, so a refused object is refused by
 * validate and apply, naming it, never by the server (etcd takes ~1.5 MiB, Kubernetes' request
 * limit is 3 MiB: both hold what this lets through).
 */
export const MAX_OBJECT_BYTES = 1 * MiB - 64 * 1024;

/** Bytes of `text` in UTF-8, without building the encoding. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** `bytes` for a person: "3.2 MiB", "812 KiB", "97 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}

/** The size of `obj` as the stores write it (JSON, UTF-8); NaN when it is not JSON at all. */
export function objectBytes(obj: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(obj);
  } catch {
    return Number.NaN;
  }
  return json === undefined ? Number.NaN : utf8Length(json);
}

/** The error for an object too big for the stores, or [] when it fits. */
export function objectSizeErrors(obj: unknown, max = MAX_OBJECT_BYTES): FieldError[] {
  const bytes = objectBytes(obj);
  // A value that refers to itself (or a BigInt) has no JSON: no store can write it.
  if (Number.isNaN(bytes)) return [fieldError('(root)', 'Invalid value: the object cannot be written as JSON (a value refers to itself, or is not a JSON type)')];
  if (!(bytes > max)) return [];
  return [fieldError('(root)', `Too long: the object is ${formatBytes(bytes)} as JSON (${bytes} bytes); an object may be at most ${formatBytes(max)} (${max} bytes), what one NATS message holds with room for the store's own fields; make it smaller (user data belongs in a Secret)`, 'TooLong')];
}
