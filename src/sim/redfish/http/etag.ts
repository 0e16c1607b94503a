import { createHash } from 'node:crypto';

/** A strong ETag over the representation: any change to what a GET shows changes it. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 16)}"`;
}

/**
 * RFC 9110 §13.1.1 If-Match: `*`, or a listed tag that strongly matches the current one. Strong
 * comparison means a weak tag (W/"...") never matches, whatever its opaque part: the answer is 412.
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined || header.trim() === '*') return true;
  return header.split(',').some((tag) => {
    const listed = tag.trim();
    return !listed.startsWith('W/') && listed === current;
  });
}

/**
 * RFC 9110 §13.1.2 If-None-Match: `*`, or a listed tag that weakly matches the current one (W/
 * ignored on both sides). True means the client's copy is current: a GET answers 304.
 */
export function ifNoneMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(current));
}
