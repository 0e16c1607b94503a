// A KV bucket's stream that lost the messages this connection already read. Two ways:
// - a single nats-server restarted with its store lost, and the bucket then created again (by
//   any client): the stream is new, with a new creation time;
// - on a cluster, the one server that keeps a bucket at one replica lost its store: the cluster
//   makes the stream again from its assignment, with the same creation time, empty. A connection
//   to another server never reconnects, so this is looked for on a period too.
// Either way its revisions start over at 1, so a watch that resumes after the last revision it
// delivered skips every write until the new stream passes that revision, and a cache that keeps
// the newest revision per key ignores the rest: the node's view goes stale with no error. A
// restart that kept the store, or a clustered server that caught up from its peers, keeps both
// the creation time and the sequence. Only a restart rebuilds the node's view, so the transport
// reports it, and the node's liveness fails with the reason (health.ts).

/** The stream as the server gives it; null: no such stream (not made again yet). */
export interface StreamState {
  readonly created: string;
  readonly lastSeq: number;
}
export type StreamStateAsk = (bucket: string) => Promise<StreamState | null>;

export interface KvStreamIdentityOptions {
  readonly ask: StreamStateAsk;
  /** Told once, when the first replaced stream is found. */
  readonly onReplaced: (reason: string) => void;
  /** While a bucket's stream is absent, or the server cannot be asked, how often to look again. */
  readonly recheckMs?: number;
  readonly setTimeout?: (fn: () => void, ms: number) => unknown;
  readonly clearTimeout?: (handle: unknown) => void;
}

export const STREAM_RECHECK_MS = 2_000;
/** How often a connection to a clustered server looks, without a reconnect: one request a bucket. */
export const STREAM_PERIODIC_CHECK_MS = 30_000;

export class KvStreamIdentity {
  // Each bucket's stream as this connection first saw it.
  readonly #first = new Map<string, string>();
  // The newest revision this connection read or wrote of each bucket: its stream holds at least that.
  readonly #seen = new Map<string, { max: number }>();
  #replaced: string | null = null;
  #retry: unknown = null;
  #period: unknown = null;
  #stopped = false;

  constructor(private readonly o: KvStreamIdentityOptions) {}

  /** Why the node's view of its buckets is stale; null while every stream is the one it watched. */
  reason(): string | null {
    return this.#replaced;
  }

  /** A bucket was opened on a stream created at `created`: the first time it is noted, else compared. */
  opened(bucket: string, created: string): void {
    const first = this.#first.get(bucket);
    if (first === undefined) this.#first.set(bucket, created);
    else if (first !== created) this.#found(bucket, `was created again at ${created} (this node watched the one created at ${first})`);
  }

  /** A revision of `bucket` read or written. */
  seen(bucket: string, revision: number): void {
    this.revisions(bucket)(revision);
  }

  /**
   * Where a bucket tells the revisions it reads and writes: every watched write of the fleet comes
   * through it, so it is bound to the bucket's cell once, not looked up per message.
   */
  revisions(bucket: string): (revision: number) => void {
    let cell = this.#seen.get(bucket);
    if (cell === undefined) this.#seen.set(bucket, (cell = { max: 0 }));
    const seen = cell;
    return (revision) => {
      if (revision > seen.max) seen.max = revision;
    };
  }

  /** The connection is back after a loss: each bucket's stream is asked for, until all are there. */
  reconnected(): Promise<void> {
    return this.check();
  }

  /** From now on, look every `everyMs` as well (a server whose peers may lose a bucket unseen). */
  checkEvery(everyMs: number): void {
    if (this.#stopped || this.#period !== null) return;
    const tick = (): void => {
      this.#period = null;
      if (this.#stopped || this.#replaced !== null) return;
      void this.check().finally(() => {
        if (!this.#stopped && this.#replaced === null) this.#period = this.#set(tick, everyMs);
      });
    };
    this.#period = this.#set(tick, everyMs);
  }

  /** Each bucket's stream asked for now; one absent or not answering is asked again shortly. */
  async check(): Promise<void> {
    if (this.#stopped || this.#replaced !== null) return;
    this.#cancel('retry');
    let again = false;
    for (const [bucket, first] of this.#first) {
      let now: StreamState | null;
      try {
        now = await this.o.ask(bucket);
      } catch {
        again = true;
        continue;
      }
      const seen = this.#seen.get(bucket)?.max ?? 0;
      if (now === null) again = true;
      else if (now.created !== first) return this.#found(bucket, `was created again at ${now.created} (this node watched the one created at ${first})`);
      else if (now.lastSeq < seen) return this.#found(bucket, `holds messages up to sequence ${now.lastSeq} only, where this node already read revision ${seen}`);
    }
    if (again && !this.#stopped) this.#retry = this.#set(() => void this.check(), this.o.recheckMs ?? STREAM_RECHECK_MS);
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel('retry');
    this.#cancel('period');
  }

  #set(fn: () => void, ms: number): unknown {
    return (this.o.setTimeout ?? ((f, t) => setTimeout(f, t).unref()))(fn, ms);
  }

  #cancel(which: 'retry' | 'period'): void {
    const handle = which === 'retry' ? this.#retry : this.#period;
    if (handle === null) return;
    (this.o.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>)))(handle);
    if (which === 'retry') this.#retry = null;
    else this.#period = null;
  }

  #found(bucket: string, what: string): void {
    if (this.#replaced !== null) return;
    this.#replaced = `the stream of KV bucket ${bucket} ${what}: its NATS server lost its store. `
      + 'Its revisions started over, so this node does not see the writes made since; restart the node to read the buckets afresh';
    this.o.onReplaced(this.#replaced);
  }
}
