// Reading the audit stream back, read-only: stream info and single-message gets (JetStream's
// STREAM.INFO and STREAM.MSG.GET), which a NATS user with read-only rights may call. Server 2.9
// has no batched direct get, so records come one request each; --since finds its start by a
// binary search over the stream's times instead of reading from the first record.
import { z } from 'zod';
import type { Subjects } from '../bus/index.ts';
import { BusError, type Transport } from '../ports/index.ts';
import { AUDIT_STREAM, AuditUnavailable, jsApi } from './audit-log.ts';
import { AuditRecord } from './audit-record.ts';

export interface AuditQuery {
  /** Only records about this host (`namespace/name`). */
  readonly host?: string;
  /** Only records the stream took at or after this time. */
  readonly since?: Date;
}

const StreamInfo = z.object({ state: z.object({ first_seq: z.number(), last_seq: z.number(), messages: z.number() }) });
const StoredMessage = z.object({ message: z.object({ seq: z.number(), time: z.string(), data: z.string().optional() }) });
type Stored = { seq: number; time: number; data: string };

export async function readAudit(transport: Transport, subjects: Subjects, query: AuditQuery = {}): Promise<AuditRecord[]> {
  const info = await ask(transport, `STREAM.INFO.${AUDIT_STREAM}`, undefined);
  if (info.error) {
    if (info.error.code === 404) throw new AuditUnavailable('does not exist: no node of this cluster has started yet with this version (nodes create it)');
    throw new AuditUnavailable(`JetStream said ${info.error.description ?? info.error.code}`);
  }
  const state = StreamInfo.parse(info).state;
  if (state.messages === 0) return [];
  const get = async (seq: number): Promise<Stored | null> => {
    const reply = await ask(transport, `STREAM.MSG.GET.${AUDIT_STREAM}`, { seq, next_by_subj: subjects.audits });
    if (reply.error) {
      if (reply.error.code === 404) return null;
      throw new AuditUnavailable(`reading record ${seq}: JetStream said ${reply.error.description ?? reply.error.code}`);
    }
    const m = StoredMessage.parse(reply).message;
    return { seq: m.seq, time: Date.parse(m.time), data: m.data ?? '' };
  };
  let start = state.first_seq;
  const since = query.since?.getTime();
  if (since !== undefined) {
    // The smallest sequence stored at or after `since` (the stream's times only grow with its sequence).
    let lo = state.first_seq;
    let hi = state.last_seq + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const m = await get(mid);
      if (m === null || m.seq > state.last_seq || m.time >= since) hi = mid;
      else lo = m.seq + 1;
    }
    start = lo;
  }
  const records: AuditRecord[] = [];
  for (let seq = start; seq <= state.last_seq;) {
    const m = await get(seq);
    if (m === null) break;
    seq = m.seq + 1;
    const record = parseRecord(m);
    if (record === null) continue;
    if (query.host !== undefined && record.host !== query.host) continue;
    records.push(record);
  }
  return records;
}

// A record some other writer put on an audit subject is skipped rather than failing the read.
function parseRecord(m: Stored): AuditRecord | null {
  try {
    const parsed = AuditRecord.safeParse(JSON.parse(Buffer.from(m.data, 'base64').toString('utf8')));
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
    throw new AuditUnavailable(error instanceof Error ? error.message : String(error), { cause: error });
  }
}
