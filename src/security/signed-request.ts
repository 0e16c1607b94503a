// The signed envelope any metalfleet request can travel in (host commands, store apply and
// delete). The signature covers the subject, the signing time, a nonce and the exact body bytes,
// so it cannot be moved onto another subject (another shard, apply instead of delete), used
// again later, or kept while the body is changed.
import { randomBytes } from 'node:crypto';
import { Packr } from 'msgpackr';
import { z } from 'zod';
import { encode } from '../bus/index.ts';
import { UserPublicKey } from './authorized-keys.ts';
import type { SigningKey } from './signing-key.ts';

/** Domain tag: a signature made for metalfleet requests means nothing anywhere else (and v1 may change). */
const DOMAIN = 'metalfleet-signed-request/v1';
export const SIGNATURE_BYTES = 64;

const Bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'must be binary (MessagePack bin)');

/**
 * On the wire (MessagePack map): `type` "signed"; `signer` the sender's nkey user public key;
 * `signedAt` ms since the epoch; `nonce` 22-64 base64url characters, new for every request;
 * `signature` 64 bytes, ed25519 over canonicalBytes(); `body` the MessagePack bytes of the request
 * itself (a HostCommand, a store request), signed as they are and decoded only after the check.
 */
export const SignedRequest = z.strictObject({
  type: z.literal('signed'),
  signer: UserPublicKey,
  signedAt: z.number().int().nonnegative(),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{22,64}$/, 'must be 22-64 base64url characters'),
  signature: Bytes.refine((b) => b.length === SIGNATURE_BYTES, `must be ${SIGNATURE_BYTES} bytes`),
  body: Bytes,
});
export type SignedRequest = z.infer<typeof SignedRequest>;

/** What is signed: tag, subject, time and nonce on their own lines (none can hold a newline), then the body bytes. */
export function canonicalBytes(subject: string, signedAt: number, nonce: string, body: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`${DOMAIN}\n${subject}\n${signedAt}\n${nonce}\n`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/** Wraps `request` for `subject`, signed by `key` at `now` (ms). */
export function signRequest(key: SigningKey, subject: string, request: unknown, now: number = Date.now()): SignedRequest {
  const body = encode(request);
  const nonce = randomBytes(18).toString('base64url');
  const signature = key.sign(canonicalBytes(subject, now, nonce, body));
  return { type: 'signed', signer: key.publicKey, signedAt: now, nonce, signature, body };
}

/** True when the payload claims to be a signed envelope (whether or not it is a good one). */
export function looksSigned(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'signed';
}

const packr = new Packr({ useRecords: false, moreTypes: false, int64AsType: 'number' });

/**
 * The request a payload carries, signed or not, unchecked: a signed envelope's body decoded, else
 * the payload itself. For servers that take unsigned requests, and for the audit of a refusal.
 */
export function innerRequest(payload: unknown): unknown {
  if (!looksSigned(payload)) return payload;
  const body = (payload as { body?: unknown }).body;
  if (!(body instanceof Uint8Array)) return undefined;
  try {
    return packr.unpack(body);
  } catch {
    return undefined;
  }
}
