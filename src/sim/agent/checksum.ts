// How IPA decides what to verify a downloaded image against: os_hash_algo/os_hash_value first,
// then `checksum` (its algorithm told by its length; md5 for 32 hex digits), which may also be
// the URL of a checksums file ("<hash>  <file name>" lines, or just the hash).
import { createHash, getHashes } from 'node:crypto';
import { basename } from 'node:path';
import { commandFailed, downloadFailed } from './errors.ts';

export interface ExpectedChecksum { readonly algorithm: string; readonly value: string }

const BY_LENGTH: Record<number, string> = { 32: 'md5', 64: 'sha256', 128: 'sha512' };

function algorithmByLength(value: string): string {
  const algo = BY_LENGTH[value.length];
  if (algo === undefined) throw commandFailed(`Unable to identify the checksum algorithm of "${value}" (length ${value.length})`);
  return algo;
}

const isUrl = (s: string): boolean => /^https?:\/\//.test(s);

function fromChecksumFile(text: string, imageUrl: string, checksumUrl: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const hash = /^[0-9a-fA-F]+$/;
  if (lines.length === 1 && hash.test(lines[0] ?? '')) return (lines[0] ?? '').toLowerCase();
  const want = basename(new URL(imageUrl).pathname);
  for (const line of lines) {
    const [value, name] = line.split(/\s+\*?/, 2);
    if (value !== undefined && name !== undefined && hash.test(value) && basename(name) === want) return value.toLowerCase();
  }
  throw downloadFailed(checksumUrl, `Checksum file does not contain name ${want}`);
}

export async function expectedChecksum(info: Record<string, unknown>, imageUrl: string, fetchText: (url: string) => Promise<string>): Promise<ExpectedChecksum> {
  const algo = typeof info['os_hash_algo'] === 'string' ? info['os_hash_algo'] : null;
  const osValue = typeof info['os_hash_value'] === 'string' ? info['os_hash_value'] : null;
  const checksum = typeof info['checksum'] === 'string' ? info['checksum'] : null;
  const resolve = async (v: string): Promise<string> => (isUrl(v) ? fromChecksumFile(await fetchText(v), imageUrl, v) : v.toLowerCase());
  if (algo !== null && osValue !== null && getHashes().includes(algo)) return { algorithm: algo, value: await resolve(osValue) };
  if (checksum !== null) {
    const value = await resolve(checksum);
    return { algorithm: algo !== null && getHashes().includes(algo) ? algo : algorithmByLength(value), value };
  }
  throw commandFailed(`Unable to verify image ${String(info['id'])} with available checksums. Please make sure the specified 'os_hash_algo' (currently ${String(algo)}) is supported by this ramdisk, or provide a md5 checksum via the 'checksum' field`);
}

export const digest = (algorithm: string, bytes: Buffer): string => createHash(algorithm).update(bytes).digest('hex');
