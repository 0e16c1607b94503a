// Reading the audit stream back, read-only: an ordered, ephemeral push consumer (JetStream's
// STREAM.INFO and CONSUMER.CREATE, no acks, in memory, gone 30 s after the reader) that a NATS
// user with read rights only may create. The consumer says at creation how many records match;
// the reader takes that many and stops, so records written meanwhile do not keep it reading.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Subjects } from '../bus/index.ts';
import { BusError, type Transport } from '../ports/index.ts';
import { AUDIT_STREAM, AuditUnavailable, jsApi } from './audit-log.ts';
import { AuditRecord } from './audit-record.ts';
import { errorMessage } from '../api/index.ts';

export interface AuditQuery {
  /** Only records about this host (`namespace/name`). */
  readonly host?: string;
  /** Only records the stream took at or after this time. */
  readonly since?: Date;
  /** Give up when the records have not all arrived by then; default 60 s. */
  readonly timeoutMs?: number;
}

const StreamInfo = z.object({ state: z.object({ messages: z.number() }) });
const ConsumerInfo = z.object({ name: z.string(), num_pending: z.number() });

export async function readAudit(transport: Transport, subjects: Subjects, query: AuditQuery = {}): Promise<AuditRecord[]> {
  const info = await ask(transport, `STREAM.INFO.${AUDIT_STREAM}`, undefined);
  if (info.error) {
    if (info.error.code === 404) throw new AuditUnavailable('does not exist: no node of this cluster has started yet with this version (nodes create it)');
    throw new AuditUnavailable(`JetStream said ${info.error.description ?? info.error.code}`);
  }
  if (StreamInfo.parse(info).state.messages === 0) return [];

  const inbox = `_INBOX.audit.${randomBytes(12).toString('hex')}`;
  const received: Uint8Array[] = [];
  let expected = Number.POSITIVE_INFINITY;
  let wake: () => void = () => undefined;
  const sub = transport.subscribe(inbox, (msg) => {
    // Flow control and heartbeats are off: every message is a record.
    received.push(msg.data);
    if (received.length >= expected) wake();
  });
  try {
    const created = await ask(transport, `CONSUMER.CREATE.${AUDIT_STREAM}`, {
      stream_name: AUDIT_STREAM,
      config: {
        deliver_subject: inbox,
        filter_subject: subjects.audits,
        ack_policy: 'none',
        replay_policy: 'instant',
        mem_storage: true,
        num_replicas: 1,
        // Gone on its own once the reader is: a viewer may not delete consumers.
        inactive_threshold: 30_000_000_000,
        ...(query.since ? { deliver_policy: 'by_start_time', opt_start_time: query.since.toISOString() } : { deliver_policy: 'all' }),
      },
    });
    if (created.error) throw new AuditUnavailable(`cannot read it: JetStream said ${created.error.description ?? created.error.code}`);
    expected = ConsumerInfo.parse(created).num_pending;
    if (received.length < expected) {
      const timeoutMs = query.timeoutMs ?? 60_000;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new AuditUnavailable(`${received.length} of ${expected} records arrived within ${timeoutMs / 1_000} s; try again, or narrow it with --since`)), timeoutMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    sub.unsubscribe();
  }
  const records: AuditRecord[] = [];
  for (const data of received.slice(0, expected)) {
    const record = parseRecord(data);
    if (record === null) continue;
    if (query.host !== undefined && record.host !== query.host) continue;
    records.push(record);
  }
  return records;
}

// A record some other writer put on an audit subject is skipped rather than failing the read.
function parseRecord(data: Uint8Array): AuditRecord | null {
  try {
    const parsed = AuditRecord.safeParse(JSON.parse(new TextDecoder().decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function ask(transport: Transport, api: string, body: unknown): Promise<Awaited<ReturnType<typeof jsApi>>> {
  try {
    return await jsApi(transport, api, body);
  } catch (error) {
    if (error instanceof BusError && error.kind === 'noResponders') throw new AuditUnavailable(`no JetStream answered on ${transport.name}: is JetStream enabled?`, { cause: error });
    throw new AuditUnavailable(errorMessage(error), { cause: error });
  }
}
