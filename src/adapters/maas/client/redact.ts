import { percentEncode } from './percent-encode.ts';

// Keeps secrets out of error text. A failing MAAS (or a proxy in front of it) may quote the
// request back: the user data it rejected, a debug page with the Authorization header. So every
// secret of a request — the three parts of the API key, the user data as sent and decoded — is
// replaced in whatever text an error carries, raw and in the escaped forms it travels in.

export const MASK = '******';

// Below this length a secret is replaced only where it stands quoted, so that a short test key
// does not blank out every "a" of a message. Real MAAS key parts are 18 and 32 characters.
const SHORT = 4;
// Lines of decoded user data this long or longer are replaced on their own too.
const LINE = 8;

function pythonRepr(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/'/g, "\\'");
}

function jsonEscaped(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

function variants(secret: string): string[] {
  const bases = [secret, pythonRepr(secret), jsonEscaped(secret), percentEncode(secret), encodeURIComponent(secret)];
  if (secret.includes('\n')) bases.push(...secret.split(/\r?\n/).filter((line) => line.trim().length >= LINE));
  return [...new Set(bases)];
}

/** Base64 user data and, when it decodes to text, the text too. */
export function userDataSecrets(base64: string): string[] {
  const out = [base64];
  const decoded = Buffer.from(base64, 'base64').toString('utf8');
  if (decoded !== '' && !decoded.includes('\uFFFD')) out.push(decoded);
  return out;
}

/** A redactor: replaces each secret (and its escaped forms) with `******`. */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const long: string[] = [];
  const quoted: string[] = [];
  for (const s of secrets) {
    if (s === '') continue;
    if (s.length >= SHORT) long.push(...variants(s));
    else for (const v of variants(s)) quoted.push(`'${v}'`, `"${v}"`);
  }
  // Longest first, so that a secret containing another is replaced whole.
  const needles = [...new Set([...long, ...quoted])].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const n of needles) out = out.split(n).join(MASK);
    return out;
  };
}
