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

/** Refusals of one sender folded into one record (src/security/refusal-limiter.ts), by reason. */
export const AuditRepeats = z.strictObject({
  /** How many refusals this record stands for, besides any recorded in full. */
  count: z.number().int().positive(),
  /** The first of them (RFC 3339, the node's clock); the record's `at` is when the count closed. */
  since: z.string(),
  /** The most frequent reasons first; refusals beyond the listed reasons are in `count` only. */
  reasons: z.array(z.strictObject({ action: AuditAction, code: z.string(), reason: z.string(), count: z.number().int().positive() })),
});
export type AuditRepeats = z.infer<typeof AuditRepeats>;

export const AuditRecord = z.strictObject({
  /** When the node decided (RFC 3339, the node's clock). */
  at: z.string(),
  node: z.string(),
  action: AuditAction,
  /** The host command (`powerOff` ...); for apply the object's kind (as sent); for delete `delete`. */
  command: z.string().nullable(),
  /** `namespace/name` of the target; null when the request was refused before it could be read. */
  host: z.string().nullable(),
  /**
   * The kind of the object the request was for (`BareMetalHost`, `MaasMachine`, `MaasCluster` ...),
   * since objects of several kinds may share `host`. Host commands: the one it named, or the one
   * the node resolved when it named none (commandKind). Apply: the object's kind; delete: the kind
   * it named (none: a BareMetalHost). Absent from records written before records had a kind
   * (readers take an old apply's `command`, which was its kind, and show the others for every
   * kind), and from a request refused before its kind could be read.
   */
  kind: z.string().optional(),
  requestId: z.string().nullable(),
  caller: AuditCaller,
  /** When the request was signed (RFC 3339), for signed requests. */
  signedAt: z.string().nullable(),
  outcome: AuditOutcome,
  /** For refused and failed: the error code (`unauthorized`, `forbidden`, `notFound` ...) and the reason the caller was told. */
  code: z.string().nullable(),
  reason: z.string().nullable(),
  /**
   * Refusals only: who sent it as the node's connection knows it, the connection part of the
   * reply subject (`_INBOX_<user>.<connection>`). NATS does not say which user published, and a
   * sender may name any reply subject: a lead, not a proof.
   */
  sender: z.string().optional(),
  /** Refusals of a payload that could not be read: its size in bytes (never its bytes). */
  size: z.number().int().nonnegative().optional(),
  repeats: AuditRepeats.optional(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;
