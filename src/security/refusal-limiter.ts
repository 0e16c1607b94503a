// Refusals, counted rather than written one by one. Anyone with NATS credentials and no signing
// key can make a node refuse thousands of requests a second; one record each flushed the audit
// (issue 33). Per window, a sender's first few refusals are recorded in full (a person who
// forgot --signing-key sees each attempt) and the rest are counted and written as one record when
// the window closes: how many, since when, and the reasons. A window tracks at most `maxSenders`
// senders (a sender names its own reply subject, so it could be a new one each time); refusals
// from any further sender are counted together under OTHER_SENDERS. So a node writes at most
// maxSenders × (fullPerSender + 1) + 1 refusal records a window whatever the rate, and every
// refusal is in a record or a count.
import type { AuditAction, AuditRecord, AuditRepeats } from './audit-record.ts';

export const REFUSAL_WINDOW_MS = 10_000;
export const REFUSAL_MAX_SENDERS = 20;
export const REFUSAL_FULL_PER_SENDER = 10;
/** The sender of a count that folds every sender beyond maxSenders in a window. */
export const OTHER_SENDERS = 'other senders';
/** Reasons listed in one counted record; the others are in its count only. */
const MAX_REASONS = 5;

export interface RefusalLimiterOptions {
  /** Writes one record (never throws: the audit log logs its failures). */
  readonly write: (record: AuditRecord) => Promise<void>;
  readonly windowMs?: number;
  readonly maxSenders?: number;
  /** Refusals of one sender recorded in full each window before the rest are counted. */
  readonly fullPerSender?: number;
  readonly now?: () => Date;
}

export interface RefusalLimiter {
  /** Records the refusal of a request from `sender`, in full or in its sender's count. */
  refused(record: AuditRecord, sender: string): Promise<void>;
  /** Writes the counts of the open window now (a node stopping). */
  flush(): Promise<void>;
}

interface Tally {
  count: number;
  since: string;
  last: AuditRecord;
  /** Every refusal counted by its code (our own few codes). */
  readonly codes: Map<string, number>;
  readonly reasons: Map<string, { action: AuditAction; code: string; reason: string; count: number }>;
}

export function refusalLimiter(options: RefusalLimiterOptions): RefusalLimiter {
  const windowMs = options.windowMs ?? REFUSAL_WINDOW_MS;
  const maxSenders = options.maxSenders ?? REFUSAL_MAX_SENDERS;
  const now = options.now ?? (() => new Date());
  const fullPerSender = options.fullPerSender ?? REFUSAL_FULL_PER_SENDER;
  // Senders seen this window: how many were recorded in full, and what was counted since.
  let senders = new Map<string, { full: number; tally: Tally | null }>();
  let timer: NodeJS.Timeout | null = null;

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    const closed = senders;
    senders = new Map();
    const at = now().toISOString();
    const writes: Promise<void>[] = [];
    for (const [sender, { tally }] of closed) if (tally) writes.push(options.write(counted(sender, tally, at)));
    await Promise.all(writes);
  };

  return {
    flush,
    async refused(record, sender) {
      if (!timer) {
        timer = setTimeout(() => void flush(), windowMs);
        // A node with nothing else to do may stop; stop() flushes what is counted.
        timer.unref();
      }
      let seen = senders.get(sender);
      if (!seen && senders.size < maxSenders) senders.set(sender, (seen = { full: 0, tally: null }));
      if (seen && seen.full < fullPerSender) {
        seen.full += 1;
        await options.write({ ...record, sender });
        return;
      }
      const key = seen ? sender : OTHER_SENDERS;
      const entry = senders.get(key) ?? { full: fullPerSender, tally: null };
      entry.tally ??= { count: 0, since: record.at, last: record, codes: new Map(), reasons: new Map() };
      senders.set(key, entry);
      add(entry.tally, record);
    },
  };
}

function add(tally: Tally, record: AuditRecord): void {
  tally.count += 1;
  tally.last = record;
  const code = record.code ?? 'refused';
  tally.codes.set(code, (tally.codes.get(code) ?? 0) + 1);
  const reason = (record.reason ?? '').slice(0, 200);
  const key = `${record.action}\u0000${code}\u0000${reason}`;
  const known = tally.reasons.get(key);
  if (known) known.count += 1;
  // Bounded: reasons that vary per request (a nonce, a size) would otherwise grow without end.
  else if (tally.reasons.size < MAX_REASONS * 4) tally.reasons.set(key, { action: record.action, code, reason, count: 1 });
}

function counted(sender: string, tally: Tally, at: string): AuditRecord {
  const reasons: AuditRepeats['reasons'] = [...tally.reasons.values()].sort((a, b) => b.count - a.count).slice(0, MAX_REASONS);
  const summary = [...tally.codes].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${n} ${code}`).join(', ');
  const many = sender === OTHER_SENDERS;
  return {
    at,
    node: tally.last.node,
    action: tally.last.action,
    command: null,
    host: null,
    requestId: null,
    // Senders folded together have no one caller; a sender's own count keeps its last caller.
    caller: many ? { kind: 'unverified', signer: null } : tally.last.caller,
    signedAt: null,
    outcome: 'refused',
    code: 'repeated',
    reason: `${tally.count} more refusal${tally.count === 1 ? '' : 's'} since ${tally.since}${many ? ' from senders beyond the first of this window' : ''}: ${summary}`,
    sender,
    repeats: { count: tally.count, since: tally.since, reasons },
  };
}
