// A KV bucket's stream that the server has made anew since this connection first opened it: a
// single nats-server restarted with its store lost, and the bucket then created again (by any
// client). Its revisions start over at 1, so a watch that resumes after the last revision it
// delivered skips every write until the new stream passes that revision, and a cache that keeps
// the newest revision per key ignores the rest: the node's view goes stale with no error. The
// stream's creation time tells the two apart; a restart that kept the store, or a clustered
// server that caught up from its peers, keeps it. Only a restart rebuilds the node's view, so the
// transport reports it, and the node's liveness fails with the reason (health.ts).

/** The stream's creation time as the server gives it; null: no such stream (not made again yet). */
export type StreamCreatedAsk = (bucket: string) => Promise<string | null>;

export interface KvStreamIdentityOptions {
  readonly ask: StreamCreatedAsk;
  /** Told once, when the first replaced stream is found. */
  readonly onReplaced: (reason: string) => void;
  /** While a bucket's stream is absent, or the server cannot be asked, how often to look again. */
  readonly recheckMs?: number;
  readonly setTimeout?: (fn: () => void, ms: number) => unknown;
  readonly clearTimeout?: (handle: unknown) => void;
}

export const STREAM_RECHECK_MS = 2_000;

export class KvStreamIdentity {
  // Each bucket's stream as this connection first saw it.
  readonly #first = new Map<string, string>();
  #replaced: string | null = null;
  #timer: unknown = null;
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
    else if (first !== created) this.#found(bucket, first, created);
  }

  /** The connection is back after a loss: each bucket's stream is asked for, until all are there. */
  async reconnected(): Promise<void> {
    if (this.#stopped || this.#replaced !== null) return;
    this.#cancel();
    let again = false;
    for (const [bucket, first] of this.#first) {
      let now: string | null;
      try {
        now = await this.o.ask(bucket);
      } catch {
        again = true;
        continue;
      }
      if (now === null) again = true;
      else if (now !== first) {
        this.#found(bucket, first, now);
        return;
      }
    }
    if (again && !this.#stopped) {
      const set = this.o.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
      this.#timer = set(() => void this.reconnected(), this.o.recheckMs ?? STREAM_RECHECK_MS);
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel();
  }

  #cancel(): void {
    if (this.#timer === null) return;
    (this.o.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>)))(this.#timer);
    this.#timer = null;
  }

  #found(bucket: string, first: string, now: string): void {
    if (this.#replaced !== null) return;
    this.#replaced = `the stream of KV bucket ${bucket} was created again at ${now} (this node watched the one created at ${first}): `
      + 'its NATS server lost its store. Its revisions started over, so this node does not see the writes made since; restart the node to read the buckets afresh';
    this.o.onReplaced(this.#replaced);
  }
}
