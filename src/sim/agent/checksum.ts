// How IPA decides what to verify a downloaded image against: os_hash_algo/os_hash_value first,
// then `checksum` (its algorithm told by its length; md5 for 32 hex digits). Either value may be
// the URL of a checksums file: just the hash, GNU lines ("<hash>  <file name>") or CentOS/BSD
// lines ("SHA256 (<file name>) = <hash>"), comments allowed, as IPA's _fetch_checksum reads them.
import { createHash, getHashes } from 'node:crypto';
import { basename } from 'node:path';
import { commandFailed, downloadFailed } from './errors.ts';

export interface ExpectedChecksum { readonly algorithm: string; readonly value: string }

const BY_LENGTH: Record<number, string> = { 32: 'md5', 64: 'sha256', 128: 'sha512' };

// os_hash_algo is a Python hashlib name (Glance's os_hash_algo); node spells some differently.
const NODE_NAME: Record<string, string> = { sha3_224: 'sha3-224', sha3_256: 'sha3-256', sha3_384: 'sha3-384', sha3_512: 'sha3-512', blake2b: 'blake2b512', blake2s: 'blake2s256', sha512_224: 'sha512-224', sha512_256: 'sha512-256' };

function supported(algo: string | null): string | null {
  if (algo === null) return null;
  const name = NODE_NAME[algo] ?? algo;
  return getHashes().includes(name) ? name : null;
}

function algorithmByLength(value: string, id: string): string {
  const algo = BY_LENGTH[value.length];
  if (algo === undefined) {
    throw commandFailed(`Unable to proceed with image ${id} as the checksum indicator has been used but the algorithm could not be identified. Error: Unable to identify checksum algorithm used (a hash of ${value.length} characters), and a value is not specified in the os_hash_algo setting.`);
  }
  return algo;
}

const isUrl = (s: string): boolean => /^https?:\/\//.test(s);
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const HASH = '[0-9a-fA-F]{32}|[0-9a-fA-F]{64}|[0-9a-fA-F]{128}';

/** The hash for the image named by imageUrl in a checksums file (checksumUrl: for messages only). */
export function fromChecksumFile(text: string, imageUrl: string, checksumUrl: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) throw downloadFailed(checksumUrl, 'Empty checksum file');
  const only = lines[0] ?? '';
  if (lines.length === 1 && !only.includes(' ')) {
    if (new RegExp(`^(?:${HASH})$`).test(only)) return only.toLowerCase();
    throw downloadFailed(checksumUrl, `Invalid checksum file (No valid checksum found) ${JSON.stringify(lines)}`);
  }
  const want = basename(new URL(imageUrl).pathname);
  const names = [new RegExp(`\\s\\*?${escape(want)}$`), new RegExp(`\\s\\(${escape(want)}\\)\\s`)];
  const hashes = [new RegExp(`^(${HASH})\\s`), new RegExp(`\\s(${HASH})$`)];
  for (const line of lines) {
    if (line.startsWith('#') || !names.some((n) => n.test(line))) continue;
    for (const h of hashes) {
      const m = h.exec(line);
      if (m?.[1] !== undefined) return m[1].toLowerCase();
    }
  }
  throw downloadFailed(checksumUrl, `Checksum file does not contain name ${want}`);
}

export async function expectedChecksum(info: Record<string, unknown>, imageUrl: string, fetchText: (url: string) => Promise<string>): Promise<ExpectedChecksum> {
  const id = String(info['id']);
  const algo = typeof info['os_hash_algo'] === 'string' ? info['os_hash_algo'] : null;
  const osValue = typeof info['os_hash_value'] === 'string' ? info['os_hash_value'] : null;
  const checksum = typeof info['checksum'] === 'string' ? info['checksum'] : null;
  const resolve = async (v: string): Promise<string> => (isUrl(v) ? fromChecksumFile(await fetchText(v), imageUrl, v) : v.toLowerCase());
  const known = supported(algo);
  if (known !== null && osValue !== null) return { algorithm: known, value: await resolve(osValue) };
  if (checksum !== null) {
    const value = await resolve(checksum);
    return { algorithm: known ?? algorithmByLength(value, id), value };
  }
  throw commandFailed(`Unable to verify image ${id} with available checksums. Please make sure the specified 'os_hash_algo' (currently ${String(algo)}) is supported by this ramdisk, or provide a md5 checksum via the 'checksum' field`);
}

export const digest = (algorithm: string, bytes: Buffer): string => createHash(algorithm).update(bytes).digest('hex');
