import { Packr, RESET_BUFFER_MODE } from 'msgpackr';
import type { z } from 'zod';
import { BusError } from '../ports/index.ts';

// Plain MessagePack (no record structures): every message decodes on its own, on any node and
// any version, and other tools can read it (reference/runtime.md §6.1).
// variableMapSize: the smallest map header that fits, after one Object.keys (kv-value.ts says why).
const packr = new Packr({ useRecords: false, moreTypes: false, int64AsType: 'number', variableMapSize: true });

export function encode(value: unknown): Uint8Array {
  // pack() returns a view into a shared arena: copy so the bytes outlive the next pack(). A typed
  // array copies in one move; Uint8Array.from walks it byte by byte (a capacity pool record of
  // 200 grants is 20 KB, written on every broker turn). RESET_BUFFER_MODE: the next pack() reuses
  // the arena (kv-value.ts says why), where a 20 KB record would otherwise take a new one each time.
  return new Uint8Array(packr.pack(value, RESET_BUFFER_MODE));
}

export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: BusError };

/** Bytes to a validated message; never throws. The error names the subject and the bad field. */
export function decode<S extends z.ZodType>(subject: string, data: Uint8Array, schema: S): Decoded<z.infer<S>> {
  let raw: unknown;
  try {
    raw = packr.unpack(data);
  } catch {
    return { ok: false, error: new BusError('invalidMessage', subject, `payload of ${data.length} bytes is not MessagePack`) };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(message)';
  return { ok: false, error: new BusError('invalidMessage', subject, `invalid message at ${path}: ${issue?.message ?? 'does not match the schema'}`) };
}
