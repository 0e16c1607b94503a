import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiObject, formatFieldPath } from '../../api/index.ts';
import type { Secret } from '../../api/secret.ts';
import type { Fence, FenceOptions, KvBucket, KvBucketOptions, KvEvent, Logger, ObjectKind, ResourceEvent, ResourceIntent, ResourceKind, ResourceOf, ResourceStore, ResourceWatchOptions, StatusOf, StoredObject, Transport } from '../../ports/index.ts';
import { FenceRefusals, judgeFence, patchedAnnotations, resourceKey, silentLogger, StaleFence, StoreError } from '../../ports/index.ts';
import { hostKeyFromKv, hostKvKey, shownKey } from './nats-keys.ts';
import { checkValueSize, MAX_VALUE_BYTES } from './write-limits.ts';
import { encodeKvRecord } from './kv-value.ts';
import { ResourceEvents } from './events.ts';
import { compareAndSet, kubeTimestamp, replayBuckets, RecordProblems, type CasOptions } from './kv-record.ts';
import { objectMetaErrors } from '../../api/names.ts';
import { nameOnCreate } from './generated-names.ts';
import { objectSizeErrors } from '../../api/limits.ts';
import type { SecretSource } from './nats-secrets.ts';
import type { SecretChangeKind } from './secret-changes.ts';
import { declaredBucket } from './kind-buckets.ts';
import { RecordSlots, type RecordSlot, type SeenChange } from './record-slots.ts';

// The Cluster API side's store on KV (NATS JetStream KV in a cluster, the process's own KV in the
// embedded default): MaasMachines, MaasClusters and the CAPI Machines and Clusters they read.
//
// Layout: one bucket, `mf-objects`, one key per object: `<Kind>.<namespace>.<name>` (the
// namespace and name escaped as host keys are). The value is {object, fence?}: the object with
// its status, and the highest fence epoch that has written it; a msgpackr record as the host
// buckets hold (kv-value.ts), the JSON one of an older node still read. Every write is a
// compare-and-set on the key's revision, re-read and retried on conflict. Secrets (bootstrap data)
// are never written to KV: each node reads its own (SecretSource), as for hosts.

// The bucket the MAAS kinds declare (machines/maas-machine/kind.ts, maas-cluster/kind.ts).
export const OBJECTS_BUCKET = declaredBucket('MaasMachine', 'objects');

const STORED_KINDS: readonly ObjectKind[] = ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster'];

/** apiVersion and kind of what this store keeps (v1beta1 and v1beta2 of Cluster API's own). */
const KINDS: Record<string, ObjectKind> = {
  'infrastructure.cluster.x-k8s.io/v1beta1 MaasMachine': 'MaasMachine',
  'infrastructure.cluster.x-k8s.io/v1beta1 MaasCluster': 'MaasCluster',
  'cluster.x-k8s.io/v1beta1 Machine': 'Machine',
  'cluster.x-k8s.io/v1beta2 Machine': 'Machine',
  'cluster.x-k8s.io/v1beta1 Cluster': 'Cluster',
  'cluster.x-k8s.io/v1beta2 Cluster': 'Cluster',
};

/** The kind this store keeps an object as, or null (Secrets and other kinds are not kept). */
export function storedKindOf(object: unknown): ObjectKind | null {
  if (object === null || typeof object !== 'object') return null;
  const o = object as { apiVersion?: unknown; kind?: unknown };
  return KINDS[`${String(o.apiVersion)} ${String(o.kind)}`] ?? null;
}

/** A problem apply refuses an object for: which document (`index`), which object, which field. */
export interface ObjectIssue {
  readonly index: number;
  readonly kind?: string;
  readonly key?: string;
  readonly path: string;
  readonly message: string;
}

/** Validates one object of a kind; returns its problems (empty when valid). */
export type ObjectValidator = (object: unknown, old: unknown) => ReadonlyArray<{ path: string; reason: string }>;

// The object is kept in the api's one object schema (ObjectMeta inside), the same the Kubernetes
// object parser uses, so both stores hand the actors the same shape.
const ObjectRecordSchema = z.object({
  object: ApiObject,
  fence: z.object({ epoch: z.number().int(), shard: z.number().int(), holder: z.string() }).optional(),
});
type ObjectRecord = z.infer<typeof ObjectRecordSchema>;

