import type { z } from 'zod';
import type { Fence, KvBucket, KvEvent, Logger, ResourceEvent, ResourceKind, StoredObject } from '../../ports/index.ts';
import type { FenceRefusals } from '../../ports/index.ts';
import { KvConflict, laterFence, ObjectGone, StoreError } from '../../ports/index.ts';
import { hostKeyFromKv, hostKvKey, shownKey } from './nats-keys.ts';
import { RecordProblems } from './kv-record.ts';
import { RecordSlots, type SeenChange } from './record-slots.ts';
import type { KvLayout, SpecRecord, StatusRecord } from './kv-layouts.ts';

// What the KV record engine (kind-records.ts) knows of one kind's records between writes: the
// cache of both records of each object (record-slots.ts), what it tells watchers, and reads past
// the cache. Every node sees every object's changes; bytes of objects nobody here watches wait
// unparsed until read.

/** The object named is not in the store (deleted, or never applied). */
export class ResourceNotFound extends ObjectGone {
  constructor(readonly kind: ResourceKind, readonly key: string) {
    super(`${kind} ${key} not found (it was deleted or never applied)`);
    this.name = 'ResourceNotFound';
  }
}

/**
 * The newest record of an object does not parse: every write that must read it first is refused
 * (an apply writes over it, and a delete takes its key away: removeUnreadable). `unreadableRevision`
 * tells it from other refusals where this class cannot be imported (src/cluster).
 */
export class UnreadableRecord extends StoreError {
  constructor(message: string, readonly kind: ResourceKind, readonly key: string, readonly unreadableRevision: number) {
    super(message, false);
    this.name = 'UnreadableRecord';
  }
}

export interface KindRecordsOptions {
  readonly layout: KvLayout;
  readonly specs: KvBucket;
  readonly statuses: KvBucket;
  readonly emit: (event: ResourceEvent) => void;
  readonly wants: (kind: ResourceKind, key: string) => boolean;
  readonly refusals: FenceRefusals;
  readonly log: Logger;
  readonly now: () => number;
  readonly maxAttempts: number;
  readonly maxValueBytes: number;
}

export type Current = { readonly revision: number; readonly spec: SpecRecord };
export interface StatusSlot {
  readonly revision: number;
  readonly record?: StatusRecord | undefined;
}

export class KindCache {
  readonly kind: ResourceKind;
  /** The newest record of an object that did not parse, per bucket, until a good one replaces it. */
  protected readonly specProblems: RecordProblems;
  protected readonly statusProblems: RecordProblems;
  /**
   * Bytes of objects nobody here watches wait unparsed, a record that does not parse leaves the
   * last good version, and this store's own write seen on the watch before its ack is not parsed
   * again (record-slots.ts). Statuses of a kind that tells none are never parsed as they come.
   */
  protected readonly specRecords: RecordSlots<z.ZodType<SpecRecord>>;
  protected readonly statusRecords: RecordSlots<z.ZodType<StatusRecord>>;
  protected ready = false;
  /**
   * Each object's KV key, escaped once (hostKvKey tests every character) and the same string every
   * time, so the buckets' maps hash it once; and back, for the keys the watch delivers. Bounded by
   * the objects this kind has seen.
   */
  private readonly kvKeys = new Map<string, string>();
  private readonly objectKeys = new Map<string, string>();

  constructor(protected readonly o: KindRecordsOptions) {
    this.kind = o.layout.kind;
    this.specProblems = new RecordProblems(o.log, this.kind);
    this.statusProblems = new RecordProblems(o.log, this.kind);
    this.specRecords = new RecordSlots(o.layout.spec, o.specs, this.specProblems, this.kind);
    this.statusRecords = new RecordSlots(o.layout.status, o.statuses, this.statusProblems, `${this.kind} status`);
  }

  /** After the buckets' replay: changes are told from now on. */
  start(): void {
    this.ready = true;
  }

  protected kvKey(key: string): string {
    let kvKey = this.kvKeys.get(key);
    if (kvKey === undefined) {
      // hostKvKey throws for a key the store cannot hold: nothing is remembered for it.
      kvKey = this.o.layout.prefix + hostKvKey(key);
      this.kvKeys.set(key, kvKey);
      this.objectKeys.set(kvKey, key);
    }
    return kvKey;
  }

