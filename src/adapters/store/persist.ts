import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { BareMetalHostStatus } from '../../api/index.ts';
import { formatFieldPath } from '../../api/field-error.ts';
import { StoreError } from '../../ports/index.ts';

// What survives a restart: the identity the store gave a host and everything controllers wrote
// to it (status, finalizers, deletion). Spec, labels and annotations come from the manifests.
export const PersistedHost = z.object({
  uid: z.string().optional(),
  creationTimestamp: z.string().optional(),
  status: BareMetalHostStatus.optional(),
  finalizers: z.array(z.string()).optional(),
  deletionTimestamp: z.string().optional(),
});
export type PersistedHost = z.infer<typeof PersistedHost>;

const PersistFile = z.object({
  version: z.literal(1),
  hosts: z.record(z.string(), PersistedHost),
});

/** The saved hosts, or an empty map when the file does not exist yet. Never writes. */
export async function readPersistFile(path: string): Promise<Map<string, PersistedHost>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new StoreError(`cannot read the store file ${path}: ${(error as Error).message}`, true, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not valid JSON (${(error as Error).message})`, error);
  }
  const parsed = PersistFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol'));
    throw corrupt(path, `${at || 'the file'}: ${issue.message}`, parsed.error);
  }
  return new Map(Object.entries(parsed.data.hosts));
}

function corrupt(path: string, detail: string, cause: unknown): StoreError {
  return new StoreError(
    `the store file ${path} is corrupt: ${detail}. Nothing was loaded and the file was left untouched; repair it or move it away to start from the manifests alone`,
    false,
    { cause },
  );
}

// Chunks of about 1 MiB: 100,000 statuses make a file of tens of MiB, and one JSON.stringify of
// all of it would stall every actor of the process for the length of the call.
const CHUNK_CHARS = 1 << 20;

async function writeAll(fh: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

let tempSeq = 0;

/**
 * Writes the entries to a temporary file next to `path`, syncs it and renames it over `path`, so
 * a reader (or a crash) sees the old file or the new one, never half of one. `entry` is asked for
 * each key in turn, between awaits, and may return undefined for a key that has gone since.
 */
export async function writePersistFile(
  path: string,
  keys: readonly string[],
  entry: (key: string) => PersistedHost | undefined,
): Promise<void> {
  const temp = `${path}.${process.pid}.${++tempSeq}.tmp`;
  let fh: FileHandle | undefined;
  try {
    fh = await open(temp, 'w', 0o600);
    let buffer = '{"version":1,"hosts":{';
    let first = true;
    for (const key of keys) {
      const value = entry(key);
      if (value === undefined) continue;
      buffer += `${first ? '\n' : ',\n'}${JSON.stringify(key)}:${JSON.stringify(value)}`;
      first = false;
      if (buffer.length >= CHUNK_CHARS) {
        await writeAll(fh, buffer);
        buffer = '';
      }
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
