// Which command requests were taken, cluster-wide, by request id. A client retries a command
// whose attempt timed out (any node answers any shard), but a timed-out attempt may still be
// delivered: a node that was paused (GC, SIGSTOP, a slow disk) answers it once it runs again.
// Deciding on the host's state alone cannot tell that copy from a new request once the first
// copy's intent was consumed (a reboot done, its annotation removed): one `metalfleet host
// reboot` rebooted the host twice. A KV create is atomic, so exactly one node takes each id; the
// bucket's TTL forgets ids long after any copy of their request could still be waiting.
import { createHash } from 'node:crypto';
import { errorMessage } from '../api/index.ts';
import { KvConflict, type KvBucket, type Transport } from '../ports/index.ts';

export const REQUEST_BUCKET = 'mf-requests';

/** Long past any client's deadline (30 s by default) and a paused node's late delivery. */
export const REQUEST_TTL_MS = 15 * 60_000;

/** What a node answered a request it refused: a copy is answered the same, never taken later. */
export interface LedgerRefusal {
  readonly code: string;
  readonly message: string;
}

/**
 * A copy's answer: the first one's refusal, or null when the first was taken; `pending` while the
 * first is still being recorded (its outcome unknown: the copy may be told neither "done" nor "refused").
 */
export type PriorRequest = {
  readonly refused: LedgerRefusal | null;
  readonly pending?: boolean;
  /**
   * The id was taken by another request (the same host and command, other fields): the fields that
   * differ. Such a request is no copy, and must be told neither the first one's outcome nor "done".
   */
  readonly otherRequest?: readonly string[];
};

/**
 * A claim older than this whose node never settled it (the node died while recording) is answered
 * as taken, as before claims were settled: far past any store write, well within the 15 minutes.
 */
export const PENDING_STALE_MS = 60_000;

export interface RequestLedger {
  /**
   * Null the first time this request is seen; what became of the first one for a copy. Throws when
   * unreachable (retryable). `body`: the request's other fields (requestBody), kept with the claim
   * so a different request under a taken id is told apart from a copy (`otherRequest`); absent: not compared.
   */
  claim(host: string, command: string, requestId: string, body?: string): Promise<PriorRequest | null>;
  /** Settles a claim whose request was recorded (or found already recorded): a copy is a repeat from now on. */
  taken(host: string, command: string, requestId: string, body?: string): Promise<void>;
  /** Forgets a claim whose request was not recorded (a retryable failure), so its retry is taken. */
  release(host: string, command: string, requestId: string): Promise<void>;
  /**
   * Keeps a refusal (conflict, invalid, ...): a copy arriving once the host has changed would
   * otherwise do what the client was told would not be done.
   */
  refused(host: string, command: string, requestId: string, refusal: LedgerRefusal, body?: string): Promise<void>;
}

/**
 * A request's fields besides host, command and id (kind, mode, reason ...), as one canonical JSON
 * text (keys sorted): two attempts of one request give the same text, two requests differ in it.
 */