export interface KvObjectStoreOptions extends FenceOptions {
  readonly bucket: KvBucket;
  /** Bootstrap data Secrets: this node's own, never in KV. */
  readonly secrets?: SecretSource;
  readonly validators?: Partial<Record<ObjectKind, ObjectValidator>>;
  readonly log?: Logger;
  readonly now?: () => number;
  /** How long open waits for the bucket's current contents. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Compare-and-set attempts per write before it fails (retryable). Default 16. */
  readonly maxAttempts?: number;
  /** The largest record written (bytes); larger is refused as permanent. Default MAX_VALUE_BYTES. */
  readonly maxValueBytes?: number;
}

export interface ObjectApplyResult {
  readonly ok: boolean;
  readonly issues: ObjectIssue[];
  readonly applied: number;
  /** What was written, in input order: `namespace/name`, the generated name for a generateName. */
  readonly objects?: ReadonlyArray<{ readonly kind: ObjectKind; readonly key: string }>;
}

export interface KvObjectStore extends ResourceStore {
  /** All or nothing: every object is validated first, and nothing is written if one is invalid. */
  apply(objects: readonly unknown[]): Promise<ObjectApplyResult>;
  /** What apply would refuse, without writing anything. */
  check(objects: readonly unknown[]): ObjectIssue[];
  /** Why the object's newest record cannot be read (bucket, revision, reason; never the value). */
  recordProblem(kind: ResourceKind, key: string): string | undefined;
  staleFenceRefusals(): number;
  close(): Promise<void>;
}

export async function openKvObjectStoreOn(transport: Pick<Transport, 'kv'>, options: Omit<KvObjectStoreOptions, 'bucket'> & { readonly kv?: KvBucketOptions } = {}): Promise<KvObjectStore> {
  const { kv, ...rest } = options;
  return openKvObjectStore({ ...rest, bucket: await transport.kv(OBJECTS_BUCKET, kv) });
}

export async function openKvObjectStore(options: KvObjectStoreOptions): Promise<KvObjectStore> {
  const store = new KvObjects(options);
  await store.start();
  return store;
}

function kvKeyOf(kind: ObjectKind, key: string): string {
  return `${kind}.${hostKvKey(key)}`;
}

function parseKvKey(kvKey: string): { kind: ObjectKind; key: string } | null {
  const dot = kvKey.indexOf('.');
  const kind = kvKey.slice(0, dot) as ObjectKind;
  if (dot <= 0 || !STORED_KINDS.includes(kind)) return null;
  const key = hostKeyFromKv(kvKey.slice(dot + 1));
  return key === undefined ? null : { kind, key };
}

type Slot = RecordSlot<ObjectRecord> & { readonly value: ObjectRecord };

class KvObjects implements KvObjectStore {
  private readonly bucket: KvBucket;
  /**
   * The records by KV key (record-slots.ts, as the host records keep theirs): versions no watcher
   * here wanted when they came (another node's objects) wait as bytes until read; one that does
   * not parse leaves the last good version in place, told by recordProblem.
   */
  private readonly records: RecordSlots<typeof ObjectRecordSchema>;
  /** Ordered, synchronous delivery to each watcher's kinds and keys, as the Kubernetes store's. */
  private readonly events: ResourceEvents;

  private readonly refusals: FenceRefusals;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly maxAttempts: number;
  private unwatch: (() => void) | null = null;
  private unwatchSecrets: (() => void) | null = null;
  private ready = false;

  constructor(private readonly options: KvObjectStoreOptions) {
    this.bucket = options.bucket;
    this.refusals = new FenceRefusals(options.onStaleFence);
    this.log = (options.log ?? silentLogger).child({ component: 'kv-object-store' });
    this.records = new RecordSlots(ObjectRecordSchema, this.bucket, new RecordProblems(this.log, 'key'), 'object');
    this.events = new ResourceEvents((error, event) => {
      // One listener's failure is not the store's, nor the other listeners'.
      this.log.warn({ kind: event.kind, key: event.key, event: event.type, err: error instanceof Error ? error.name : typeof error }, 'an object store watch listener threw; other listeners still got the event');
    });
    this.now = options.now ?? Date.now;
    this.maxAttempts = options.maxAttempts ?? 16;
  }

