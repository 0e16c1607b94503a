// Reading the audit back, read-only: per stream (mf-audit, then mf-audit-refusals) one
// ephemeral push consumer (JetStream's STREAM.INFO and CONSUMER.CREATE, no acks, in memory, gone
// 30 s after the reader) that a NATS user with read rights only may create, delivering into an
// inbox under the connection's own prefix. The consumer says at creation how many records match;
// the reader takes that many and stops, so records written meanwhile do not keep it reading.
//
// Every message is checked before it is taken (audit-delivery.ts): another user may point a
// consumer of their own at this reader's inbox to replace the newest records with old ones. A
// message that fails is refused and counted, never shown; `readAudit` then fails, and
// `readAuditChecked` says how many were refused and why. A record the reader's own consumer
// delivered that is not an audit record (cut short, not JSON, a field this version does not know)
// is skipped and said by its stream sequence: it is in the stream, not an attack on this reader,
// and one such record must not hide all the others for the 30 days the stream keeps it.
import { z } from 'zod';
import type { Subjects } from '../bus/index.ts';
import { BusError, type BusMessage, type Transport } from '../ports/index.ts';
import { AUDIT_REFUSALS_STREAM, AUDIT_STREAM, AuditUnavailable, jsApi } from './audit-log.ts';
import { checkDelivery } from './audit-delivery.ts';
import { AuditRecord } from './audit-record.ts';
import { errorMessage } from '../api/index.ts';

export interface AuditQuery {
  /** Only records about this host (`namespace/name`). */
  readonly host?: string;
  /**
   * Only records about an object of this kind (`BareMetalHost`, `MaasMachine`), which may share its
   * name with one of another kind (recordKind). Records without a kind (written before records had
   * one, or refused before it could be read) are kept whatever the kind asked: which object they
   * were about cannot be told.
   */
  readonly kind?: string;
  /** Only records the stream took at or after this time. */
  readonly since?: Date;
  /** Give up when the records have not all arrived by then; default 60 s. */
  readonly timeoutMs?: number;
}

export interface AuditRead {
  /** Both streams' records, oldest first (by the deciding node's time). */
  readonly records: AuditRecord[];
  /** Messages that reached the reader and were not taken: not delivered by its own consumer. */
  readonly refused: number;
  /** Why, for the first few refused. */
  readonly reasons: readonly string[];
  /** Records its own consumer delivered that are not audit records, skipped. */
  readonly unreadable: number;
  /** Which (stream and sequence) and why, for the first few skipped. */
  readonly unreadableReasons: readonly string[];
}

const StreamInfo = z.object({ state: z.object({ messages: z.number() }) });
const ConsumerInfo = z.object({ name: z.string(), num_pending: z.number() });
const MAX_REASONS = 5;

/** The audit, failing with AuditUnavailable if any message reaching the reader was refused; records that are not audit records are skipped. */
export async function readAudit(transport: Transport, subjects: Subjects, query: AuditQuery = {}): Promise<AuditRecord[]> {
  const read = await readAuditChecked(transport, subjects, query);
  if (read.refused > 0) throw new AuditUnavailable(refusedSummary(read));
  return read.records;
}

/** What `metalfleet audit` says when messages were refused. */
export function refusedSummary(read: AuditRead): string {
  return `${read.refused} message${read.refused === 1 ? '' : 's'} reaching this reader did not come from its own consumer, and ${read.refused === 1 ? 'was' : 'were'} refused (is someone delivering into its inbox?): ${read.reasons.join('; ')}`;
}

/** What `metalfleet audit` warns when records of the stream could not be read. */
export function unreadableSummary(read: AuditRead): string {
  const n = read.unreadable;
  return `${n} record${n === 1 ? '' : 's'} of the audit could not be read and ${n === 1 ? 'is' : 'are'} not shown: ${read.unreadableReasons.join('; ')}${n > read.unreadableReasons.length ? '; ...' : ''}`;
}

export async function readAuditChecked(transport: Transport, subjects: Subjects, query: AuditQuery = {}): Promise<AuditRead> {
  const taken = await readStream(transport, AUDIT_STREAM, subjects.audits, query, true);
  // Refusals are kept apart since this version; a cluster of older nodes has no such stream.
  const refusals = await readStream(transport, AUDIT_REFUSALS_STREAM, subjects.refusals, query, false);
  // A record without a kind predates kinds in the audit: it may be about either object of that
  // name, so it is shown for every kind rather than hidden from the one it was about.
  const keep = (r: AuditRecord): boolean => {
    if (query.host !== undefined && r.host !== query.host) return false;
    const kind = recordKind(r);
    return query.kind === undefined || kind === undefined || kind === query.kind;
  };
  return {
    records: merge(taken.records.filter(keep), refusals.records.filter(keep)),
    refused: taken.refused + refusals.refused,
    reasons: [...taken.reasons, ...refusals.reasons].slice(0, MAX_REASONS),
    unreadable: taken.unreadable + refusals.unreadable,
    unreadableReasons: [...taken.unreadableReasons, ...refusals.unreadableReasons].slice(0, MAX_REASONS),
  };
}

/**
 * The kind of the object a record is about: its `kind`, or for an apply recorded before records
 * had one its `command` (an apply's command has always been the object's kind); undefined when it
 * cannot be told (an older node's delete or host command, a request refused before it was read).
 */
