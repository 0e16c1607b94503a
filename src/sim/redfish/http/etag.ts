import { createHash } from 'node:crypto';

/** A strong ETag over the representation: any change to what a GET shows changes it. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 16)}"`;
}

/** RFC 9110 If-Match: `*` or any listed tag (weak or strong) matching the current one. */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined || header.trim() === '*') return true;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => strip(tag) === strip(current));
}
