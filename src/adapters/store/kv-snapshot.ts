import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { formatFieldPath } from '../../api/field-error.ts';
import { errorMessage } from '../../api/index.ts';
import type { KvBucket } from '../../ports/index.ts';
import { StoreError } from '../../ports/index.ts';
import { decodeKvRecord, isJsonKvValue } from './kv-value.ts';

// `--persist FILE` of the embedded default: the host buckets of its in-memory KV, saved as they
// are and loaded back before the node starts, so a rerun resumes where the last run stopped.
// Leases, heartbeats and grants are never saved: they belong to a process that has ended.

const Entry = z.union([z.object({ text: z.string() }), z.object({ base64: z.base64() })]);
const FORMAT_VERSION = 2;
const SnapshotFile = z.object({
  version: z.literal(FORMAT_VERSION),
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

const UNTOUCHED = 'Nothing was loaded and the file was left untouched';

function refused(path: string, code: string, what: string, todo: string, cause?: unknown): StoreError {
  return new StoreError(`the store file ${path} ${what}. ${UNTOUCHED}; ${todo}`, false, cause === undefined ? undefined : { cause }, code);
}

function corrupt(path: string, detail: string, cause?: unknown): StoreError {
  return refused(path, 'storeFileCorrupt', `is corrupt: ${detail}`, 'repair it or move it away to start from the manifests alone', cause);
}

// A file of another format version is whole, not "corrupt" (a newer one was reported so): the
// message says which metalfleet wrote it, so the user runs that one rather than deleting the file.
function otherVersion(path: string, version: number): StoreError {
  const newer = version > FORMAT_VERSION;
  return refused(
    path, newer ? 'storeFileNewer' : 'storeFileOlder',
    `was written by ${newer ? 'a newer' : 'an older'} metalfleet: it is format version ${version} and this build reads format version ${FORMAT_VERSION}`,
    newer ? 'run that newer metalfleet, or move the file away to start from the manifests alone' : 'this build cannot read it; move it away to start from the manifests alone',
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
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 0;
    // Retrying a folder or a file this user may not read only fails again.
    if (code === 'EISDIR') throw new StoreError(`the store file ${path} is a folder, not a file. Nothing was loaded; give the path of a file (it is created on the first save)`, false, { cause: error }, 'storeFileUnreadable');
    if (code === 'EACCES' || code === 'EPERM') throw new StoreError(`cannot read the store file ${path}: permission denied. Nothing was loaded and the file was left untouched; make it readable by this user, or give another path`, false, { cause: error }, 'storeFileUnreadable');
    throw new StoreError(`cannot read the store file ${path}: ${errorMessage(error)}`, true, { cause: error }, 'storeFileUnreadable');
  }
  // Said as such: "not valid JSON (Unexpected end of JSON input)" read as a damaged save.
  if (text.trim() === '') throw refused(path, 'storeFileEmpty', `is empty (${text.length === 0 ? '0 bytes' : `${Buffer.byteLength(text)} bytes of white space`}), not a saved state`, 'delete it or move it away to start from the manifests alone');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not valid JSON (${errorMessage(error)})`, error);
  }
  const version = typeof json === 'object' && json !== null ? (json as { version?: unknown }).version : undefined;
  if (typeof version === 'number' && Number.isInteger(version) && version > 0 && version !== FORMAT_VERSION) throw otherVersion(path, version);
  const parsed = SnapshotFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue ? formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol')) : '';
    throw corrupt(path, `${at || 'the file'}: ${issue?.message ?? 'does not match the format'}`, parsed.error);
  }
  // Every value is decoded before any is put: a record cut short used to load, the store skipped
  // its object as malformed, and the next save wrote the file over without it.
  const loads: Array<[KvBucket, string, Uint8Array]> = [];
  for (const bucket of buckets) {
    for (const [key, entry] of Object.entries(parsed.data.buckets[bucket.name] ?? {})) {
      const value = valueOf(entry);
      const decoded = decodeKvRecord(value);
      if (!decoded.ok) throw corrupt(path, `${formatFieldPath(['buckets', bucket.name, key])}: ${decoded.reason}`);
      loads.push([bucket, key, value]);
    }
  }
  for (const [bucket, key, value] of loads) await bucket.put(key, value);
  return loads.length;
}

// Chunks of about 1 MiB: 100,000 hosts make a file of tens of MiB, and one JSON.stringify of
// all of it would stall every actor of the process for the length of the call.
const CHUNK_CHARS = 1 << 20;
let tempSeq = 0;

/**
 * Writes every entry of the buckets to a temporary file, syncs it and renames it over `path`.
 * Aborted (Ctrl-C), it stops before the rename and removes the temporary file: `path` is then
 * as the last complete save left it, and the promise rejects with a StoreError `saveAborted`.
 */
export async function saveKvSnapshot(path: string, buckets: readonly KvBucket[], options: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  stopIfAborted(signal, path);
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
        stopIfAborted(signal, path);
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
    // The last point to stop: once renamed, the new file is whole and in place.
    stopIfAborted(signal, path);
    await rename(temp, path);
  } catch (error) {
    await fh?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

function stopIfAborted(signal: AbortSignal | undefined, path: string): void {
  if (signal?.aborted) throw new StoreError(`the save of the store file ${path} was abandoned; the file is as the last complete save left it`, false, { cause: signal.reason }, 'saveAborted');
}

async function writeAll(fh: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

export interface KvPersist {
  /** Saves now (after a save in progress). */
  flush(): Promise<void>;
  /** Stops watching and saves what changed; nothing is saved after it. */
  close(): Promise<void>;
  /**
   * For Ctrl-C: abandons a save in progress, resolving once its temporary file is removed, with
   * whether there was one; nothing is saved after it, so the file stays the last complete save.
   */
  abort(): Promise<boolean>;
}

/**
 * Saves the buckets a moment after they change (and on flush), one write at a time, so a demo
 * stopped with Ctrl-C keeps nearly everything it did.
 */
export async function persistKv(path: string, buckets: readonly KvBucket[], options: { debounceMs?: number; onError?: (err: unknown) => void } = {}): Promise<KvPersist> {
  const debounceMs = options.debounceMs ?? 1_000;
  const stopped = new AbortController();
  let dirty = false;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  const write = async (): Promise<void> => {
    while (writing) await writing;
    if (!dirty || stopped.signal.aborted) return;
    dirty = false;
    writing = saveKvSnapshot(path, buckets, { signal: stopped.signal }).finally(() => {
      writing = null;
    });
    await writing;
  };
  const arm = (): void => {
    dirty = true;
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      write().catch((err: unknown) => {
        if (!stopped.signal.aborted) options.onError?.(err);
      });
    }, debounceMs);
  };
  let ready = false;
  const unwatch = await Promise.all(buckets.map((b) => b.watch({ onEvent: () => {
    if (ready) arm();
  } })));
  ready = true;
  const stop = (): void => {
    for (const end of unwatch.splice(0)) end();
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  return {
    async flush() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      dirty = true;
      await write();
    },
    async close() {
      stop();
      dirty = true;
      await write();
    },
    async abort() {
      stop();
      const inProgress = writing;
      stopped.abort();
      if (inProgress === null) return false;
      await inProgress.catch(() => undefined);
      return true;
    },
  };
}
