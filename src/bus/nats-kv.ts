import { jetstream, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { nanos } from '@nats-io/nats-core';
import type { KvBucket, KvBucketOptions, KvEntry, KvWatchOptions, Logger } from '../ports/index.ts';
import { KvConflict, KvUnavailable } from '../ports/index.ts';
import { errorMessage } from '../api/index.ts';

// JetStream's "wrong last sequence": the compare-and-set lost (reference/runtime.md §2.2).
const WRONG_LAST_SEQUENCE = 10071;
// JetStream's "stream not found".
const STREAM_NOT_FOUND = 10059;

// nats-server's default duplicate window (2 min): a stream's may not exceed its max age.
const DUPLICATE_WINDOW_MS = 120_000;

/**
 * How long a key listing may take (one stream-info request, then a read per key); past it the
 * caller gets KvUnavailable rather than waiting on a server that does not answer.
 */
export const KEYS_DEADLINE_MS = 15_000;

/** While a watch of a TTL bucket has not caught up, how often to check whether it has. */
export const WATCH_CATCH_UP_CHECK_MS = 1_000;

/** After a watch's iterator ended, the pauses before each attempt to make it again (the last repeats). */
export const WATCH_RESTART_BACKOFF_MS: readonly number[] = [250, 500, 1_000, 2_000, 5_000];

export interface NatsBucketOptions {
  keysDeadlineMs?: number;
  ttlMs?: number;
  catchUpCheckMs?: number;
  /** Pauses before the attempts to restart a watch that ended (the last repeats). */
  restartBackoffMs?: readonly number[];
  /** Whether the bucket's connection is closed: a watch that ends then is not restarted. */
  isClosed?: () => boolean;
  /** Where a watch restart is reported as text (once per ended watch), when no `logger` is given; default stderr. */
  log?: (message: string) => void;
  /**
   * The node's logger: a watch restart is a structured warn line on it (bucket, pattern, the
   * revision it resumes from, the reason). A node's logs are JSON lines; plain text breaks them.
   */
  logger?: Logger;
  /** Strips secrets from a reason before it is logged (the connection's redactor). */
  redact?: (text: string) => string;
  /** Told each revision read or written (kv-stream-identity.ts: a stream that falls below it lost messages). */
  onRevision?: (revision: number) => void;
}

/** The subjects of a bucket's stream that match a key pattern, and hold a message now. */
export type SubjectLister = (pattern: string) => Promise<string[]>;

// One manager per connection: a node opens several buckets, and each manager costs a request.
const managers = new WeakMap<NatsConnection, Promise<JetStreamManager>>();

function managerOf(nc: NatsConnection): Promise<JetStreamManager> {
  let jsm = managers.get(nc);
  if (!jsm) {
    jsm = jetstreamManager(nc);
    managers.set(nc, jsm);
    jsm.catch(() => managers.delete(nc));
  }
  return jsm;
}

/** Opens (creating when absent) a JetStream KV bucket behind the KvBucket port. */
/** Told when the bucket is open, of when its stream was created (kv-stream-identity.ts says why). */
export interface OpenedStream {
  onOpened?: (streamCreated: string) => void;
}

export async function openNatsKv(nc: NatsConnection, bucket: string, options: KvBucketOptions & Pick<NatsBucketOptions, 'log' | 'logger' | 'redact' | 'restartBackoffMs' | 'onRevision'> & OpenedStream = {}): Promise<KvBucket> {
  const kvm = new Kvm(jetstream(nc));
  let kv: KV;
  try {
    kv = await kvm.create(bucket, {
      history: options.history ?? 1,
      ...(options.ttlMs ? { ttl: options.ttlMs } : {}),
      ...(options.replicas ? { replicas: options.replicas } : {}),
    });
  } catch (err) {
    // Create refused (say a clustered create racing another node's): open it if it is there.
    try {
      kv = await kvm.open(bucket);
    } catch {
      throw new KvUnavailable(bucket, `cannot open or create the bucket: ${message(err)}`, { cause: err });
    }
  }
  // The TTL the server applies, read back every time: Kvm.create opens a bucket that exists
  // already as it is, without an error, whatever TTL it was asked for. A lease that counted on
  // the TTL asked for would outlive the server's key when the bucket keeps keys shorter.
  let ttlMs: number;
  let replicas: number;
  try {
    const status = await kv.status();
    ({ ttl: ttlMs, replicas } = status);
    options.onOpened?.(status.streamInfo.created);
  } catch (err) {
    throw new KvUnavailable(bucket, `cannot read the bucket's settings: ${message(err)}`, { cause: err });
  }
  // The manager asks for account info first; a clustered JetStream without a meta leader refuses
  // it (503, "temporarily unavailable"): a retryable KvUnavailable like any other, not a raw error.
  let jsm: JetStreamManager;
  try {
    jsm = await managerOf(nc);
  } catch (err) {
    throw new KvUnavailable(bucket, `cannot reach the JetStream API: ${message(err)}`, { cause: err });
  }
  const stream = `KV_${bucket}`;
  const prefix = `$KV.${bucket}.`;
  // A bucket made with fewer copies (by a node run without replicas, or an older one) is raised
  // to the copies asked for, as the same create does for a new one: left at R1 it would go with
  // its one server. Never lowered: a node asking fewer does not take copies from the others.
  const asked = options.replicas ?? 0;
  if (asked > (replicas || 1)) {
    try {
      await jsm.streams.update(stream, { num_replicas: asked });
    } catch (err) {
      // Another node of the cluster, starting too, may have raised it meanwhile.
      const now = await kv.status().then((st) => st.replicas, () => 0);
      if (now < asked) throw new KvUnavailable(bucket, `the bucket keeps ${replicas || 1} cop${(replicas || 1) === 1 ? 'y' : 'ies'} of each key and could not be raised to the ${asked} replicas asked for: ${message(err)}`, { cause: err });
    }
  }
  // A bucket that keeps keys for ever (made by hand, or by an older node) where the caller needs
  // them to expire (leases, heartbeats): a crashed holder's key would stay, and its shard with it,
  // for ever. It gets the TTL asked for. One with a TTL is left as it is (leases use the shorter).
  const wantedTtl = options.ttlMs ?? 0;
  if (wantedTtl > 0 && ttlMs === 0) {
    try {
      // The duplicate window may not outlast the max age (the server refuses the update).
      await jsm.streams.update(stream, { max_age: nanos(wantedTtl), duplicate_window: nanos(Math.min(wantedTtl, DUPLICATE_WINDOW_MS)) });
      ttlMs = wantedTtl;
    } catch (err) {
      ttlMs = await kv.status().then((st) => st.ttl, () => 0);
      if (ttlMs === 0) throw new KvUnavailable(bucket, `the bucket keeps keys for ever and could not be given the TTL of ${wantedTtl} ms asked for (a holder that stops would keep its key): ${message(err)}`, { cause: err });
    }
  }
  const subjects: SubjectLister = async (pattern) => {
    const info = await jsm.streams.info(stream, { subjects_filter: `${prefix}${pattern}` });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  };
  return new NatsBucket(bucket, kv, subjects, {
    ttlMs,
    isClosed: () => nc.isClosed() || nc.isDraining(),
    ...(options.log ? { log: options.log } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.restartBackoffMs ? { restartBackoffMs: options.restartBackoffMs } : {}),
    ...(options.onRevision ? { onRevision: options.onRevision } : {}),
  });
}

/** When the stream of `bucket` was created and its last sequence, as the server says; null when there is no such stream. */
export async function kvStreamState(nc: NatsConnection, bucket: string): Promise<{ created: string; lastSeq: number } | null> {
  const jsm = await managerOf(nc);
  try {
    const info = await jsm.streams.info(`KV_${bucket}`);
    return { created: info.created, lastSeq: info.state.last_seq };
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === STREAM_NOT_FOUND) return null;
    throw err;
  }
}

