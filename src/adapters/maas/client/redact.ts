import { MASK, createRedactor as createSharedRedactor } from '../../http/index.ts';
import { percentEncode } from './percent-encode.ts';

export { MASK };

// Keeps secrets out of error text. A failing MAAS (or a proxy in front of it) may quote the
// request back: the user data it rejected, a debug page with the Authorization header. So every
// secret of a request — the three parts of the API key, the user data as sent and decoded — is
// replaced in whatever text an error carries, raw and in the escaped forms it travels in.

/** Base64 user data and, when it decodes to text, the text too. */
export function userDataSecrets(base64: string): string[] {
  const out = [base64];
  const decoded = Buffer.from(base64, 'base64').toString('utf8');
  if (decoded !== '' && !decoded.includes('\uFFFD')) out.push(decoded);
  return out;
}

/** A redactor: replaces each secret (and its escaped forms, percent-encoded too) with `******`. */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  // A PLAINTEXT signature is enc(token secret), and the header encodes it once more.
  return createSharedRedactor(secrets, (s) => [percentEncode(s), encodeURIComponent(s), percentEncode(percentEncode(s))]);
}
