import type { z } from 'zod';
import { errorMessage, nextDelay, type RetryPolicy } from '../../api/index.ts';
import { formatFieldPath } from '../../api/field-error.ts';
import type { KvBucket, KvEvent, Logger } from '../../ports/index.ts';
import { KvConflict, StoreError } from '../../ports/index.ts';
import { decodeKvRecord } from './kv-value.ts';
import { writeFailure } from './write-limits.ts';

// What the KV record engine does to every record, whichever kind it keeps (issue 29.1): decode a value (msgpack, or the JSON of an older node) with the kind's schema,
// remember and tell a record that does not parse, back off between compare-and-set attempts, and
// say "unavailable" in one voice, open by replaying their buckets (replayBuckets), and write by one
// compare-and-set loop (compareAndSet). The record engine (kind-records.ts) calls these for every
// kind; its cache is record-slots.ts.

export type DecodedRecord<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** The value decoded and parsed with `schema`; the reason names the field, never the value. */
export function decodeRecord<S extends z.ZodType>(bytes: Uint8Array, schema: S): DecodedRecord<z.infer<S>> {
  const raw = decodeKvRecord(bytes);
  if (!raw.ok) return raw;
  const parsed = schema.safeParse(raw.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue ? formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol')) : '';
  return { ok: false, reason: `${path || 'the record'}: ${issue?.message ?? 'does not match the schema'}` };
}

export interface RecordProblem {
  readonly bucket: string;
  readonly revision: number;
  readonly reason: string;
}

/**
 * The newest record of each key that did not parse, until a good one replaces it: what the
 * store tells a user (bucket, revision, reason) and logs once per bad revision, never the value.
 */
export class RecordProblems {
  private readonly problems = new Map<string, RecordProblem>();

  /** `kind`: the kind whose records these are, logged with each key. */
  constructor(private readonly log: Logger, private readonly kind: string) {}

  note(key: string, problem: RecordProblem, message: string): void {
    if (this.problems.get(key)?.revision === problem.revision) return;
    this.problems.set(key, problem);
    this.log.warn({ bucket: problem.bucket, kind: this.kind, key, revision: problem.revision, reason: problem.reason }, message);
  }

  get(key: string): RecordProblem | undefined {
    return this.problems.get(key);
  }

  keys(): IterableIterator<string> {
    return this.problems.keys();
  }

  delete(key: string): void {
    this.problems.delete(key);
  }

  /** A good record (or a deletion) at `revision` ends a problem no newer than it. */
  settled(key: string, revision: number): void {
    const problem = this.problems.get(key);
    if (problem && problem.revision <= revision) this.problems.delete(key);
  }
}

// Full jitter from 1 ms, growing to 50 ms: enough for a few nodes racing on one key to take turns.
const CAS_RETRY: RetryPolicy = { initialMs: 1, maxMs: 50, factor: 2, jitter: 'full' };

/** The pause before compare-and-set attempt `attempt + 1` after a conflict. */
export function casBackoff(attempt: number): Promise<void> {
  const ms = nextDelay(CAS_RETRY, attempt + 1, Math.random);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A time as Kubernetes writes one in metadata (RFC 3339, whole seconds), for both record engines. */
export function kubeTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  // "YYYY-MM-DDTHH:MM:SS.mmmZ" cut at the seconds; a slice, not a regex, on every create. Years
  // past 9999 (a longer form) keep the general rule.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

/** A KV failure as a store reports it: permanent when it is (write-limits.ts), else retryable. */
export function kvUnavailable(what: string, error: unknown, store: string): StoreError {
  return writeFailure(what, error, () => new StoreError(`${what}: ${store} is unavailable (${errorMessage(error)}); try again`, true, { cause: error }));
}

export interface CasOptions {
  /** What the write does, for its errors ("writing BareMetalHost metal3/h1"). */
  readonly doing: string;
  /** Which store, for "unavailable" ("the NATS store", "the object store"). */
  readonly store: string;
  readonly maxAttempts: number;
}

/**
 * The one compare-and-set loop of every KV record engine: `attempt` reads (or takes its cache),
 * decides and writes at the revision it read; one lost to another writer (KvConflict) is tried
 * again after `conflict` (a fresh read) and the shared backoff, up to maxAttempts. A StoreError
 * is the write's answer and goes out as it is; any other failure is the KV's ("unavailable").
 */
export async function compareAndSet<R>(options: CasOptions, attempt: (n: number) => Promise<R>, conflict?: (n: number) => Promise<void>): Promise<R> {
  for (let n = 0; n < options.maxAttempts; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof KvConflict)) throw kvUnavailable(options.doing, error, options.store);
      await conflict?.(n);
      await casBackoff(n);
    }
  }
  throw new StoreError(`${options.doing}: ${options.maxAttempts} compare-and-set attempts all lost to concurrent writers; try again`, true);
}

export interface ReplayedWatch {
  readonly bucket: KvBucket;
  readonly onEvent: (event: KvEvent) => void;
}

/**
 * Watches every bucket a record engine keeps and waits until each has replayed its current
 * contents (the cache is whole), within `timeoutMs`: how every KV store opens, whatever its
 * kinds' layout. Returns the watches' stops. On failure what came up is stopped (a watch that
 * comes up later is stopped as it arrives) and a StoreError says which buckets did not answer.
 */
export async function replayBuckets(watches: readonly ReplayedWatch[], timeoutMs: number, store: string): Promise<Array<() => void>> {
  const stops: Array<() => void> = [];
  let failed = false;
  let timer: NodeJS.Timeout | undefined;
  // The buckets still replaying: a timeout names these, not the ones that answered.
  const pending = new Set(watches.map((w) => w.bucket.name));
  const one = async ({ bucket, onEvent }: ReplayedWatch): Promise<void> => {
    let replayed!: () => void;
    const ready = new Promise<void>((resolve) => (replayed = resolve));
    const stop = await bucket.watch({ onEvent: (event) => {
      if (!failed) onEvent(event);
    }, onReady: () => replayed() });
    if (failed) return stop();
    stops.push(stop);
    await ready;
    pending.delete(bucket.name);
  };
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreError(`${store} did not finish reading buckets ${[...pending].join(' and ')} within ${timeoutMs} ms; is JetStream reachable?`, true)), timeoutMs);
    });
    await Promise.race([Promise.all(watches.map(one)), timeout]);
    return stops;
  } catch (error) {
    failed = true;
    for (const stop of stops.splice(0)) stop();
    throw kvUnavailable(`opening ${store}`, error, store);
  } finally {
    clearTimeout(timer);
  }
}
