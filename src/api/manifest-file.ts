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
    return { ok: true, text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    return { ok: false, reason: `cannot read: ${FS_REASONS[code] ?? (code || 'unknown error')}` };
  } finally {
    await handle.close();
  }
}

function tooBig(bytes: number, max: number, atLeast = false): string {
  const size = atLeast ? `more than ${formatBytes(max)}` : `${formatBytes(bytes)} (${bytes} bytes)`;
  return `is ${size}; a manifest file may be at most ${formatBytes(max)} (${max} bytes): split it into several files`;
}
