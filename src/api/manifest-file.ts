import { open } from 'node:fs/promises';
import { formatBytes, MAX_MANIFEST_FILE_BYTES } from './limits.ts';

// A manifest file's text, refused by its size before a byte is read: a file is read whole and
// parsed a document at a time (manifest.ts), so its size bounds the memory it can cost.

export type ManifestText = { ok: true; text: string } | { ok: false; reason: string };

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

/**
 * What manifest files that hold no object at all are told (demo -f, apply -f), as kubectl says "no
 * objects passed to apply" for them; an empty List holds none either.
 */
export function noObjectsIn(files: readonly string[]): string {
  return files.length === 1 ? `${files[0]}: no objects in it (empty, only comments, or an empty List)` : `${files.join(', ')}: no objects in them (empty, only comments, or empty Lists)`;
}

/** The text of `file`, or why it cannot be had ("is 80 MiB; at most 64 MiB", "no such file"). */
export async function readManifestText(file: string, max = MAX_MANIFEST_FILE_BYTES): Promise<ManifestText> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    return { ok: false, reason: `cannot read: ${FS_REASONS[code] ?? (code || 'unknown error')}` };
  }
  try {
    // Checked on the open file: what is read is what was measured. A pipe or a device has no
    // size to stat and is read up to one byte past the limit.
    const stat = await handle.stat();
    if (stat.isDirectory()) return { ok: false, reason: 'cannot read: is a directory' };
    if (stat.isFile() && stat.size > max) return { ok: false, reason: tooBig(stat.size, max) };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(1024 * 1024, max + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) return { ok: false, reason: tooBig(total, max, true) };
    }
    return decodeManifestBytes(Buffer.concat(chunks, total));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    return { ok: false, reason: `cannot read: ${FS_REASONS[code] ?? (code || 'unknown error')}` };
  } finally {
    await handle.close();
  }
}

/**
 * The text of a stream (standard input for `-f -`), read up to one byte past `max`: a pipe or a
 * socket has no size to check first, and /dev/stdin cannot be opened on a socket.
 */
export async function readManifestStream(stream: AsyncIterable<Uint8Array>, max = MAX_MANIFEST_FILE_BYTES): Promise<ManifestText> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      total += chunk.byteLength;
      if (total > max) return { ok: false, reason: tooBig(total, max, true) };
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    return { ok: false, reason: `cannot read: ${FS_REASONS[code] ?? (code || 'unknown error')}` };
  }
  return decodeManifestBytes(Buffer.concat(chunks, total));
}

// ignoreBOM keeps a UTF-8 byte order mark in the text, as Buffer#toString did (the YAML parser
// reads it as one).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A manifest's bytes as text, or why they are not UTF-8. They used to be decoded with every bad
 * byte replaced by U+FFFD: a Latin-1 password in a Secret changed without a word, and a UTF-16
 * file became "not a Kubernetes object (no kind)". The reason names the line, never the bytes.
 */
export function decodeManifestBytes(bytes: Uint8Array): ManifestText {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    return { ok: false, reason: 'is UTF-16 text: save it as UTF-8 (manifests are read as UTF-8)' };
  }
  try {
    return { ok: true, text: utf8.decode(bytes) };
  } catch {
    const lossy = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    const bad = lossy.indexOf('\uFFFD');
    const line = bad < 0 ? null : lossy.slice(0, bad).split('\n').length;
    return { ok: false, reason: `is not UTF-8 text${line === null ? '' : ` (line ${line} has a byte that is not UTF-8)`}: save it as UTF-8` };
  }
}

function tooBig(bytes: number, max: number, atLeast = false): string {
  const size = atLeast ? `more than ${formatBytes(max)}` : `${formatBytes(bytes)} (${bytes} bytes)`;
  return `is ${size}; a manifest file may be at most ${formatBytes(max)} (${max} bytes): split it into several files`;
}