  async start(): Promise<void> {
    const [stop] = await replayBuckets([{ bucket: this.bucket, onEvent: (e) => this.onEvent(e) }], this.options.readyTimeoutMs ?? 30_000, 'the object store');
    this.unwatch = stop ?? null;
    this.ready = true;
    // A bootstrap Secret that appears after its MaasMachine wakes it, as the Kubernetes store's
    // Secret events do: the event names the Secret and never carries its data.
    this.unwatchSecrets = this.options.secrets?.watch?.((e) => this.emit(secretEvent(e.key, e.change))) ?? null;
  }

  private onEvent(event: KvEvent): void {
    const id = parseKvKey(event.key);
    if (!id) return;
    this.tell(id, event.revision, this.records.seen(event.key, event, () => this.ready && this.events.wants(id.kind, id.key)));
  }

  private tell(id: { kind: ObjectKind; key: string }, revision: number, change: SeenChange<ObjectRecord>): void {
    if (!this.ready || change.type === 'none') return;
    if (change.type === 'deleted') {
      if (change.had) this.emit({ type: 'deleted', kind: id.kind, key: id.key });
      return;
    }
    const what = change.before && statusOnly(change.before.value.object, change.value.object) ? 'status' : 'spec';
    this.emit({ type: 'upsert', kind: id.kind, key: id.key, object: toStored({ revision, value: change.value }), change: what });
  }

  /** The key's newest version, its waiting bytes parsed first; the last good one if they do not parse. */
  private slot(kvKey: string): Slot | undefined {
    const slot = this.records.get(kvKey);
    return slot?.value ? (slot as Slot) : undefined;
  }

  /** Whether the key holds an object, parsed or not. */
  private holds(kvKey: string): boolean {
    return this.records.holds(kvKey);
  }

  // Applies a version written here, unless a newer one is in already.
  private set(kvKey: string, id: { kind: ObjectKind; key: string }, revision: number, record: ObjectRecord): void {
    this.tell(id, revision, this.records.set(kvKey, revision, record));
  }

  recordProblem(kind: ResourceKind, key: string): string | undefined {
    // Bytes waiting to be parsed are parsed now: a problem is found when asked, not only when read.
    this.slot(kvKeyOf(kind as ObjectKind, key));
    const problem = this.records.problems.get(kvKeyOf(kind as ObjectKind, key));
    return problem ? `store: its record in ${this.bucket.name} (revision ${problem.revision}) does not parse: ${problem.reason}; apply the object again` : undefined;
  }

  private emit(e: ResourceEvent<ObjectKind>): void {
    this.events.emit(e);
  }

  // BareMetalHosts are never kept here (their own records are): asked for, there are none.
  async list<K extends ResourceKind>(kind: K): Promise<ResourceOf<K>[]> {
    const out: StoredObject[] = [];
    for (const kvKey of [...this.records.keys()]) {
      if (!kvKey.startsWith(`${kind}.`)) continue;
      const slot = this.slot(kvKey);
      if (slot) out.push(toStored(slot));
    }
    return out as ResourceOf<K>[];
  }

  async get<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> {
    const slot = this.slot(kvKeyOf(kind as ObjectKind, key));
    return slot ? toStored(slot) as ResourceOf<K> : undefined;
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.options.secrets?.get(namespace, name);
  }

  watch<K extends ResourceKind>(listener: (event: ResourceEvent<K>) => void, options: ResourceWatchOptions<K> = {}): () => void {
    return this.events.subscribe(listener, options);
  }

  async writeStatus<K extends ResourceKind>(kind: K, key: string, status: StatusOf<K>, fence?: Fence): Promise<void> {
    await this.mutate(kind as ObjectKind, key, fence, 'writing the status of', (o) => ({ ...o, status: status as Record<string, unknown> }));
  }

  async applyIntent<K extends ResourceKind>(kind: K, key: string, intent: ResourceIntent): Promise<ResourceOf<K>> {
    // One write each: annotations, then spec (a command's intent is one or the other).
    if (intent.annotations) await this.patchAnnotations(kind, key, intent.annotations);
    if (intent.spec) await this.patchSpec(kind, key, intent.spec);
    const object = await this.get(kind, key);
    if (!object) throw new StoreError(`${kind} ${shownKey(key)} not found (it was deleted or never applied)`, false);
    return object;
  }

