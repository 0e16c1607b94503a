import { randomBytes } from 'node:crypto';
import type { Secret } from '../../api/secret.ts';

/**
 * The `metadata.resourceVersion` of Secrets held by this process, for the host controller's
 * `credentialsVersion` (BMO compares it with the Secret's to decide that credentials changed).
 *
 * A version is opaque and never carries, nor is computed from, a secret value: a hash of a password
 * in a host's status would let anyone who reads the status test guesses offline.
 */

// Differs per process, so a host status persisted by an earlier process (`--persist`) never holds
// a version this process gives to other content; the counter keeps versions unique within it.
const BOOT = randomBytes(6).toString('hex');
let issued = 0;

/** A version no Secret of this process has had, nor one of an earlier process. */
export function freshSecretVersion(): string {
  issued += 1;
  return `${BOOT}-${issued}`;
}

/**
 * Did this process stamp `version`? A Secret handed back with it (a copy of what a source gave)
 * brings no version of its own: its content decides, so an old version is never put back.
 */
export function stampedHere(version: string | undefined): boolean {
  return version !== undefined && version.startsWith(`${BOOT}-`);
}

/**
 * Do `a` and `b` hold the same content — type and values, `stringData` winning over `data` as the
 * API server merges them? Metadata is not content. Compared in memory only; nothing is kept.
 */
export function sameSecretContent(a: Pick<Secret, 'type' | 'data' | 'stringData'>, b: Pick<Secret, 'type' | 'data' | 'stringData'>): boolean {
  // The API server defaults the type; a manifest that leaves it out means Opaque.
  if ((a.type ?? 'Opaque') !== (b.type ?? 'Opaque')) return false;
  const av = effectiveValues(a);
  const bv = effectiveValues(b);
  if (av.size !== bv.size) return false;
  for (const [key, value] of av) {
    const other = bv.get(key);
    if (other === undefined || !other.equals(value)) return false;
  }
  return true;
}

function effectiveValues(s: Pick<Secret, 'data' | 'stringData'>): Map<string, Buffer> {
  const values = new Map<string, Buffer>();
  for (const [key, encoded] of Object.entries(s.data ?? {})) values.set(key, Buffer.from(encoded, 'base64'));
  for (const [key, plain] of Object.entries(s.stringData ?? {})) values.set(key, Buffer.from(plain, 'utf8'));
  return values;
}

/** Does `secret` bring a version of its own (one this process did not stamp)? */
export function givenVersion(secret: Secret): boolean {
  const version = secret.metadata.resourceVersion;
  return version !== undefined && !stampedHere(version);
}

/** `secret` with `version` as its resourceVersion (a copy; the input is not changed). */
export function withVersion(secret: Secret, version: string): Secret {
  return { ...secret, metadata: { ...secret.metadata, resourceVersion: version } };
}
