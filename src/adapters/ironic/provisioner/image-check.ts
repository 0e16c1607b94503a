import type { Image } from '../../../api/index.ts';
import { redactUrl } from '../../../api/bmc/index.ts';

const HEX_LENGTH: Record<string, number> = { md5: 32, sha256: 64, sha512: 128 };

// A wrong checksum or a dead image URL fails in seconds here instead of after a long deploy.
export function checksumProblem(image: Image): string | null {
  const checksum = image.checksum ?? '';
  if (image.format === 'live-iso' || image.url.startsWith('oci://')) return null;
  if (!checksum) return 'spec.image.checksum is empty: give the image checksum or a URL of a checksum file';
  if (/^https?:\/\//.test(checksum)) return null;
  const type = image.checksumType && image.checksumType !== 'auto' ? image.checksumType : guessType(checksum);
  const want = type ? HEX_LENGTH[type] : undefined;
  if (!want) return `spec.image.checksum: cannot tell the checksum type of a ${checksum.length}-character value; set spec.image.checksumType`;
  if (!/^[0-9a-fA-F]+$/.test(checksum) || checksum.length !== want) return `spec.image.checksum is not a ${type} checksum (${want} hex digits expected, got ${checksum.length} characters)`;
  return null;
}

function guessType(checksum: string): string | undefined {
  return Object.entries(HEX_LENGTH).find(([, n]) => n === checksum.length)?.[0];
}

// HEAD the image (falling back to a one-byte GET for servers that refuse HEAD).
export async function imageUnreachable(url: string, timeoutMs: number): Promise<string | null> {
  if (!/^https?:\/\//.test(url)) return null;
  for (const method of ['HEAD', 'GET'] as const) {
    try {
      const res = await fetch(url, { method, headers: method === 'GET' ? { Range: 'bytes=0-0' } : {}, signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel();
      if (res.ok || res.status === 206) return null;
      if (method === 'HEAD' && (res.status === 405 || res.status === 501)) continue;
      return `image ${redactUrl(url)} answered HTTP ${res.status}`;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      return `image ${redactUrl(url)} is unreachable (${cause})`;
    }
  }
  return null;
}
