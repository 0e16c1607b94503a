// The audit record of one request a node answered, built the same way by every request server
// (host commands, store apply and delete) so `metalfleet audit` reads them alike.
import type { UnreadRefusal } from '../../bus/index.ts';
import type { AuditAction, AuditLog, AuditOutcome, AuditRecord, Caller } from '../../security/index.ts';
import { looksSigned } from '../../security/index.ts';

export interface AuditFacts {
  readonly node: string;
  readonly action: AuditAction;
  readonly payload: unknown;
  readonly caller: Caller;
  readonly command: string | null;
  readonly host: string | null;
  readonly requestId: string | null;
  readonly outcome: AuditOutcome;
  readonly code?: string;
  readonly reason?: string;
  readonly now: Date;
}

export function auditEntry(f: AuditFacts): AuditRecord {
  const signedAt = looksSigned(f.payload) ? (f.payload as { signedAt?: unknown }).signedAt : undefined;
  return {
    at: f.now.toISOString(),
    node: f.node,
    action: f.action,
    command: f.command,
    host: f.host,
    requestId: f.requestId,
    caller: f.caller,
    signedAt: typeof signedAt === 'number' && Number.isFinite(signedAt) ? safeIso(signedAt) : null,
    outcome: f.outcome,
    code: f.code ?? null,
    // A reason comes from our own messages (no secret); cut so one record stays small.
    reason: f.reason === undefined ? null : f.reason.slice(0, 1_000),
  };
}

function safeIso(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A string field of a request we could not (or not yet) validate, cut short: for the audit of a refusal. */
export function claimed(request: unknown, field: string): string | null {
  if (typeof request !== 'object' || request === null) return null;
  const value = (request as Record<string, unknown>)[field];
  return typeof value === 'string' ? value.slice(0, 300) : null;
}

/**
 * Where a request's record goes: refused before a vouched-for signer sent it (anyone on the bus can
 * make those, as fast as they like), counted per sender; otherwise recorded as it is.
 */
export function auditOutcome(audit: AuditLog, entry: AuditRecord, vouched: boolean, sender: string): Promise<void> {
  return entry.outcome === 'refused' && !vouched ? audit.refused(entry, sender) : audit.record(entry);
}

/** The audit of a request refused unread (not MessagePack, too large): its size and sender, never its bytes. */
export function auditUnread(audit: AuditLog, node: string, action: AuditAction, refusal: UnreadRefusal, now: Date): Promise<void> {
  const entry = auditEntry({
    node, action, payload: undefined, caller: { kind: 'unverified', signer: null }, command: null, host: null, requestId: null,
    outcome: 'refused', code: refusal.code, reason: refusal.reason, now,
  });
  return audit.refused({ ...entry, size: refusal.size }, refusal.sender);
}