  async patchSpec(kind: ResourceKind, key: string, patch: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void> {
    await this.mutate(kind as ObjectKind, key, fence, 'patching the spec of', (o) => {
      const spec: Record<string, unknown> = { ...(o.spec ?? {}) };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null || v === undefined) delete spec[k];
        else spec[k] = v;
      }
      return { ...o, metadata: { ...o.metadata, generation: (o.metadata.generation ?? 1) + 1 }, spec };
    });
  }

  async patchAnnotations(kind: ResourceKind, key: string, patch: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    let changed = false;
    await this.mutate(kind as ObjectKind, key, fence, 'annotating', (o) => {
      const annotations = patchedAnnotations(o.metadata.annotations, patch);
      // Decided on the version the compare-and-set writes over, so a repeat is told as one.
      changed = annotations !== null;
      if (annotations === null) return null;
      const { annotations: _old, ...metadata } = o.metadata;
      return { ...o, metadata: { ...metadata, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) } };
    });
    return changed;
  }

  async addFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.mutate(kind as ObjectKind, key, fence, `adding finalizer ${finalizer} to`, (o) => {
      if (o.metadata.deletionTimestamp) throw new StoreError(`${kind} ${key} is being deleted: no new finalizers`, false);
      if (o.metadata.finalizers?.includes(finalizer)) return null;
      return { ...o, metadata: { ...o.metadata, finalizers: [...(o.metadata.finalizers ?? []), finalizer] } };
    });
  }

  async removeFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    if (!this.holds(kvKeyOf(kind as ObjectKind, key))) return;
    await this.mutate(kind as ObjectKind, key, fence, `removing finalizer ${finalizer} from`, (o) => {
      if (!o.metadata.finalizers?.includes(finalizer)) return null;
      return { ...o, metadata: { ...o.metadata, finalizers: o.metadata.finalizers.filter((f) => f !== finalizer) } };
    }, true);
  }

  async requestDelete(kind: ResourceKind, key: string): Promise<'terminating' | 'deleted' | 'missing'> {
    const kvKey = kvKeyOf(kind as ObjectKind, key);
    return compareAndSet(this.cas(`deleting ${kind} ${shownKey(key)}`), async () => {
      const slot = this.slot(kvKey) ?? (await this.read(kvKey));
      if (!slot) return 'missing';
      const o = slot.value.object;
      if ((o.metadata.finalizers ?? []).length === 0) {
        await this.bucket.delete(kvKey, { revision: slot.revision });
        return 'deleted';
      }
      if (o.metadata.deletionTimestamp) return 'terminating';
      const next = { ...slot.value, object: { ...o, metadata: { ...o.metadata, deletionTimestamp: kubeTimestamp(this.now()) } } };
      const revision = await this.write(kvKey, next, encode(next), slot.revision);
      this.set(kvKey, { kind: kind as ObjectKind, key }, revision, next);
      return 'terminating';
    }, async () => this.reread(kvKey));
  }

  private cas(doing: string): CasOptions {
    return { doing, store: 'the object store', maxAttempts: this.maxAttempts };
  }

  /** After a lost compare-and-set: the newest version, read past the cache (what waited unread is older). */
  private async reread(kvKey: string): Promise<void> {
    this.records.replace(kvKey, await this.read(kvKey));
  }

  check(input: readonly unknown[]): ObjectIssue[] {
    return this.validate(input).issues;
  }

  async apply(input: readonly unknown[]): Promise<ObjectApplyResult> {
    const { issues, ready } = this.validate(input);
    if (issues.length > 0) return { ok: false, issues, applied: 0 };
    for (const { kind, key, object, generated } of ready) await this.put(kind, key, object, generated);
    return { ok: true, issues: [], applied: ready.length, objects: ready.map(({ kind, key }) => ({ kind, key })) };
  }

  private validate(input: readonly unknown[]): { issues: ObjectIssue[]; ready: Array<{ kind: ObjectKind; key: string; object: StoredObject; generated: boolean }> } {
    const issues: ObjectIssue[] = [];
    const ready: Array<{ kind: ObjectKind; key: string; object: StoredObject; generated: boolean }> = [];
    const given = new Set<string>();
    input.forEach((raw, index) => {
      const found = storedKindOf(raw);
      // Named only by generateName: named now, once, as the API server names it on create.
      const named = found ? nameOnCreate(raw, (key) => given.has(kvKeyOf(found, key)) || this.holds(kvKeyOf(found, key))) : { object: raw, generated: false };
      const obj = named.object as Partial<StoredObject> | null;
      const kind = storedKindOf(obj);
      if (!obj || !kind || !obj.metadata?.name) {
        issues.push({ index, ...(obj?.kind ? { kind: String(obj.kind) } : {}), path: kind ? 'metadata.name' : 'kind', message: kind ? 'Required value: name or generateName is required' : `unsupported apiVersion/kind ${String(obj?.apiVersion)}/${String(obj?.kind)}` });
        return;
      }
      const object = { ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? 'default' } } as StoredObject;
      const key = resourceKey(object);
      // The store's own checks, whatever validators it was given: what it could not key or hold
      // is refused here, naming the object, rather than failing at NATS.
      // A generated name's problems are its generateName's, reported at metadata.generateName.
      const mine = (e: { path: string }): boolean => !named.generated || e.path !== 'metadata.name';
      const own = [...objectSizeErrors(obj), ...objectMetaErrors(obj), ...shapeErrors(object)].filter(mine);
      if (own.length > 0) {
        for (const e of own) issues.push({ index, kind, key: shownKey(key), path: e.path, message: e.reason });
        return;
      }
      const old = this.slot(kvKeyOf(kind, key));
      for (const e of (this.options.validators?.[kind]?.(object, old ? toStored(old) : undefined) ?? []).filter(mine)) issues.push({ index, kind, key, path: e.path, message: e.reason });
      if (named.generated) given.add(kvKeyOf(kind, key));
      ready.push({ kind, key, object, generated: named.generated });
    });
    return { issues, ready };
  }

  staleFenceRefusals(): number {
    return this.refusals.total;
  }

  async close(): Promise<void> {
    this.unwatch?.();
    this.unwatch = null;
    this.unwatchSecrets?.();
    this.unwatchSecrets = null;
    this.events.clear();
  }

  // A user's apply: identity, lifecycle fields and status belong to the store, not the manifest.
  private async put(kind: ObjectKind, key: string, given: StoredObject, generated = false): Promise<void> {
    const kvKey = kvKeyOf(kind, key);
    await compareAndSet(this.cas(`applying ${kind} ${shownKey(key)}`), async () => {
      const old = this.slot(kvKey);
      // An apply replaces a record nobody can read: written over at its revision.
      const malformed = old ? undefined : this.records.problems.get(kvKey)?.revision;
      // A generated name is for a create; the API server answers AlreadyExists, so do we.
      if (generated && (old || malformed !== undefined)) throw new StoreError(`${kind} ${shownKey(key)} already exists: the name generated from metadata.generateName is taken; apply again for another`, true);
      const record = applied(given, old?.value, this.now);
      const value = encode(record);
      checkValueSize(`${kind} ${shownKey(key)}`, value, this.options.maxValueBytes ?? MAX_VALUE_BYTES);
      const revision = await this.write(kvKey, record, value, old?.revision ?? malformed);
      this.set(kvKey, { kind, key }, revision, record);
    }, async () => this.reread(kvKey));
  }

  /**
   * One owner write by compare-and-set. `change` returns the next object, or null for no change.
   * A fence older than the newest that has written the object is refused (StaleFence, counted).
   */
  private async mutate(kind: ObjectKind, key: string, fence: Fence | undefined, write: string, change: (o: ObjectRecord['object']) => ObjectRecord['object'] | null, deleteWhenDone = false): Promise<void> {
    const kvKey = kvKeyOf(kind, key);
    await compareAndSet(this.cas(`${write} ${kind} ${shownKey(key)}`), async () => {
      const slot = this.slot(kvKey) ?? (await this.read(kvKey));
      if (!slot) throw new StoreError(this.recordProblem(kind, key)?.replace(/^store: /, `${kind} ${shownKey(key)}: `) ?? `${kind} ${shownKey(key)} not found`, false);
      const verdict = judgeFence(slot.value.fence, fence);
      if (verdict.kind === 'stale') throw this.refusals.refused(new StaleFence(key, fence!, verdict.current, `${write} ${kind} ${key}`));
      const next = change(slot.value.object);
      if (next === null) return;
      const keep = verdict.kind === 'claim' ? verdict.fence : slot.value.fence;
      const record: ObjectRecord = { object: next, ...(keep ? { fence: keep } : {}) };
      // The last finalizer of an object being deleted: it goes, as the API server deletes it.
      if (deleteWhenDone && next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
        await this.bucket.delete(kvKey, { revision: slot.revision });
        return;
      }
      const value = encode(record);
      checkValueSize(`${write} ${kind} ${shownKey(key)}`, value, this.options.maxValueBytes ?? MAX_VALUE_BYTES);
      const revision = await this.write(kvKey, record, value, slot.revision);
      this.set(kvKey, { kind, key }, revision, record);
    }, async () => this.reread(kvKey));
  }

  private async write(kvKey: string, record: ObjectRecord, value: Uint8Array, over: number | undefined): Promise<number> {
    const done = this.records.writing(kvKey, value, record, false);
    try {
      return over !== undefined ? await this.bucket.update(kvKey, value, over) : await this.bucket.create(kvKey, value);
    } finally {
      done();
    }
  }

  private async read(kvKey: string): Promise<Slot | undefined> {
    const read = await this.records.read(kvKey, kvKey, `reading ${kvKey}`, 'the object store', 'an object record read does not parse');
    return read?.value ? (read as Slot) : undefined;
  }

}