export function requestBody(request: object): string {
  const fields = Object.entries(request).filter(([name, value]) => name !== 'host' && name !== 'type' && name !== 'requestId' && value !== undefined);
  return JSON.stringify(Object.fromEntries(fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

// The fields two bodies differ in, by name (never their values: a reason is the sender's text).
function differingFields(kept: string, given: string): string[] {
  let a: Record<string, unknown>;
  let b: Record<string, unknown>;
  try {
    a = JSON.parse(kept) as Record<string, unknown>;
    b = JSON.parse(given) as Record<string, unknown>;
  } catch {
    return kept === given ? [] : ['(request)'];
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return kept === given ? [] : ['(request)'];
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return names.filter((name) => JSON.stringify(a[name]) !== JSON.stringify(b[name]));
}

// Request ids are printable ASCII with characters a KV key may not hold: keys are their digest.
function keyOf(host: string, command: string, requestId: string): string {
  return createHash('sha256').update(`${host}\n${command}\n${requestId}`).digest('hex');
}

// A claim is made pending (when it was made) and settled empty (taken) or with its refusal. A copy
// told "already taken" while the first attempt was still writing was told a success the store might
// then refuse or lose (a retryable failure frees the id): `metalfleet host` said done, nothing was.
// Each value also keeps the request's body (when the node gave one), so another request under the
// id is refused rather than answered as a copy; an entry without one (an older node's) is not compared.
function pendingValue(now: number, body?: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ pendingSince: now, ...(body === undefined ? {} : { body }) }));
}

function priorOf(value: Uint8Array | undefined, now: number, body?: string): PriorRequest {
  if (!value || value.length === 0) return { refused: null };
  try {
    const parsed = JSON.parse(new TextDecoder().decode(value)) as Partial<LedgerRefusal> & { pendingSince?: unknown; body?: unknown };
    if (body !== undefined && typeof parsed.body === 'string') {
      const differ = differingFields(parsed.body, body);
      if (differ.length > 0) return { refused: null, otherRequest: differ };
    }
    if (typeof parsed.code === 'string' && typeof parsed.message === 'string') return { refused: { code: parsed.code, message: parsed.message } };
    if (typeof parsed.pendingSince === 'number' && now - parsed.pendingSince < PENDING_STALE_MS) return { refused: null, pending: true };
  } catch {
    // Not ours to read: the id was taken, which is all a copy needs to know.
  }
  return { refused: null };
}

export function kvRequestLedger(bucket: KvBucket, now: () => number = Date.now): RequestLedger {
  return {
    async claim(host, command, requestId, body) {
      const key = keyOf(host, command, requestId);
      try {
        await bucket.create(key, pendingValue(now(), body));
        return null;
      } catch (error) {
        if (!(error instanceof KvConflict)) throw error;
      }
      return priorOf((await bucket.get(key))?.value, now(), body);
    },
    async taken(host, command, requestId, body) {
      await bucket.put(keyOf(host, command, requestId), body === undefined ? new Uint8Array(0) : new TextEncoder().encode(JSON.stringify({ body })));
    },
    async release(host, command, requestId) {
      await bucket.delete(keyOf(host, command, requestId));
    },
    async refused(host, command, requestId, refusal, body) {
      const kept = { code: refusal.code, message: refusal.message, ...(body === undefined ? {} : { body }) };
      await bucket.put(keyOf(host, command, requestId), new TextEncoder().encode(JSON.stringify(kept)));
    },
  };
}

export async function openRequestLedger(transport: Transport, replicas?: number): Promise<RequestLedger> {
  return kvRequestLedger(await transport.kv(REQUEST_BUCKET, { ttlMs: REQUEST_TTL_MS, history: 1, ...(replicas && replicas > 1 ? { replicas } : {}) }));
}

/** An outcome as the ledger files it: done, refused, or failed in a way a retry may mend. */
type Settled = { readonly ok: true } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string; readonly retryable: boolean } };

/** What came of a request: run (its outcome), a copy of one taken before, or not checkable now. */
export type Once<T> =
  | { readonly run: true; readonly outcome: T }
  | { readonly run: false; readonly prior: PriorRequest }
  | { readonly run: false; readonly unchecked: string };

/**
 * Runs a request unless its id was taken before, and files what came of it: a refusal is kept (a
 * copy gets the same answer), a failure a retry may mend, or a throw, frees the id (nothing known
 * to be recorded, so the retry must be taken, not answered as a copy). No ledger or no id: run.
 */
export async function runOnce<T extends Settled>(ledger: RequestLedger | undefined, request: { readonly host: string; readonly type: string; readonly requestId?: string | undefined }, run: () => Promise<T>): Promise<Once<T>> {
  const { host, type, requestId } = request;
  if (!ledger || requestId === undefined) return { run: true, outcome: await run() };
  const body = requestBody(request);
  let prior: PriorRequest | null;
  try {
    prior = await ledger.claim(host, type, requestId, body);
  } catch (error) {
    return { run: false, unchecked: errorMessage(error) };
  }
  if (prior) return { run: false, prior };
  let outcome: T;
  try {
    outcome = await run();
  } catch (error) {
    await ledger.release(host, type, requestId).catch(() => undefined);
    throw error;
  }
  // Not waited for: the command is recorded, so its reply need not wait on the ledger's write; a
  // copy arriving before the write lands is told to retry, and one whose node dies first finds
  // the claim taken once it is stale. (Waiting cost ~16 % of the commands bench's throughput.)
  if (outcome.ok) void ledger.taken(host, type, requestId, body).catch(() => undefined);
  else if (outcome.error.retryable) await ledger.release(host, type, requestId).catch(() => undefined);
  else await ledger.refused(host, type, requestId, { code: outcome.error.code, message: outcome.error.message }, body).catch(() => undefined);
  return { run: true, outcome };
}