  /** The object key of a KV key in this kind's buckets, or undefined when the key is another kind's. */
  keyOf(kvKey: string): string | undefined {
    const known = this.objectKeys.get(kvKey);
    if (known !== undefined) return known;
    const prefix = this.o.layout.prefix;
    if (!kvKey.startsWith(prefix)) return undefined;
    const key = hostKeyFromKv(prefix === '' ? kvKey : kvKey.slice(prefix.length));
    if (key !== undefined) {
      this.objectKeys.set(kvKey, key);
      this.kvKeys.set(key, kvKey);
    }
    return key;
  }

  count(): number {
    let n = 0;
    for (const _ of this.specRecords.keys()) n += 1;
    return n;
  }

  // ---- the cache ----

  onSpecEvent(key: string, event: KvEvent): void {
    // Every node sees every object's changes; parsing one nobody here watches (another node's
    // shard) would be most of a node's work under load. Kept as bytes until read.
    this.tellSpec(key, this.specRecords.seen(key, event, (k) => this.ready && this.o.wants(this.kind, k)));
  }

  onStatusEvent(key: string, event: KvEvent): void {
    const wants = (k: string): boolean => this.o.layout.tellsStatus && this.ready && this.o.wants(this.kind, k);
    this.tellStatus(key, this.statusRecords.seen(key, event, wants));
  }

  protected tellSpec(key: string, change: SeenChange<SpecRecord>): void {
    if (!this.ready) return;
    if (change.type === 'put' && !change.own) {
      const object = this.merged(key);
      if (object) this.o.emit({ type: 'upsert', kind: this.kind, key, object, change: 'spec' } as ResourceEvent);
    } else if (change.type === 'deleted' && change.had) this.o.emit({ type: 'deleted', kind: this.kind, key });
  }

  protected tellStatus(key: string, change: SeenChange<StatusRecord>): void {
    if (!this.ready || !this.o.layout.tellsStatus || change.type !== 'put') return;
    const object = this.merged(key);
    if (object) this.o.emit({ type: 'upsert', kind: this.kind, key, object, change: 'status' } as ResourceEvent);
  }

  protected specSlot(key: string): { readonly revision: number; readonly spec: SpecRecord | undefined } | undefined {
    const slot = this.specRecords.get(key);
    return slot ? { revision: slot.revision, spec: slot.value } : undefined;
  }

  protected statusSlot(key: string): StatusSlot | undefined {
    const slot = this.statusRecords.get(key);
    return slot ? { revision: slot.revision, record: slot.value } : undefined;
  }

  /** Whether the key holds an object, parsed or not. */
  holds(key: string): boolean {
    return this.specRecords.holds(key);
  }

  /** The revision the cache last saw of the object's spec record. */
  revision(key: string): number | undefined {
    return this.specRecords.revision(key);
  }

  keys(): IterableIterator<string> {
    return this.specRecords.keys();
  }

  recordProblemKeys(): Set<string> {
    return new Set([...this.specProblems.keys(), ...this.statusProblems.keys()]);
  }

  recordProblem(key: string): string | undefined {
    // Bytes waiting to be parsed are parsed now: a problem is found when asked, not only when read.
    this.specSlot(key);
    this.statusSlot(key);
    const spec = this.specProblems.get(key);
    const status = this.statusProblems.get(key);
    const parts: string[] = [];
    if (spec) parts.push(`its record in ${spec.bucket} (revision ${spec.revision}) does not parse: ${spec.reason}; the ${this.kind} runs on its last good version until it is applied again`);
    if (status) parts.push(`its status in ${status.bucket} (revision ${status.revision}) does not parse: ${status.reason}; the next status write replaces it`);
    return parts.length > 0 ? `store: ${parts.join('; ')}` : undefined;
  }

  /** The object as this node's cache holds it. */
  merged(key: string): StoredObject | undefined {
    const slot = this.specRecords.get(key);
    if (!slot?.value) return undefined;
    return this.toObject(slot.value, slot.revision, this.statusOf(key, slot.value));
  }

  protected statusOf(key: string, spec: SpecRecord): Record<string, unknown> | undefined {
    const record = this.statusRecords.value(key);
    if (!record || (record.uid !== undefined && record.uid !== spec.metadata.uid)) return spec.legacyStatus;
    return record.status;
  }