function secretEvent(key: string, change: SecretChangeKind): ResourceEvent<ObjectKind> {
  if (change === 'removed') return { type: 'deleted', kind: 'Secret', key };
  const slash = key.indexOf('/');
  return { type: 'upsert', kind: 'Secret', key, change: 'spec', object: { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } } };
}

// What the record schema would refuse (a malformed owner reference, labels that are not strings):
// refused by apply, naming the field, before anything is written.
function shapeErrors(object: StoredObject): Array<{ path: string; reason: string }> {
  const parsed = ApiObject.safeParse(object);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: formatFieldPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol')) || '(the object)', reason: issue.message }));
}

// A user's apply: identity, lifecycle fields and status belong to the store, not the manifest.
function applied(given: StoredObject, old: ObjectRecord | undefined, now: () => number): ObjectRecord {
  const o = old?.object;
  const metadata = {
    ...given.metadata,
    uid: o?.metadata.uid ?? randomUUID(),
    // As the host records and the API server: the store's, set once on create.
    creationTimestamp: o?.metadata.creationTimestamp ?? kubeTimestamp(now()),
    generation: (o?.metadata.generation ?? 0) + 1,
    ...(o?.metadata.finalizers ? { finalizers: o.metadata.finalizers } : {}),
    ...(o?.metadata.deletionTimestamp ? { deletionTimestamp: o.metadata.deletionTimestamp } : {}),
  };
  const { status: _ignored, ...spec } = given as StoredObject & { status?: unknown };
  // A status given in the manifest is taken only on create (CAPI objects carry what their
  // controllers wrote, e.g. a Cluster's infrastructureReady in a test); afterwards ours stands.
  const status = o ? o.status : (given.status as Record<string, unknown> | undefined);
  return ObjectRecordSchema.parse({ object: { ...spec, metadata, ...(status ? { status } : {}) }, ...(old?.fence ? { fence: old.fence } : {}) });
}

function encode(record: ObjectRecord): Uint8Array {
  return encodeKvRecord(record);
}

function toStored(slot: Slot): StoredObject {
  const o = slot.value.object;
  return { ...o, metadata: { ...o.metadata, resourceVersion: String(slot.revision) } } as StoredObject;
}

// A status write changes nothing else: watchers of spec (the object's own actor) may skip it.
function statusOnly(a: ObjectRecord['object'], b: ObjectRecord['object']): boolean {
  const { status: _a, ...restA } = a;
  const { status: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}
