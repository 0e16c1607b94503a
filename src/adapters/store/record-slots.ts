import type { z } from 'zod';
import type { KvBucket, KvEvent } from '../../ports/index.ts';
import { decodeRecord, kvUnavailable, type RecordProblems } from './kv-record.ts';

// The one cache of KV records every record engine keeps (issue 29.1), whatever the kind and its
// layout: the host records' spec and status buckets and the object records' one bucket each keep
// one of these. What it does the same way for all of them:
//   - the newest version of each key seen on the watch or written here, by revision, a deletion
//     included, so a late watch event never undoes a newer change;
//   - bytes nobody here has read yet (another node's hosts and objects: every node sees every
//     change but reads few) wait unparsed until read;
//   - a record that does not parse leaves the last good version in place, and is remembered and
//     told (RecordProblems) until a good one replaces it;
//   - this store's own write, delivered by the watch before its ack, is recognised by its bytes
//     and the value written stands for it: it is not parsed again.

export interface RecordSlot<T> {
  /** The revision of `value`, or of the deletion when `value` is undefined. */
  readonly revision: number;
  readonly value: T | undefined;
}

interface Entry<T> extends RecordSlot<T> {
  /** A newer version seen on the watch and not parsed yet. */
  readonly waiting?: { readonly revision: number; readonly raw: Uint8Array };
}

/** What a watch event did to the cache: the caller tells its watchers. */
export type SeenChange<T> =
  | { readonly type: 'none' }
  | { readonly type: 'deleted'; readonly had: boolean }
  | { readonly type: 'put'; readonly value: T; readonly before: { readonly revision: number; readonly value: T } | undefined; readonly own: boolean };

interface Outgoing<T> {
  readonly bytes: Uint8Array;
  readonly value: T;
  readonly own: boolean;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

export class RecordSlots<S extends z.ZodType> {
  private readonly entries = new Map<string, Entry<z.infer<S>>>();
  private readonly outgoing = new Map<string, Outgoing<z.infer<S>>>();

  /** `what` names the record in the log ("host", "status", "object"). */
  constructor(
    private readonly schema: S,
    private readonly kv: KvBucket,
    readonly problems: RecordProblems,
    private readonly what: string,
  ) {}

  /**
   * A watch event of `key`. `wants`: whether a watcher here wants it now (parsed at once) or not
   * (its bytes wait until read). Returns what changed, for the caller to tell.
   */
  seen(key: string, event: KvEvent, wants: (key: string) => boolean): SeenChange<z.infer<S>> {
    const entry = this.entries.get(key);
    if (entry && Math.max(entry.revision, entry.waiting?.revision ?? 0) >= event.revision) return { type: 'none' };
    if (event.op === 'delete') {
      this.problems.delete(key);
      const had = entry !== undefined && (entry.value !== undefined || entry.waiting !== undefined);
      this.entries.set(key, { revision: event.revision, value: undefined });
      return { type: 'deleted', had };
    }
    const mine = this.outgoing.get(key);
    if (mine && sameBytes(mine.bytes, event.value)) return this.put(key, event.revision, mine.value, mine.own);
    if (!wants(key)) {
      this.entries.set(key, { revision: entry?.revision ?? 0, value: entry?.value, waiting: { revision: event.revision, raw: event.value } });
      return { type: 'none' };
    }
    const value = this.decode(key, event.value, event.revision, `ignoring a ${this.what} record that does not parse; the last good version stands`);
    if (value === undefined) return { type: 'none' };
    // After a version nobody read, what changed since the last one parsed is not known.
    return this.put(key, event.revision, value, false, entry?.waiting !== undefined);
  }

  /** A version written here or seen, unless a newer one is in already. */
  set(key: string, revision: number, value: z.infer<S> | undefined, own = false): SeenChange<z.infer<S>> {
    if (value === undefined) {
      const entry = this.entries.get(key);
      if (entry && entry.revision >= revision) return { type: 'none' };
      this.problems.settled(key, revision);
      this.entries.set(key, { revision, value: undefined });
      return { type: 'deleted', had: entry !== undefined && (entry.value !== undefined || entry.waiting !== undefined) };
    }
    return this.put(key, revision, value, own);
  }

