// One line of the audit: who asked what of which host, and what came of it. Stored as JSON in
// the mf-audit stream, so `nats stream view mf-audit` reads it as well as `metalfleet audit`.
// Public keys and allow-list names only: no seed, no credential, no request body.
import { z } from 'zod';
import { Role } from './authorized-keys.ts';

export const AUDIT_ACTIONS = ['command', 'apply', 'delete'] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

/** applied: it changed the store; alreadyRecorded: a repeat, nothing changed; refused: not taken (reason); failed: taken, but it could not be done (reason). */
export const AUDIT_OUTCOMES = ['applied', 'alreadyRecorded', 'refused', 'failed'] as const;
export const AuditOutcome = z.enum(AUDIT_OUTCOMES);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

export const AuditCaller = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('signed'), signer: z.string(), name: z.string(), role: Role }),
  /** Signed by a key we could not vouch for (unknown, or a node that checks nothing): the key it claimed. */
  z.strictObject({ kind: z.literal('unverified'), signer: z.string().nullable() }),
  z.strictObject({ kind: z.literal('unsigned') }),
  z.strictObject({ kind: z.literal('trusted') }),
]);
export type AuditCaller = z.infer<typeof AuditCaller>;

export const AuditRecord = z.strictObject({
  /** When the node decided (RFC 3339, the node's clock). */
  at: z.string(),
  node: z.string(),
  action: AuditAction,
  /** The host command (`powerOff` ...), or for apply the object's kind. */
  command: z.string().nullable(),
  /** `namespace/name` of the target; null when the request was refused before it could be read. */
  host: z.string().nullable(),
  requestId: z.string().nullable(),
  caller: AuditCaller,
  /** When the request was signed (RFC 3339), for signed requests. */
  signedAt: z.string().nullable(),
  outcome: AuditOutcome,
  /** For refused and failed: the error code (`unauthorized`, `forbidden`, `notFound` ...) and the reason the caller was told. */
  code: z.string().nullable(),
  reason: z.string().nullable(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;
