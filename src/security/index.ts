// Who may ask a node for what, and the record of who did: signing keys (nkeys), the allow-list of
// keys and roles, the signed request envelope, the check every request server runs first, and
// the audit stream.
export { KeyFileError, RequestRefused } from './security-error.ts';
export type { RefusalCode } from './security-error.ts';
export { loadSigningKey, SigningKey } from './signing-key.ts';
export { writeNewSigningKey } from './keygen.ts';
export { exposedKeyProblem, readKeyFile } from './key-file.ts';
export { loadAuthorizedKeys, parseAuthorizedKeys, Role, ROLES, UserPublicKey } from './authorized-keys.ts';
export type { AuthorizedKey, AuthorizedKeys } from './authorized-keys.ts';
export { canonicalBytes, innerRequest, looksSigned, SignedRequest, signRequest } from './signed-request.ts';
export { kvNonceLedger, NONCE_BUCKET, nonceTtlMs, openNonceLedger } from './nonce-ledger.ts';
export type { NonceLedger } from './nonce-ledger.ts';
export { DEFAULT_FRESHNESS_MS, signedGuard, trustedGuard, unsignedGuard } from './request-guard.ts';
export type { Admission, Caller, RequestGuard, SignedGuardOptions } from './request-guard.ts';
export { AUDIT_ACTIONS, AUDIT_OUTCOMES, AuditAction, AuditCaller, AuditOutcome, AuditRecord, AuditRepeats } from './audit-record.ts';
export {
  AUDIT_MAX_AGE_MS, AUDIT_MAX_BYTES, AUDIT_REFUSALS_MAX_BYTES, AUDIT_REFUSALS_STREAM, AUDIT_STREAM, AuditUnavailable, ensureAuditStream, noAudit, openAuditLog,
} from './audit-log.ts';
export type { AuditLog, AuditStreamOptions } from './audit-log.ts';
export { OTHER_SENDERS, REFUSAL_FULL_PER_SENDER, REFUSAL_MAX_SENDERS, REFUSAL_WINDOW_MS, refusalLimiter } from './refusal-limiter.ts';
export type { RefusalLimiter, RefusalLimiterOptions } from './refusal-limiter.ts';
export { checkDelivery } from './audit-delivery.ts';
export type { Delivery, DeliveryCheck } from './audit-delivery.ts';
export { readAudit, readAuditChecked, recordKind, refusedSummary, unreadableSummary } from './audit-reader.ts';
export type { AuditQuery, AuditRead } from './audit-reader.ts';
export { checkPosture, openPosture, UnsafeStart } from './node-posture.ts';
export type { Posture, PostureSettings } from './node-posture.ts';
