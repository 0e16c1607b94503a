import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatFieldPath } from '../../api/field-error.ts';
import { errorMessage } from '../../api/index.ts';
import type { KvBucket } from '../../ports/index.ts';
import { StoreError } from '../../ports/index.ts';
import { SNAPSHOT_FORMAT_VERSION, snapshotEntry, writeSnapshotFile } from './kv-snapshot-file.ts';
import { decodeKvRecord } from './kv-value.ts';

export { nextSaveDelayMs, persistKv, SAVE_SPACING, type KvPersist } from './kv-persist.ts';

// `--persist FILE` of the embedded default: the host buckets of its in-memory KV, saved as they
// are and loaded back before the node starts, so a rerun resumes where the last run stopped.
// Leases, heartbeats and grants are never saved: they belong to a process that has ended.

const Entry = z.union([z.object({ text: z.string() }), z.object({ base64: z.base64() })]);
const SnapshotFile = z.object({
  version: z.literal(SNAPSHOT_FORMAT_VERSION),
  buckets: z.record(z.string(), z.record(z.string(), Entry)),
});

const encoder = new TextEncoder();

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
  const newer = version > SNAPSHOT_FORMAT_VERSION;
  return refused(
    path, newer ? 'storeFileNewer' : 'storeFileOlder',
    `was written by ${newer ? 'a newer' : 'an older'} metalfleet: it is format version ${version} and this build reads format version ${SNAPSHOT_FORMAT_VERSION}`,
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
  if (typeof version === 'number' && Number.isInteger(version) && version > 0 && version !== SNAPSHOT_FORMAT_VERSION) throw otherVersion(path, version);
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

/**
 * Writes every entry of the buckets to a temporary file, syncs it and renames it over `path`.
 * Aborted (Ctrl-C), it stops before the rename and removes the temporary file: `path` is then
 * as the last complete save left it, and the promise rejects with a StoreError `saveAborted`.
 */
export async function saveKvSnapshot(path: string, buckets: readonly KvBucket[], options: { signal?: AbortSignal } = {}): Promise<void> {
  // The writer checks the signal before it opens the file and before each entry it writes.
  await writeSnapshotFile(path, buckets.map((bucket) => ({ bucket: bucket.name, entries: entriesOf(bucket) })), options.signal);
}

async function* entriesOf(bucket: KvBucket): AsyncIterable<string> {
  for (const key of (await bucket.keys()).sort()) {
    const entry = await bucket.get(key);
    if (entry !== null) yield snapshotEntry(key, entry.value);
  }
}
