// Appending to the audit stream. Nodes create the stream (JetStream API over the transport, as
// a client would) and publish each record with a request, so a record is in the stream when the
// call returns, unless the stream has not acknowledged it within AUDIT_REPLY_WAIT_MS: then the call
// returns and the write goes on (flush waits for it). A request server replies once the call
// returns, and a client gives an attempt 2 s: waiting the write's own 5 s on a slow stream had the
// client send the command again, and its retry answered "already taken", so the user never
// heard "applied". An audit that cannot be written is logged and does not undo the command: the
// command is already durable in the store by then.
//
// Two streams, so refusals can never push accepted commands out: mf-audit keeps the requests a
// node took (and what came of them) for 30 days; mf-audit-refusals keeps the refusals, counted
// per sender (refusal-limiter.ts), within its own byte limit, oldest first. One stream with
// per-subject limits would not do: max_msgs_per_subject caps the accepted subjects as much as
// the refused ones, and the stream's max_bytes drops its oldest message whatever its subject.
import type { Logger, Transport } from '../ports/index.ts';
import type { Subjects } from '../bus/index.ts';
import type { AuditRecord } from './audit-record.ts';
import { refusalLimiter, type RefusalLimiterOptions } from './refusal-limiter.ts';
import { MetalfleetError, errorMessage } from '../api/index.ts';

export const AUDIT_STREAM = 'mf-audit';
/** 30 days: long enough to answer "who powered this off last month". */
export const AUDIT_MAX_AGE_MS = 30 * 24 * 3_600_000;
/** 256 MiB: about a million records; the oldest go first beyond it. */
export const AUDIT_MAX_BYTES = 256 * 1024 * 1024;
/** The refusals: 30 days too, in 64 MiB (at most 221 records per node per 10 s window); the oldest go first. */
export const AUDIT_REFUSALS_STREAM = 'mf-audit-refusals';
export const AUDIT_REFUSALS_MAX_BYTES = 64 * 1024 * 1024;
/** How long a reply waits for its record: well inside a client's 2 s attempt (the store's write comes first). */
export const AUDIT_REPLY_WAIT_MS = 1_000;

export interface AuditLog {
  /**
   * A request the node took, or refused once its signer was vouched for. Never throws: a failure
   * is logged. Resolves once the stream has the record, or after AUDIT_REPLY_WAIT_MS while the
   * write goes on.
   */
  record(entry: AuditRecord): Promise<void>;
  /**
   * A request refused before its sender was vouched for (unsigned, unknown key, bad signature,
   * stale, replayed, wrong role, unreadable): counted per `sender` (the connection part of its
   * reply subject), into the refusals stream. Never throws.
   */
  refused(entry: AuditRecord, sender: string): Promise<void>;
  /** Writes the refusals counted so far, and waits for writes still going; a stopping node calls it after its request servers stop. */
  flush(): Promise<void>;
}

/** For the embedded single process: nobody else can send it anything, so there is nothing to audit. */
export const noAudit: AuditLog = { record: () => Promise.resolve(), refused: () => Promise.resolve(), flush: () => Promise.resolve() };

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
  readonly refusalsMaxBytes?: number;
  readonly replicas?: number;
  /** How refusals are counted (tests shorten the window). */
  readonly refusals?: Omit<RefusalLimiterOptions, 'write'>;
  /** How long record() and refused() wait for a write before returning; default AUDIT_REPLY_WAIT_MS. */
  readonly replyWaitMs?: number;
}

/** Creates both audit streams unless they exist (one an operator created or tuned is left as it is). */
export async function ensureAuditStream(transport: Transport, subjects: Subjects, options: AuditStreamOptions = {}): Promise<void> {
  await ensureStream(transport, AUDIT_STREAM, subjects.audits, options.maxBytes ?? AUDIT_MAX_BYTES, options);
  await ensureStream(transport, AUDIT_REFUSALS_STREAM, subjects.refusals, options.refusalsMaxBytes ?? AUDIT_REFUSALS_MAX_BYTES, options);
}

async function ensureStream(transport: Transport, stream: string, subject: string, maxBytes: number, options: AuditStreamOptions): Promise<void> {
  const info = await jsApi(transport, `STREAM.INFO.${stream}`, undefined);
  if (!info.error) return;
  if (info.error.code !== 404) throw new AuditUnavailable(`${stream}: JetStream said ${info.error.description ?? info.error.code}`);
  const created = await jsApi(transport, `STREAM.CREATE.${stream}`, {
    name: stream,
    subjects: [subject],
    retention: 'limits',
    storage: 'file',
    discard: 'old',
    max_age: (options.maxAgeMs ?? AUDIT_MAX_AGE_MS) * 1_000_000,
    max_bytes: maxBytes,
    max_msg_size: 64 * 1024,
    num_replicas: options.replicas ?? 1,
  });
  if (!created.error) return;
  // Another node may have created it between our two calls: that is as good. A clustered
  // JetStream answers that race with "name already in use" or, while the other create is still
  // being proposed, "subjects overlap"; so on any refusal, look again before giving up.
  if (created.error.err_code === 10058) return;
  const again = await jsApi(transport, `STREAM.INFO.${stream}`, undefined);
  if (!again.error) return;
  throw new AuditUnavailable(`cannot create ${stream}: ${created.error.description ?? created.error.code}`);
}

/** The audit log of a node on NATS: creates the streams, then appends one JSON record per request (refusals counted). */
export async function openAuditLog(transport: Transport, subjects: Subjects, log: Logger, options: AuditStreamOptions = {}): Promise<AuditLog> {
  await ensureAuditStream(transport, subjects, options);
  const write = async (subject: string, entry: AuditRecord): Promise<void> => {
    try {
      const raw = await transport.request(subject, new TextEncoder().encode(JSON.stringify(entry)), { timeoutMs: 5_000 });
      const ack = JSON.parse(new TextDecoder().decode(raw)) as JsReply;
      if (ack.error) throw new AuditUnavailable(`JetStream refused the record: ${ack.error.description ?? ack.error.code}`);
    } catch (error) {
      log.error({ component: 'audit', host: entry.host, action: entry.action, outcome: entry.outcome, err: errorMessage(error) }, 'audit record not written');
    }
  };
  const waitMs = options.replyWaitMs ?? AUDIT_REPLY_WAIT_MS;
  const going = new Set<Promise<void>>();
  // The write, waited for at most waitMs; it never rejects (a failure is logged), so one left going needs no catch.
  const append = (subject: string, entry: AuditRecord): Promise<void> => {
    const written = write(subject, entry);
    going.add(written);
    void written.then(() => going.delete(written));
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      timer.unref();
      void written.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  };
  const refusals = refusalLimiter({ ...options.refusals, write: (entry) => append(subjects.refusal(entry.action), entry) });
  return {
    record: (entry) => append(subjects.audit(entry.action), entry),
    refused: (entry, sender) => refusals.refused(entry, sender),
    flush: async () => {
      await refusals.flush();
      await Promise.all([...going]);
    },
  };
}
