import { isOciUrl, type Image } from '../../../api/index.ts';
import { redactUrl } from '../../../api/bmc/index.ts';

const HEX_LENGTH: Record<string, number> = { md5: 32, sha256: 64, sha512: 128 };

// A wrong checksum or a dead image URL fails in seconds here instead of after a long deploy.
export function checksumProblem(image: Image): string | null {
  const checksum = image.checksum ?? '';
  // BMO's Image.GetChecksum: an OCI image carries its own digests, and one given besides is refused.
  if (isOciUrl(image.url)) return checksum ? 'spec.image.checksum must be empty for OCI images (oci:// images have embedded checksums)' : null;
  if (image.format === 'live-iso') return null;
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
      const target = basicAuthRequest(url);
      const headers: Record<string, string> = { ...target.headers, ...(method === 'GET' ? { Range: 'bytes=0-0' } : {}) };
      const res = await fetch(target.url, { method, headers, signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel();
      if (res.ok || res.status === 206) return null;
      if (method === 'HEAD' && (res.status === 405 || res.status === 501)) continue;
      if (res.status === 401) return `image ${redactUrl(url)} answered HTTP 401: ${unauthorizedHint(target.headers.Authorization !== undefined)}`;
      return `image ${redactUrl(url)} answered HTTP ${res.status}`;
    } catch (err) {
      // The cause's code or the error's name only: a fetch error's message may quote the URL.
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      return `image ${redactUrl(url)} is unreachable (${cause})`;
    }
  }
  return null;
}

function unauthorizedHint(sentCredentials: boolean): string {
  const retry = 'until then the deployment is retried after a backoff';
  return sentCredentials
    ? `the image server refused the user and password in spec.image.url; correct them there (${retry})`
    : `the image server asks for credentials; give them in spec.image.url as https://user:password@host/path (${retry})`;
}

/**
 * The URL to fetch and the headers that go with it. fetch() refuses a URL with userinfo, which
 * Ironic takes for a private image server: it goes as HTTP Basic instead, user and password
 * percent-decoded as Python's urllib unquote does (an invalid escape is kept as written). fetch
 * drops the header on a redirect to another origin. A URL without userinfo is fetched as written.
 */
export function basicAuthRequest(url: string): { url: string; headers: { Authorization?: string } } {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return { url, headers: {} };
  const credentials = `${percentDecoded(parsed.username)}:${percentDecoded(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, headers: { Authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` } };
}

// Python's urllib.parse.unquote: runs of %XX as UTF-8 (U+FFFD for bytes that are not UTF-8),
// anything else as it stands. decodeURIComponent would throw on "%zz" or a lone "%C3".
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}
