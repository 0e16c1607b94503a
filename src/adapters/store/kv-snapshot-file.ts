import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { StoreError } from '../../ports/index.ts';
import { isJsonKvValue } from './kv-value.ts';

// The `--persist FILE` format, written: one JSON object, each bucket's entries as `"key":ENTRY`
// lines in key order. A JSON value (an older node's, a hand-made one) stays readable in the file;
// the stores' MessagePack records, and anything else that is not JSON, are kept exactly, as base64.

export const SNAPSHOT_FORMAT_VERSION = 2;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function entryJson(value: Uint8Array): string {
  if (isJsonKvValue(value)) {
    try {
      return JSON.stringify({ text: utf8.decode(value) });
    } catch {
      // Not UTF-8 after all: kept as bytes.
    }
  }
  return `{"base64":${JSON.stringify(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64'))}}`;
}

/** One entry of a bucket as the file holds it: `"key":{"base64":"..."}`. */
export function snapshotEntry(key: string, value: Uint8Array): string {
  return `${JSON.stringify(key)}:${entryJson(value)}`;
}

/** A bucket's section of the file: its name and its entries, in key order, as text or its UTF-8 bytes. */
export interface SnapshotSection {
  readonly bucket: string;
  readonly entries: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;
}

export function stopIfAborted(signal: AbortSignal | undefined, path: string): void {
  if (signal?.aborted) throw new StoreError(`the save of the store file ${path} was abandoned; the file is as the last complete save left it`, false, { cause: signal.reason }, 'saveAborted');
}

// Written in pieces of about 1 MiB: 100,000 hosts make a file of tens of MiB, and one
// JSON.stringify of all of it would stall every actor of the process for the length of the call.
// An entry given as bytes goes to the file as it is, with no copy into a string first.
const CHUNK_BYTES = 1 << 20;
const FIRST_ENTRY = Buffer.from('\n');
const NEXT_ENTRY = Buffer.from(',\n');
let tempSeq = 0;

/** The file's bytes gathered into pieces of about CHUNK_BYTES, each written in one call. */
class Pieces {
  private pending: Uint8Array[] = [];
  private size = 0;

  constructor(private readonly fh: FileHandle) {}

  /** Keeps the piece; true once a chunk's worth is kept, for the caller to flush. */
  push(piece: string | Uint8Array): boolean {
    const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    this.pending.push(bytes);
    this.size += bytes.byteLength;
    return this.size >= CHUNK_BYTES;
  }

  async flush(): Promise<void> {
    let buffers = this.pending;
    this.pending = [];
    this.size = 0;
    while (buffers.length > 0) {
      const { bytesWritten } = await this.fh.writev(buffers);
      buffers = rest(buffers, bytesWritten);
    }
  }
}

/** What is left to write after `written` bytes of `buffers` (a short write). */
function rest(buffers: Uint8Array[], written: number): Uint8Array[] {
  let skip = written;
  let i = 0;
  while (i < buffers.length && skip >= buffers[i]!.byteLength) skip -= buffers[i++]!.byteLength;
  if (i === buffers.length) return [];
  return [buffers[i]!.subarray(skip), ...buffers.slice(i + 1)];
}

/**
 * Writes the sections to a temporary file, syncs it and renames it over `path`. Aborted, it stops
 * before the rename and removes the temporary file: `path` is then as the last complete save left
 * it, and the promise rejects with a StoreError `saveAborted`.
 */
export async function writeSnapshotFile(path: string, sections: Iterable<SnapshotSection>, signal?: AbortSignal): Promise<void> {
  stopIfAborted(signal, path);
  const temp = `${path}.${process.pid}.${++tempSeq}.tmp`;
  let fh: FileHandle | undefined;
  try {
    fh = await open(temp, 'w', 0o600);
    const out = new Pieces(fh);
    out.push(`{"version":${SNAPSHOT_FORMAT_VERSION},"buckets":{`);
    let firstBucket = true;
    for (const section of sections) {
      out.push(`${firstBucket ? '\n' : ',\n'}${JSON.stringify(section.bucket)}:{`);
      firstBucket = false;
      let first = true;
      for await (const entry of section.entries) {
        stopIfAborted(signal, path);
        out.push(first ? FIRST_ENTRY : NEXT_ENTRY);
        if (out.push(entry)) await out.flush();
        first = false;
      }
      out.push('}');
    }
    out.push('\n}}\n');
    await out.flush();
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
