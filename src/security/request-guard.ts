// Who may send a request to a node: the check every request server (host commands, store apply
// and delete) runs first, before it reads what the request asks. Three postures:
//   signed     - an allow-listed key of the required role must have signed it (--authorized-keys)
//   unsigned   - anything is taken, and recorded as unsigned (--allow-unsigned-commands, explicit)
//   trusted    - the embedded single process: no one else is on its bus
// With both an allow-list and --allow-unsigned-commands (a migration), signed requests are still
// checked in full and unsigned ones are taken as unsigned.
import { fromPublic } from '@nats-io/nkeys';
import type { AuthorizedKeys, Role } from './authorized-keys.ts';
import type { NonceLedger } from './nonce-ledger.ts';
import { RequestRefused } from './security-error.ts';
import { canonicalBytes, innerRequest, looksSigned, SignedRequest } from './signed-request.ts';

/** ±2 minutes: NTP keeps nodes and operators well inside it, and a captured request is dead after it. */
export const DEFAULT_FRESHNESS_MS = 120_000;

/**
 * Who sent a request, as the audit records it. `signed` (with the allow-list's name and role) only
 * for an allow-listed key whose signature verified; `unverified` keeps the key a sender claimed.
 */
export type Caller =
  | { readonly kind: 'signed'; readonly signer: string; readonly name: string; readonly role: Role }
  | { readonly kind: 'unverified'; readonly signer: string | null }
  | { readonly kind: 'unsigned' }
  | { readonly kind: 'trusted' };

export type Admission =
  | { readonly ok: true; readonly caller: Caller; readonly request: unknown }
  | { readonly ok: false; readonly caller: Caller; readonly error: RequestRefused };

export interface RequestGuard {
  /** Checks the payload (already MessagePack-decoded) received on `subject`; on success, the request inside it, still unvalidated. */
  admit(subject: string, payload: unknown, need: Role): Promise<Admission>;
  /** 'signed', 'unsigned' or 'trusted': for the start log. */
  readonly posture: 'signed' | 'unsigned' | 'trusted';
}

export interface SignedGuardOptions {
  readonly keys: AuthorizedKeys;
  readonly nonces: NonceLedger;
  /** Also take unsigned requests (recorded as unsigned). */
  readonly allowUnsigned?: boolean;
  readonly freshnessMs?: number;
  readonly now?: () => number;
}

const HOW_TO_SIGN = 'sign it with an allow-listed operator key (metalfleet: --signing-key FILE or METALFLEET_SIGNING_KEY_FILE)';

export function signedGuard(options: SignedGuardOptions): RequestGuard {
  const windowMs = options.freshnessMs ?? DEFAULT_FRESHNESS_MS;
  const now = options.now ?? Date.now;
  const refuse = (caller: Caller, code: 'unauthorized' | 'forbidden', reason: string): Admission => ({ ok: false, caller, error: new RequestRefused(code, reason) });
  return {
    posture: 'signed',
    async admit(subject, payload, need) {
      if (!looksSigned(payload)) {
        if (options.allowUnsigned) return { ok: true, caller: { kind: 'unsigned' }, request: payload };
        return refuse({ kind: 'unsigned' }, 'unauthorized', `unsigned request refused: this node takes only signed requests; ${HOW_TO_SIGN}`);
      }
      const parsed = SignedRequest.safeParse(payload);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const claimed = typeof (payload as { signer?: unknown }).signer === 'string' ? String((payload as { signer: string }).signer).slice(0, 56) : null;
        return refuse({ kind: 'unverified', signer: claimed }, 'unauthorized', `malformed signed envelope at ${issue?.path.map(String).join('.') || '(envelope)'}: ${issue?.message ?? 'invalid'}`);
      }
      const env = parsed.data;
      const key = options.keys.get(env.signer);
      if (!key) return refuse({ kind: 'unverified', signer: env.signer }, 'unauthorized', `key ${env.signer} is not in this cluster's authorized keys: add "<role> ${env.signer} <name>" to the --authorized-keys file of every node, then restart them: a node reads the file at start`);
      let valid = false;
      try {
        valid = fromPublic(env.signer).verify(canonicalBytes(subject, env.signedAt, env.nonce, env.body), env.signature);
      } catch {
        valid = false;
      }
      // Anyone may name an allow-listed key: until its signature verifies, the sender is not its
      // holder, and is recorded as unverified with the key only as claimed (never its name or role).
      if (!valid) return refuse({ kind: 'unverified', signer: env.signer }, 'unauthorized', `bad signature for the key of ${key.name} (${env.signer.slice(0, 12)}...): the request was changed after it was signed, signed for another subject than ${subject}, or not signed by that key at all`);
      const caller: Caller = { kind: 'signed', signer: key.publicKey, name: key.name, role: key.role };
      const skew = env.signedAt - now();
      if (Math.abs(skew) > windowMs) {
        return refuse(caller, 'unauthorized', `stale request from ${key.name}: signed ${Math.round(Math.abs(skew) / 1_000)} s ${skew < 0 ? 'ago' : 'ahead of this node\'s clock'} (at most ${windowMs / 1_000} s either way): sign it again, and check the clocks`);
      }
      if (key.role !== need) return refuse(caller, 'forbidden', `key ${key.name} has role ${key.role}; this request needs an ${need} key`);
      if (!(await options.nonces.claim(env.signer, env.nonce))) {
        return refuse(caller, 'unauthorized', `replayed request from ${key.name}: nonce ${env.nonce} was already used; every request must be signed anew`);
      }
      return { ok: true, caller, request: innerRequest(env) };
    },
  };
}

/** --allow-unsigned-commands without an allow-list: everything is taken, recorded as unsigned (signed ones unverified). */
export function unsignedGuard(): RequestGuard {
  return {
    posture: 'unsigned',
    admit(_subject, payload) {
      return Promise.resolve(unwrapped(payload, 'unsigned'));
    },
  };
}

/** The embedded single process: its bus is private, so every request is its own. */
export function trustedGuard(): RequestGuard {
  return {
    posture: 'trusted',
    admit(_subject, payload) {
      return Promise.resolve(unwrapped(payload, 'trusted'));
    },
  };
}

// A signed request to a node that checks nothing still carries its request in `body`.
function unwrapped(payload: unknown, kind: 'unsigned' | 'trusted'): Admission {
  if (!looksSigned(payload)) return { ok: true, caller: { kind }, request: payload };
  const signer = (payload as { signer?: unknown }).signer;
  const caller: Caller = kind === 'unsigned' ? { kind: 'unverified', signer: typeof signer === 'string' ? signer.slice(0, 56) : null } : { kind };
  return { ok: true, caller, request: innerRequest(payload) };
}