/** The port over an opened KV; exported for tests that drive it with a stand-in. */
export class NatsBucket implements KvBucket {
  private readonly keysDeadlineMs: number;
  readonly ttlMs: number;
  private readonly catchUpCheckMs: number;
  private readonly restartBackoffMs: readonly number[];
  private readonly isClosed: () => boolean;
  private readonly seen: (revision: number) => void;
  private readonly report: (restart: WatchRestart) => void;

  constructor(
    readonly name: string,
    private readonly kv: KV,
    private readonly subjects: SubjectLister,
    options: NatsBucketOptions = {},
  ) {
    this.keysDeadlineMs = options.keysDeadlineMs ?? KEYS_DEADLINE_MS;
    this.ttlMs = options.ttlMs ?? 0;
    this.catchUpCheckMs = options.catchUpCheckMs ?? WATCH_CATCH_UP_CHECK_MS;
    this.restartBackoffMs = options.restartBackoffMs?.length ? options.restartBackoffMs : WATCH_RESTART_BACKOFF_MS;
    this.isClosed = options.isClosed ?? (() => false);
    this.report = restartReporter(options);
    this.seen = options.onRevision ?? (() => undefined);
  }

  async get(key: string): Promise<KvEntry | null> {
    checkKey(this.name, key);
    const e = await this.guard(key, () => this.kv.get(key));
    if (!e) return null;
    this.seen(e.revision);
    if (e.operation !== 'PUT') return null;
    return { key, value: e.value, revision: e.revision };
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    checkKey(this.name, key);
    return this.wrote(await this.guard(key, () => this.kv.create(key, value)));
  }

  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    checkKey(this.name, key);
    return this.wrote(await this.guard(key, () => this.kv.update(key, value, revision)));
  }

  async put(key: string, value: Uint8Array): Promise<number> {
    checkKey(this.name, key);
    return this.wrote(await this.guard(key, () => this.kv.put(key, value)));
  }

  private wrote(revision: number): number {
    this.seen(revision);
    return revision;
  }

  async delete(key: string, options: { revision?: number } = {}): Promise<void> {
    checkKey(this.name, key);
    await this.guard(key, () => this.kv.delete(key, options.revision !== undefined ? { previousSeq: options.revision } : {}));
  }

  /**
   * The keys with a value now. Read from the stream's subjects, then one read per key (a delete
   * leaves a marker there): meant for small buckets (members, leases, pools). Not the client's
   * kv.keys(), whose consumer waits for ever when a key it counted expires before delivery.
   */
  async keys(pattern = '>'): Promise<string[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new KvUnavailable(this.name, `${pattern}: listing the keys did not finish within ${this.keysDeadlineMs} ms; try again`));
      }, this.keysDeadlineMs);
    });
    const list = async (): Promise<string[]> => {
      const candidates = await this.guard(pattern, () => this.subjects(pattern));
      const present = await Promise.all(candidates.map(async (key) => ((await this.get(key)) ? key : null)));
      return present.filter((key): key is string => key !== null);
    };
    try {
      return await Promise.race([list(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async watch(options: KvWatchOptions): Promise<() => void> {
    const pattern = options.key ?? '>';
    // Whether there is anything to replay, before the watch starts: nothing means ready at once.
    const present = await this.guard(pattern, () => this.subjects(pattern));
    let iter: Awaited<ReturnType<KV['watch']>> = await this.guard(pattern, () => this.kv.watch({ key: pattern }));
    let ready = false;
    let stopped = false;
    let check: ReturnType<typeof setTimeout> | undefined;
    let pause: ReturnType<typeof setTimeout> | undefined;
    let wake: (() => void) | undefined;
    // The last revision delivered: a restarted watch resumes after it, so nothing is missed (a
    // delete in the gap is a marker in the stream) and nothing is delivered twice.
    let last = 0;
    const seen = new Set<string>();
    const markReady = (): void => {
      if (ready) return;
      ready = true;
      seen.clear();
      clearTimeout(check);
      options.onReady?.();
    };
    if (present.length === 0) markReady();
    // In a TTL bucket a key counted as pending can expire before it is delivered; the replay then
    // never shows "nothing pending". Caught up, too, once every key with a value has been seen.
    const checkCaughtUp = (): void => {
      check = setTimeout(() => {
        void this.keys(pattern).then((live) => {
          if (stopped || ready) return;
          if (live.every((key) => seen.has(key))) markReady();
          else checkCaughtUp();
        }, () => {
          if (!stopped && !ready) checkCaughtUp();
        });
      }, this.catchUpCheckMs);
    };
    if (!ready && this.ttlMs > 0) checkCaughtUp();
    const sleep = (ms: number): Promise<void> => new Promise((resolve) => {
      wake = resolve;
      pause = setTimeout(resolve, ms);
    });
    // Drains one iterator; true when it delivered something new (the restart backoff starts over).
    // Why the last iterator ended, for the restart's report.
    let reason = 'the server ended the watch';
    const drain = async (current: typeof iter): Promise<boolean> => {
      let fresh = false;
      reason = 'the server ended the watch';
      try {
        for await (const e of current) {
          // A restarted watch may hand back what was delivered already: skipped, unread.
          const revision = e.revision;
          if (revision <= last) continue;
          last = revision;
          this.seen(revision);
          fresh = true;
          // Every node sees every write of the fleet's buckets, so this loop is hot. The entry's
          // getters decode as they are read: the key and value once each, and the operation,
          // which takes decoding the message's headers (an update's stored message carries its
          // expected-sequence header), only for an empty payload: a delete or purge marker never
          // has a body, so a value with bytes in it is a put.
          const key = e.key;
          const value = e.value;
          if (!ready) seen.add(key);
          if (value.length > 0 || e.operation === 'PUT') options.onEvent({ op: 'put', key, value, revision });
          else options.onEvent({ op: 'delete', key, revision });
          // The iterator's isUpdate is off by one on 2.9 (reference/runtime.md §2.4); an entry with
          // nothing pending behind it means the replay has caught up instead.
          if (!ready && (e.delta ?? 0) === 0) markReady();
        }
      } catch (err) {
        // Ended with an error (the connection closed, the subscription refused): as below.
        reason = message(err);
      }
      return fresh;
    };
    // The client's iterator ends by itself when its consumer cannot be kept (the subscription
    // behind it refused, the consumer not recreated after repeated failures): while the bucket's
    // connection is open, the watch is made again from the last revision delivered, with backoff.
    void (async () => {
      let attempt = 0;
      for (;;) {
        if (await drain(iter)) attempt = 0;
        if (stopped || this.isClosed()) return;
        this.report({ bucket: this.name, pattern, resumeFromRevision: last + 1, reason });
        for (;;) {
          await sleep(this.restartBackoffMs[Math.min(attempt, this.restartBackoffMs.length - 1)] ?? 0);
          attempt++;
          if (stopped || this.isClosed()) return;
          try {
            const next = await this.kv.watch(last > 0 ? { key: pattern, resumeFromRevision: last + 1 } : { key: pattern });
            if (stopped) {
              next.stop();
              return;
            }
            iter = next;
            break;
          } catch {
            // Not yet (no JetStream, no connection): try again after the next pause.
          }
        }
      }
    })();
    return () => {
      stopped = true;
      clearTimeout(check);
      clearTimeout(pause);
      wake?.();
      iter.stop();
    };
  }

  private async guard<T>(key: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE) {
        throw new KvConflict(this.name, key, 'revision changed (compare-and-set lost)');
      }
      throw new KvUnavailable(this.name, `${key}: ${message(err)}`, { cause: err });
    }
  }
}

/** A key NATS KV cannot hold: the caller's to change, so not worth a retry (still a KvUnavailable to catch). */
export class KvInvalidKey extends KvUnavailable {
  override readonly retryable = false;
  constructor(bucket: string, readonly key: string) {
    super(bucket, `key ${JSON.stringify(key)} cannot be stored in NATS KV: use dot-separated tokens of letters, digits, "-", "_", "/" and "=" (no spaces, "*", ">" or empty tokens)`);
    this.name = 'KvInvalidKey';
  }
}

// What nats.js takes as a key, and no empty token ("a..b" is no subject the server routes).
const KEY_TOKEN = /^[-/=\w]+$/;

function checkKey(bucket: string, key: string): void {
  if (!key.split('.').every((token) => KEY_TOKEN.test(token))) throw new KvInvalidKey(bucket, key);
}

/** A watch that ended and is being made again. */
interface WatchRestart {
  readonly bucket: string;
  readonly pattern: string;
  readonly resumeFromRevision: number;
  readonly reason: string;
}

function restartReporter(options: NatsBucketOptions): (restart: WatchRestart) => void {
  const redact = options.redact ?? ((text: string) => text);
  const { logger, log } = options;
  if (logger) {
    return (r) => logger.warn({ ...r, reason: redact(r.reason) }, `kv ${r.bucket}: the watch of ${r.pattern} ended; restarting it from revision ${r.resumeFromRevision}`);
  }
  const text = log ?? ((m: string) => console.warn(m));
  return (r) => text(`kv ${r.bucket}: the watch of ${r.pattern} ended (${redact(r.reason)}); restarting it from revision ${r.resumeFromRevision}`);
}

function message(err: unknown): string {
  return errorMessage(err);
}