  protected toObject(stored: SpecRecord, revision: number, status: Record<string, unknown> | undefined): StoredObject {
    // Every get builds one; no delete (compact) keeps the object's shape fast. The fence is the
    // store's bookkeeping, not part of the object. A for-in copy, not an object rest ({ fence,
    // ...object }), which V8 runs through a generic runtime call: 1.0 µs a get instead of 1.7.
    // The fields are shared with the record: readers never mutate what the store gives them.
    const object: Record<string, unknown> = {};
    for (const field in stored) {
      if (field !== 'fence' && field !== 'legacyStatus') object[field] = stored[field as keyof SpecRecord];
    }
    object['metadata'] = { ...stored.metadata, resourceVersion: String(revision) };
    if (status !== undefined) object['status'] = status;
    return object as unknown as StoredObject;
  }

  /** The later fence of the two records of this incarnation of the object: what judgeFence weighs a write against. */
  protected recordedFence(spec: SpecRecord, status: StatusSlot | undefined): Fence | undefined {
    const record = status?.record;
    const statusFence = record && (record.uid === undefined || record.uid === spec.metadata.uid) ? record.fence : undefined;
    return laterFence(spec.fence, statusFence);
  }

  // ---- reads ----

  /** `wanted`: only these keys, the others not even decoded (a node seeding a few shards of 3,000 hosts each time decoded them all). */
  list(wanted?: (key: string) => boolean): StoredObject[] {
    const out: StoredObject[] = [];
    for (const key of [...this.specRecords.keys()]) {
      if (wanted !== undefined && !wanted(key)) continue;
      const object = this.merged(key);
      if (object) out.push(object);
    }
    return out;
  }

  async getFresh(key: string): Promise<StoredObject | undefined> {
    const [spec, status] = await Promise.all([this.readSpec(key), this.readStatus(key)]);
    if (!spec) return undefined;
    const record = status?.record;
    const matches = record && (record.uid === undefined || record.uid === spec.spec.metadata.uid);
    return this.toObject(spec.spec, spec.revision, matches ? record.status : spec.spec.legacyStatus);
  }

  // ---- past the cache ----

  protected async readSpec(key: string, malformed?: { revision?: number }): Promise<Current | undefined> {
    const read = await this.specRecords.read(key, this.kvKey(key), `reading ${this.kind} ${shownKey(key)}`, 'the KV store', `a ${this.kind} record read does not parse`);
    if (!read) return undefined;
    if (read.value === undefined) {
      // An apply replaces what nobody can read: the caller writes over this revision.
      if (malformed) {
        malformed.revision = read.revision;
        return undefined;
      }
      const reason = this.specProblems.get(key)?.reason ?? 'the record';
      throw new UnreadableRecord(`${this.kind} ${key} in bucket ${this.o.specs.name} (revision ${read.revision}) does not parse: ${reason}; apply the ${this.kind} again or delete its key`, this.kind, key, read.revision);
    }
    return { revision: read.revision, spec: read.value };
  }

  /**
   * Deletes the object whose newest record does not parse (`metalfleet delete` of it): its key,
   * with a compare-and-set on that revision, and its status. Its finalizers cannot be read, so it
   * cannot wait for them. 'readable': it parses (nothing was deleted here); 'missing': no record.
   */
  async removeUnreadable(key: string): Promise<'removed' | 'readable' | 'missing'> {
    const malformed: { revision?: number } = {};
    const current = await this.readSpec(key, malformed);
    if (current) return 'readable';
    if (malformed.revision === undefined) return 'missing';
    const kvKey = this.kvKey(key);
    try {
      await this.o.specs.delete(kvKey, { revision: malformed.revision });
    } catch (error) {
      // Written meanwhile: what is there now is judged again.
      if (error instanceof KvConflict) return 'readable';
      throw error;
    }
    this.tellSpec(key, this.specRecords.set(key, malformed.revision, undefined));
    try {
      await this.o.statuses.delete(kvKey);
    } catch (error) {
      this.o.log.warn({ kind: this.kind, key, err: error instanceof Error ? error.message : String(error) }, 'could not delete the status of a deleted object');
    }
    return 'removed';
  }

  protected async readStatus(key: string): Promise<StatusSlot | undefined> {
    // A record nobody can read is overwritten rather than blocking every later status write;
    // its fence epoch is lost with it, which the warning says.
    const read = await this.statusRecords.read(key, this.kvKey(key), `reading the status of ${this.kind} ${shownKey(key)}`, 'the KV store', 'overwriting a status record that does not parse (its fence epoch is lost)');
    return read ? { revision: read.revision, record: read.value } : undefined;
  }
}