  private put(key: string, revision: number, value: z.infer<S>, own: boolean, unknownBefore = false): SeenChange<z.infer<S>> {
    const entry = this.entries.get(key);
    if (entry && entry.revision >= revision) return { type: 'none' };
    // Our own write may be seen on the watch before its ack: the value we wrote stands for it.
    if (entry?.waiting && entry.waiting.revision > revision) return { type: 'none' };
    this.problems.settled(key, revision);
    this.entries.set(key, { revision, value });
    const before = entry && !unknownBefore && entry.value !== undefined ? { revision: entry.revision, value: entry.value } : undefined;
    return { type: 'put', value, before, own };
  }

  /** The key's newest version, its waiting bytes parsed first; the last good one if they do not parse. */
  get(key: string): RecordSlot<z.infer<S>> | undefined {
    const entry = this.entries.get(key);
    if (entry?.waiting === undefined) return entry;
    const { revision, raw } = entry.waiting;
    const value = this.decode(key, raw, revision, `ignoring a ${this.what} record that does not parse; the last good version stands`);
    const next = value === undefined ? { revision: entry.revision, value: entry.value } : { revision, value };
    if (value !== undefined) this.problems.settled(key, revision);
    this.entries.set(key, next);
    return next;
  }

  /** The parsed value, if the key holds one. */
  value(key: string): z.infer<S> | undefined {
    return this.get(key)?.value;
  }

  /** Whether the key holds a record, parsed or not. */
  holds(key: string): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && (entry.value !== undefined || entry.waiting !== undefined);
  }

  /** The revision the cache last saw of the key (parsed or not); undefined when never seen. */
  revision(key: string): number | undefined {
    const entry = this.entries.get(key);
    return entry === undefined ? undefined : Math.max(entry.revision, entry.waiting?.revision ?? 0);
  }

  /** Keys that hold a record, parsed or not. */
  *keys(): IterableIterator<string> {
    for (const [key, entry] of this.entries) if (entry.value !== undefined || entry.waiting !== undefined) yield key;
  }

  /** A fresher read than the cache (after a lost compare-and-set): it replaces what is cached. */
  replace(key: string, slot: RecordSlot<z.infer<S>> | undefined): void {
    if (slot) this.entries.set(key, slot);
    else this.entries.delete(key);
  }

  /** While a write is on its way: its echo on the watch is known by these bytes. */
  writing(key: string, bytes: Uint8Array, value: z.infer<S>, own: boolean): () => void {
    this.outgoing.set(key, { bytes, value, own });
    return () => {
      if (this.outgoing.get(key)?.bytes === bytes) this.outgoing.delete(key);
    };
  }

  /**
   * The key's record as the bucket holds it now, past the cache (`kvKey` in the bucket): value
   * undefined when it does not parse (noted with `message`, and told until a good one comes).
   */
  async read(key: string, kvKey: string, doing: string, store: string, message: string): Promise<RecordSlot<z.infer<S>> | undefined> {
    let entry;
    try {
      entry = await this.kv.get(kvKey);
    } catch (error) {
      throw kvUnavailable(doing, error, store);
    }
    if (!entry) {
      this.problems.delete(key);
      return undefined;
    }
    const value = this.decode(key, entry.value, entry.revision, message);
    if (value !== undefined) this.problems.settled(key, entry.revision);
    return { revision: entry.revision, value };
  }

  /** Logged once per bad revision (kv-record.ts): the key and the reason, never the value. */
  decode(key: string, bytes: Uint8Array, revision: number, message: string): z.infer<S> | undefined {
    const decoded = decodeRecord(bytes, this.schema);
    if (decoded.ok) return decoded.value;
    this.problems.note(key, { bucket: this.kv.name, revision, reason: decoded.reason }, message);
    return undefined;
  }
}