export function recordKind(r: AuditRecord): string | undefined {
  if (r.kind !== undefined) return r.kind;
  return r.action === 'apply' && r.command !== null ? r.command : undefined;
}

// Two lists each in stream order, merged by the time the node decided; ties keep mf-audit first.
function merge(a: AuditRecord[], b: AuditRecord[]): AuditRecord[] {
  const out: AuditRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && (a[i] as AuditRecord).at <= (b[j] as AuditRecord).at) ? a[i++] : b[j++];
    out.push(next as AuditRecord);
  }
  return out;
}

async function readStream(transport: Transport, stream: string, filter: string, query: AuditQuery, required: boolean): Promise<AuditRead> {
  const info = await ask(transport, `STREAM.INFO.${stream}`, undefined);
  if (info.error) {
    if (info.error.code === 404 && !required) return { records: [], refused: 0, reasons: [], unreadable: 0, unreadableReasons: [] };
    if (info.error.code === 404) throw new AuditUnavailable('does not exist: no node of this cluster has started yet with this version (nodes create it)');
    throw new AuditUnavailable(`${stream}: JetStream said ${info.error.description ?? info.error.code}`);
  }
  if (StreamInfo.parse(info).state.messages === 0) return { records: [], refused: 0, reasons: [], unreadable: 0, unreadableReasons: [] };

  const inbox = transport.newInbox();
  const records: AuditRecord[] = [];
  const reasons: string[] = [];
  let refused = 0;
  const unreadableReasons: string[] = [];
  let unreadable = 0;
  // The server names the consumer (operators and viewers may create consumers only where they
  // cannot choose a name, which would make it durable); deliveries that arrive before its name
  // does wait here.
  let consumer: string | null = null;
  const early: BusMessage[] = [];
  let afterSeq = 0;
  let taken = 0;
  let expected = Number.POSITIVE_INFINITY;
  let done = false;
  let wake: () => void = () => undefined;
  const check = (msg: BusMessage, name: string): void => {
    const delivery = checkDelivery(msg.reply, { stream, consumer: name, afterSeq });
    if (!delivery.ok) {
      refused += 1;
      if (reasons.length < MAX_REASONS) reasons.push(`${stream}: ${delivery.reason}`);
      return;
    }
    // Flow control and heartbeats are off: every delivery is a record.
    afterSeq = delivery.streamSeq;
    taken += 1;
    const parsed = parseRecord(msg.data);
    if (parsed.ok) records.push(parsed.record);
    else {
      unreadable += 1;
      if (unreadableReasons.length < MAX_REASONS) unreadableReasons.push(`${stream} sequence ${delivery.streamSeq}: ${parsed.why}`);
    }
    if (delivery.pending === 0 || taken >= expected) {
      done = true;
      wake();
    }
  };
  const sub = transport.subscribe(inbox, (msg) => {
    if (consumer === null) early.push(msg);
    else check(msg, consumer);
  });
  try {
    const created = await ask(transport, `CONSUMER.CREATE.${stream}`, {
      stream_name: stream,
      config: {
        deliver_subject: inbox,
        filter_subject: filter,
        ack_policy: 'none',
        replay_policy: 'instant',
        mem_storage: true,
        num_replicas: 1,
        // Gone on its own once the reader is: a viewer may not delete consumers.
        inactive_threshold: 30_000_000_000,
        ...(query.since ? { deliver_policy: 'by_start_time', opt_start_time: query.since.toISOString() } : { deliver_policy: 'all' }),
      },
    });
    if (created.error) throw new AuditUnavailable(`cannot read ${stream}: JetStream said ${created.error.description ?? created.error.code}`);
    const info = ConsumerInfo.parse(created);
    expected = info.num_pending;
    consumer = info.name;
    for (const msg of early.splice(0)) check(msg, info.name);
    if (taken >= expected) done = true;
    if (!done) {
      const timeoutMs = query.timeoutMs ?? 60_000;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new AuditUnavailable(`${stream}: ${taken} of ${expected} records arrived within ${timeoutMs / 1_000} s; try again, or narrow it with --since`)), timeoutMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    sub.unsubscribe();
  }
  return { records, refused, reasons, unreadable, unreadableReasons };
}

function parseRecord(data: Uint8Array): { ok: true; record: AuditRecord } | { ok: false; why: string } {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(data));
  } catch (error) {
    return { ok: false, why: /end of (JSON )?input|Unterminated/i.test(errorMessage(error)) ? 'not JSON (cut short?)' : 'not JSON' };
  }
  const parsed = AuditRecord.safeParse(json);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.map(String).join('.') ?? '';
  const what = issue?.code === 'unrecognized_keys' ? `unrecognized key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}` : `${where || 'the record'}: ${issue?.message ?? 'invalid'}`;
  // The writer chose these names: cut, and kept to printable ASCII.
  return { ok: false, why: `not an audit record of this version: ${what.slice(0, 120).replace(/[^\x20-\x7e]/g, '?')}` };
}

async function ask(transport: Transport, api: string, body: unknown): Promise<Awaited<ReturnType<typeof jsApi>>> {
  try {
    return await jsApi(transport, api, body);
  } catch (error) {
    if (error instanceof BusError && error.kind === 'noResponders') throw new AuditUnavailable(`no JetStream answered on ${transport.name}: is JetStream enabled?`, { cause: error });
    throw new AuditUnavailable(errorMessage(error), { cause: error });
  }
}
