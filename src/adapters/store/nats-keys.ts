// Host keys (`namespace/name`) as NATS KV keys. A KV key is a subject: tokens separated by '.',
// made of letters, digits, '-', '_', '/' and '='. Kubernetes names may hold '.', and the schema
// admits any string, so every character outside [A-Za-z0-9-] is escaped as `_XX` per UTF-8 byte
// (upper-case hex; '_' itself becomes `_5F`). The key is `<namespace>.<name>`, each escaped:
// `metal3/worker-0` → `metal3.worker-0`, `metal3/rack1.node` → `metal3.rack1_2Enode`. Readable
// in `nats kv ls`, reversible, and `metal3.*` watches one namespace.

const PLAIN = /^[A-Za-z0-9-]$/;

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
  if (slash <= 0 || slash === key.length - 1) throw new RangeError(`host key must be namespace/name, got ${JSON.stringify(key)}`);
  return `${escapeToken(key.slice(0, slash))}.${escapeToken(key.slice(slash + 1))}`;
}

/** The KV key back to `namespace/name`; undefined for a key this encoding did not make. */
export function hostKeyFromKv(kvKey: string): string | undefined {
  const tokens = kvKey.split('.');
  if (tokens.length !== 2) return undefined;
  const namespace = unescapeToken(tokens[0]!);
  const name = unescapeToken(tokens[1]!);
  return namespace === undefined || name === undefined ? undefined : `${namespace}/${name}`;
}
