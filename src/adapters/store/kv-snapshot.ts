import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { formatFieldPath } from '../../api/field-error.ts';
import type { KvBucket } from '../../ports/index.ts';
import { StoreError } from '../../ports/index.ts';
import { isJsonKvValue } from './kv-value.ts';

// `--persist FILE` of the embedded default: the host buckets of its in-memory KV, saved as they
// are and loaded back before the node starts, so a rerun resumes where the last run stopped.
// Leases, heartbeats and grants are never saved: they belong to a process that has ended.

const Entry = z.union([z.object({ text: z.string() }), z.object({ base64: z.base64() })]);
const SnapshotFile = z.object({
  version: z.literal(2),
  buckets: z.record(z.string(), z.record(z.string(), Entry)),
});

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

function entryOf(value: Uint8Array): z.infer<typeof Entry> {
  // A JSON value (an older node's, a hand-made one) stays readable in the file; the stores'
  // msgpackr records, and anything else that is not JSON, are kept exactly, as base64.
  if (!isJsonKvValue(value)) return { base64: Buffer.from(value).toString('base64') };
  try {
    return { text: utf8.decode(value) };
  } catch {
    return { base64: Buffer.from(value).toString('base64') };
  }
}

function valueOf(entry: z.infer<typeof Entry>): Uint8Array {
  return 'text' in entry ? encoder.encode(entry.text) : new Uint8Array(Buffer.from(entry.base64, 'base64'));
}

function corrupt(path: string, detail: string, cause?: unknown): StoreError {
  return new StoreError(
    `the store file ${path} is corrupt: ${detail}. Nothing was loaded and the file was left untouched; repair it or move it away to start from the manifests alone`,
    false,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Puts the saved entries of each bucket back. A missing file is an empty snapshot; a file that
 * does not parse loads nothing and throws, so nothing is ever written over it.
 */
export async function loadKvSnapshot(path: string, buckets: readonly KvBucket[]): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new StoreError(`cannot read the store file ${path}: ${(error as Error).message}`, true, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not valid JSON (${(error as Error).message})`, error);
  }
  if (typeof json === 'object' && json !== null && (json as { version?: unknown }).version === 1) {
    throw corrupt(path, 'it was written by an older metalfleet (version 1), whose format this one does not read');
  }
  // A later format said only "version: Invalid input: expected 2", as if the file were damaged.
  const version = typeof json === 'object' && json !== null ? (json as { version?: unknown }).version : undefined;
  if (typeof version === 'number' && Number.isInteger(version) && version > 2) {
    throw corrupt(path, `it was written by a newer metalfleet (format version ${version}; this one reads version 2): run that version, or move the file away`);
  }
  const parsed = SnapshotFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue ? formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol')) : '';
    throw corrupt(path, `${at || 'the file'}: ${issue?.message ?? 'does not match the format'}`, parsed.error);
  }
  let restored = 0;
  for (const bucket of buckets) {
    for (const [key, entry] of Object.entries(parsed.data.buckets[bucket.name] ?? {})) {
      await bucket.put(key, valueOf(entry));
      restored += 1;
    }
  }
  return restored;
}

// Chunks of about 1 MiB: 100,000 hosts make a file of tens of MiB, and one JSON.stringify of
// all of it would stall every actor of the process for the length of the call.
const CHUNK_CHARS = 1 << 20;
let tempSeq = 0;

/** Writes every entry of the buckets to a temporary file, syncs it and renames it over `path`. */
export async function saveKvSnapshot(path: string, buckets: readonly KvBucket[]): Promise<void> {
  const temp = `${path}.${process.pid}.${++tempSeq}.tmp`;
  let fh: FileHandle | undefined;
  try {
    fh = await open(temp, 'w', 0o600);
    let buffer = '{"version":2,"buckets":{';
    let firstBucket = true;
    for (const bucket of buckets) {
      buffer += `${firstBucket ? '\n' : ',\n'}${JSON.stringify(bucket.name)}:{`;
      firstBucket = false;
      let first = true;
      for (const key of (await bucket.keys()).sort()) {
        const entry = await bucket.get(key);
        if (entry === null) continue;
        buffer += `${first ? '\n' : ',\n'}${JSON.stringify(key)}:${JSON.stringify(entryOf(entry.value))}`;
        first = false;
        if (buffer.length >= CHUNK_CHARS) {
          await writeAll(fh, buffer);
          buffer = '';
        }
      }
      buffer += '}';
    }
    buffer += '\n}}\n';
    await writeAll(fh, buffer);
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(temp, path);
  } catch (error) {
    await fh?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

async function writeAll(fh: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/**
 * Saves the buckets a moment after they change (and on flush), one write at a time, so a demo
 * stopped with Ctrl-C keeps nearly everything it did.
 */
export async function persistKv(path: string, buckets: readonly KvBucket[], options: { debounceMs?: number; onError?: (err: unknown) => void } = {}): Promise<{ flush(): Promise<void>; close(): Promise<void> }> {
  const debounceMs = options.debounceMs ?? 1_000;
  let dirty = false;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  const write = async (): Promise<void> => {
    while (writing) await writing;
    if (!dirty) return;
    dirty = false;
    writing = saveKvSnapshot(path, buckets).finally(() => {
      writing = null;
    });
    await writing;
  };
  const arm = (): void => {
    dirty = true;
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      write().catch((err: unknown) => options.onError?.(err));
    }, debounceMs);
  };
  let ready = false;
  const unwatch = await Promise.all(buckets.map((b) => b.watch({ onEvent: () => {
    if (ready) arm();
  } })));
  ready = true;
  return {
    async flush() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      dirty = true;
      await write();
    },
    async close() {
      for (const stop of unwatch) stop();
      if (timer !== null) clearTimeout(timer);
      timer = null;
      dirty = true;
      await write();
    },
  };
}
