// Appending to the audit stream. Nodes create the stream (JetStream API over the transport, as
// a client would) and publish each record with a request, so a record is in the stream when the
// call returns. An audit that cannot be written is logged and does not undo the command: the
// command is already durable in the store by then.
import type { Logger, Transport } from '../ports/index.ts';
import type { Subjects } from '../bus/index.ts';
import type { AuditRecord } from './audit-record.ts';
import { MetalfleetError, errorMessage } from '../api/index.ts';

export const AUDIT_STREAM = 'mf-audit';
/** 30 days: long enough to answer "who powered this off last month". */
export const AUDIT_MAX_AGE_MS = 30 * 24 * 3_600_000;
/** 256 MiB: about a million records; the oldest go first beyond it. */
export const AUDIT_MAX_BYTES = 256 * 1024 * 1024;

export interface AuditLog {
  /** Never throws: a failure is logged. */
  record(entry: AuditRecord): Promise<void>;
}

/** For the embedded single process: nobody else can send it anything, so there is nothing to audit. */
export const noAudit: AuditLog = { record: () => Promise.resolve() };

export class AuditUnavailable extends MetalfleetError {
  constructor(detail: string, options?: ErrorOptions) {
    super('auditUnavailable', `audit stream ${AUDIT_STREAM}: ${detail}`, true, undefined, options);
    this.name = 'AuditUnavailable';
  }
}

type JsReply = { error?: { code?: number; err_code?: number; description?: string } } & Record<string, unknown>;

export async function jsApi(transport: Transport, api: string, body: unknown, timeoutMs = 5_000): Promise<JsReply> {
  const raw = await transport.request(`$JS.API.${api}`, new TextEncoder().encode(body === undefined ? '' : JSON.stringify(body)), { timeoutMs });
  return JSON.parse(new TextDecoder().decode(raw)) as JsReply;
}

export interface AuditStreamOptions {
  readonly maxAgeMs?: number;
  readonly maxBytes?: number;
  readonly replicas?: number;
}

/** Creates the audit stream unless it exists (one an operator created or tuned is left as it is). */
export async function ensureAuditStream(transport: Transport, subjects: Subjects, options: AuditStreamOptions = {}): Promise<void> {
  const info = await jsApi(transport, `STREAM.INFO.${AUDIT_STREAM}`, undefined);
  if (!info.error) return;
  if (info.error.code !== 404) throw new AuditUnavailable(`JetStream said ${info.error.description ?? info.error.code}`);
  const created = await jsApi(transport, `STREAM.CREATE.${AUDIT_STREAM}`, {
    name: AUDIT_STREAM,
    subjects: [subjects.audits],
    retention: 'limits',
    storage: 'file',
    discard: 'old',
    max_age: (options.maxAgeMs ?? AUDIT_MAX_AGE_MS) * 1_000_000,
    max_bytes: options.maxBytes ?? AUDIT_MAX_BYTES,
    max_msg_size: 64 * 1024,
    num_replicas: options.replicas ?? 1,
  });
  // Another node may have created it between our two calls: that is as good.
  if (created.error && created.error.err_code !== 10058) throw new AuditUnavailable(`cannot create it: ${created.error.description ?? created.error.code}`);
}

/** The audit log of a node on NATS: creates the stream, then appends one JSON record per request. */
export async function openAuditLog(transport: Transport, subjects: Subjects, log: Logger, options: AuditStreamOptions = {}): Promise<AuditLog> {
  await ensureAuditStream(transport, subjects, options);
  return {
    async record(entry) {
      try {
        const raw = await transport.request(subjects.audit(entry.action), new TextEncoder().encode(JSON.stringify(entry)), { timeoutMs: 5_000 });
        const ack = JSON.parse(new TextDecoder().decode(raw)) as JsReply;
        if (ack.error) throw new AuditUnavailable(`JetStream refused the record: ${ack.error.description ?? ack.error.code}`);
      } catch (error) {
        log.error({ component: 'audit', host: entry.host, action: entry.action, outcome: entry.outcome, err: errorMessage(error) }, 'audit record not written');
      }
    },
  };
}
