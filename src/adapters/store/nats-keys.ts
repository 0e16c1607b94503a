// Host keys (`namespace/name`) as NATS KV keys. A KV key is a subject: tokens separated by '.',
// made of letters, digits, '-', '_', '/' and '='. Kubernetes names may hold '.', and the schema
// admits any string, so every character outside [A-Za-z0-9-] is escaped as `_XX` per UTF-8 byte
// (upper-case hex; '_' itself becomes `_5F`). The key is `<namespace>.<name>`, each escaped:
// `metal3/worker-0` → `metal3.worker-0`, `metal3/rack1.node` → `metal3.rack1_2Enode`. Readable
// in `nats kv ls`, reversible, and `metal3.*` watches one namespace.

import { StoreError } from '../../ports/index.ts';

const PLAIN = /^[A-Za-z0-9-]$/;

/**
 * The longest KV key the stores write. A key is part of the subject of every message about it,
 * and nats-server refuses a protocol line over 4 KiB by closing the connection, which the client
 * then retries forever (a 5,000-character name: issue 19.5). A Kubernetes name (253) and
 * namespace (63) take at most ~830 bytes escaped; 1 KiB leaves room for the kind and bucket.
 */
export const MAX_KV_KEY_BYTES = 1024;

/** A key the store cannot hold: no retry makes it one. */
export class InvalidStoreKey extends StoreError {
  constructor(message: string) {
    super(message, false);
    this.name = 'InvalidStoreKey';
  }
}

/** A key for a message: cut, so a 5,000-character name does not fill the screen. */
export function shownKey(key: string): string {
  return key.length <= 120 ? key : `${key.slice(0, 100)}... (${key.length} characters)`;
}

function escapeToken(text: string): string {
  let out = '';
  for (const ch of text) {
    if (PLAIN.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, 'utf8')) out += `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const UNESCAPED = /^[A-Za-z0-9-]+$/;

function unescapeToken(token: string): string | undefined {
  // Most names need no escape: every watch event of every node comes through here.
  if (UNESCAPED.test(token)) return token;
  if (!/^(?:[A-Za-z0-9-]|_[0-9A-F]{2})+$/.test(token)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < token.length;) {
    if (token[i] === '_') {
      bytes.push(parseInt(token.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(token.charCodeAt(i));
      i += 1;
    }
  }
  const text = Buffer.from(bytes).toString('utf8');
  // A token that is not the escape of its decoding (bad UTF-8, a needless escape) is not ours.
  return escapeToken(text) === token ? text : undefined;
}

/** `namespace/name` → the KV key of the host in both buckets. */
export function hostKvKey(key: string): string {
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) throw new InvalidStoreKey(`host key must be namespace/name, got ${JSON.stringify(shownKey(key))}`);
  // Checked before escaping: an escape is at most 12 characters per character.
  if (key.length > MAX_KV_KEY_BYTES) throw tooLong(key, key.length);
  const kvKey = `${escapeToken(key.slice(0, slash))}.${escapeToken(key.slice(slash + 1))}`;
  if (kvKey.length > MAX_KV_KEY_BYTES) throw tooLong(key, kvKey.length);
  return kvKey;
}

function tooLong(key: string, length: number): InvalidStoreKey {
  return new InvalidStoreKey(`${shownKey(key)}: the key would be ${length} bytes; the store takes keys of at most ${MAX_KV_KEY_BYTES} (a Kubernetes name is at most 253 characters, a namespace 63)`);
}

/** The KV key back to `namespace/name`; undefined for a key this encoding did not make. */
export function hostKeyFromKv(kvKey: string): string | undefined {
  const tokens = kvKey.split('.');
  if (tokens.length !== 2) return undefined;
  const namespace = unescapeToken(tokens[0]!);
  const name = unescapeToken(tokens[1]!);
  return namespace === undefined || name === undefined ? undefined : `${namespace}/${name}`;
}
