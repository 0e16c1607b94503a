import type { Secret } from '../../api/secret.ts';
import type { Fence, FenceOptions, KvBucket, KvBucketOptions, KvEvent, Logger, NewObject, OwnerRef, ResourceEvent, IntentOutcome, ResourceIntent, ResourceKind, ResourceListOptions, ResourceOf, ResourceStore, ResourceWatchOptions, StatusOf, StoredObject, Transport } from '../../ports/index.ts';
import { FenceRefusals, silentLogger, StoreError } from '../../ports/index.ts';
import { ResourceEvents } from './events.ts';
import { replayBuckets } from './kv-record.ts';
import { COMPANION_LAYOUTS, HOST_LAYOUTS, OBJECT_LAYOUTS, type KvLayout, type SpecRecord } from './kv-layouts.ts';
import { KindRecords } from './kind-records.ts';
import { checkObjects, COMPANION_VALIDATORS, type ObjectApplyResult, type ObjectIssue, type ObjectValidator } from './object-apply.ts';
import type { SecretSource } from './nats-secrets.ts';
import type { SecretChangeKind } from './secret-changes.ts';
import { MAX_VALUE_BYTES } from './write-limits.ts';

// The one KV store (issue 29.1): every kind on KV (NATS JetStream KV in a cluster, the process's
// own KV in the embedded default), in the layout every kind shares (kv-layouts.ts), served by one
// record engine per kind (kind-records.ts). Each bucket is watched once and its keys go to the
// kind whose prefix they carry. Secrets are never written to KV: each node reads its own
// (SecretSource), and a Secret's event names it and never carries its data.

export interface KvStoreOptions extends FenceOptions {
  /** The bucket of this name, created when absent: the transport's in a cluster. */
  readonly bucket: (name: string) => Promise<KvBucket>;
  /** The kinds this store keeps (kv-layouts.ts): HOST_LAYOUTS, OBJECT_LAYOUTS or both. */
  readonly layouts: readonly KvLayout[];
  /** This node's Secrets (see loadSecretFiles); without one getSecret finds nothing. */
  readonly secrets?: SecretSource;
  /** What apply checks each object kind with, beyond the store's own checks. */
  readonly validators?: Partial<Record<ResourceKind, ObjectValidator>>;
  readonly log?: Logger;
  /** How long open waits for the buckets' current contents. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Compare-and-set attempts per write before it fails (retryable). Default 16. */
  readonly maxAttempts?: number;
  /** The clock for creation and deletion timestamps. */
  readonly now?: () => number;
  /** The largest record written (bytes); larger is refused as permanent. Default MAX_VALUE_BYTES. */
  readonly maxValueBytes?: number;
}

export interface KvStore extends ResourceStore {
  getFresh<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined>;
  /** Whether this store keeps `kind` (a node that runs no MAAS kind keeps hosts only). */
  keeps(kind: ResourceKind): boolean;
  /** All or nothing, for the object kinds: every object is validated first, nothing written if one is invalid. */
  apply(objects: readonly unknown[]): Promise<ObjectApplyResult>;
  /** What apply would refuse, without writing anything. */
  check(objects: readonly unknown[]): ObjectIssue[];
  /** The engine of one kind, for the host records' own interface (nats-store.ts). */
  records(kind: ResourceKind): KindRecords;
  /** Tells the object's watchers about it again, as a spec change (a Secret it names changed). */
  wake(kind: ResourceKind, key: string): void;
  staleFenceRefusals(): number;
  recordProblem(kind: ResourceKind, key: string): string | undefined;
  recordProblems(kind: ResourceKind): ReadonlyMap<string, string>;
  close(): Promise<void>;
}

/**
 * Opens the store on the transport's buckets (created when absent). `hosts`: BareMetalHosts and
 * their companions; `maas`: the MAAS kinds; `companions` alone: the hosts' companions without the
 * hosts (a store opened for what apply writes beside the hosts' own).
 */
export async function openKvStoreOn(transport: Pick<Transport, 'kv'>, options: Omit<KvStoreOptions, 'bucket' | 'layouts'> & { readonly kv?: KvBucketOptions; readonly hosts?: boolean; readonly maas?: boolean; readonly companions?: boolean } = {}): Promise<KvStore> {
  const { kv, hosts = true, maas = true, companions = false, ...rest } = options;
  const layouts = [...(hosts ? HOST_LAYOUTS : companions ? COMPANION_LAYOUTS : []), ...(maas ? OBJECT_LAYOUTS : [])];
  return openKvStore({ ...rest, layouts, bucket: (name) => transport.kv(name, kv) });
}

/** Replays every bucket into the cache, then serves reads from it and keeps it current. */
export async function openKvStore(options: KvStoreOptions): Promise<KvStore> {
  const store = new KvResources(options);
  await store.start();
  return store;
}

class KvResources implements KvStore {
  private readonly byKind = new Map<ResourceKind, KindRecords>();
  /** Ordered, synchronous delivery to each watcher's kinds and keys, as the Kubernetes store's. */
  private readonly events: ResourceEvents;
  private readonly refusals: FenceRefusals;
  private readonly log: Logger;
  private readonly stops: Array<() => void> = [];
  private closed = false;

  constructor(private readonly options: KvStoreOptions) {
    this.refusals = new FenceRefusals(options.onStaleFence);
    this.log = (options.log ?? silentLogger).child({ component: 'kv-store' });
    this.events = new ResourceEvents((error, event) => {
      // One listener's failure is not the store's, nor the other listeners'.
      this.log.warn({ kind: event.kind, key: event.key, event: event.type, err: error instanceof Error ? error.name : typeof error }, 'a store watch listener threw; other listeners still got the event');
    });
  }

  async start(): Promise<void> {
    const o = this.options;
    const names = [...new Set(o.layouts.flatMap((l) => [l.specBucket, l.statusBucket]))];
    const buckets = new Map(await Promise.all(names.map(async (name) => [name, await o.bucket(name)] as const)));
    // Each bucket's keys, to the kinds kept in it: by spec or status, and by key prefix.
    const routes = new Map<string, Array<{ records: KindRecords; spec: boolean }>>();
    for (const layout of o.layouts) {
      const records = new KindRecords({
        layout, specs: buckets.get(layout.specBucket)!, statuses: buckets.get(layout.statusBucket)!,
        emit: (event) => this.events.emit(event), wants: (kind, key) => this.events.wants(kind, key),
        refusals: this.refusals, log: this.log, now: o.now ?? Date.now, maxAttempts: o.maxAttempts ?? 16, maxValueBytes: o.maxValueBytes ?? MAX_VALUE_BYTES,
      });
      this.byKind.set(layout.kind, records);
      for (const [name, spec] of [[layout.specBucket, true], [layout.statusBucket, false]] as const) {
        routes.set(name, [...(routes.get(name) ?? []), { records, spec }]);
      }
    }
    const onEvent = (name: string, event: KvEvent): void => {
      if (this.closed) return;
      for (const { records, spec } of routes.get(name) ?? []) {
        const key = records.keyOf(event.key);
        if (key === undefined) continue;
        if (spec) records.onSpecEvent(key, event);
        else records.onStatusEvent(key, event);
        return;
      }
      this.log.warn({ bucket: name, kvKey: event.key }, 'ignoring a key that names no object this store keeps');
    };
    try {
      this.stops.push(...(await replayBuckets(names.map((name) => ({ bucket: buckets.get(name)!, onEvent: (e: KvEvent) => onEvent(name, e) })), o.readyTimeoutMs ?? 30_000, 'the KV store')));
    } catch (error) {
      this.closed = true;
      throw error;
    }
    for (const records of this.byKind.values()) records.start();
    // A bootstrap Secret that appears after its MaasMachine wakes it, as the Kubernetes store's
    // Secret events do: the event names the Secret and never carries its data.
    const stopSecrets = o.secrets?.watch?.((e) => this.events.emit(secretEvent(e.key, e.change)));
    if (stopSecrets) this.stops.push(stopSecrets);
    this.log.debug({ kinds: [...this.byKind.keys()], objects: [...this.byKind.values()].reduce((n, r) => n + r.count(), 0) }, 'store ready');
  }

  keeps(kind: ResourceKind): boolean {
    return this.byKind.has(kind);
  }

  records(kind: ResourceKind): KindRecords {
    this.checkOpen();
    const records = this.byKind.get(kind);
    if (!records) throw new StoreError(`this store keeps no ${kind} objects (this node runs no kind that keeps them)`, false);
    return records;
  }

  async get<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> {
    return this.byKind.get(kind)?.merged(key) as ResourceOf<K> | undefined;
  }

  async list<K extends ResourceKind>(kind: K, options: ResourceListOptions = {}): Promise<ResourceOf<K>[]> {
    return (this.byKind.get(kind)?.list(options.keys) ?? []) as ResourceOf<K>[];
  }

  async getFresh<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> {
    if (!this.byKind.has(kind)) return undefined;
    return (await this.records(kind).getFresh(key)) as ResourceOf<K> | undefined;
  }

  watch<K extends ResourceKind>(listener: (event: ResourceEvent<K>) => void, options: ResourceWatchOptions<K> = {}): () => void {
    return this.events.subscribe(listener, options);
  }

  wake(kind: ResourceKind, key: string): void {
    const object = this.byKind.get(kind)?.merged(key);
    if (object) this.events.emit({ type: 'upsert', kind, key, object, change: 'spec' } as ResourceEvent);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.options.secrets?.get(namespace, name);
  }

  writeStatus<K extends ResourceKind>(kind: K, key: string, status: StatusOf<K>, fence?: Fence): Promise<void> {
    return this.records(kind).writeStatus(key, status as Record<string, unknown>, fence);
  }

  async patchSpec(kind: ResourceKind, key: string, patch: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void> {
    await this.records(kind).patch(key, { spec: patch }, 'patching the spec of', fence);
  }

  patchAnnotations(kind: ResourceKind, key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    return this.records(kind).patch(key, { annotations }, 'annotating', fence);
  }

  addFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    return this.records(kind).addFinalizer(key, finalizer, fence);
  }

  removeFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    return this.records(kind).removeFinalizer(key, finalizer, fence);
  }

  async applyIntent<K extends ResourceKind>(kind: K, key: string, intent: ResourceIntent): Promise<IntentOutcome<K>> {
    const { changed, object } = await this.records(kind).applyIntent(key, intent);
    return { changed, object: object as ResourceOf<K> };
  }

  createObject(kind: ResourceKind, object: NewObject, fence?: Fence): Promise<'created' | 'exists'> {
    return this.records(kind).create(`${object.metadata.namespace}/${object.metadata.name}`, object, fence);
  }

  addOwnerReference(kind: ResourceKind, key: string, owner: OwnerRef, fence?: Fence): Promise<boolean> {
    return this.records(kind).addOwnerReference(key, owner, fence);
  }

  async requestDelete(kind: ResourceKind, key: string): Promise<'terminating' | 'deleted' | 'missing'> {
    return this.byKind.has(kind) ? this.records(kind).requestDelete(key) : 'missing';
  }

  check(input: readonly unknown[]): ObjectIssue[] {
    return checkObjects(input, this.seen()).issues;
  }

  async apply(input: readonly unknown[]): Promise<ObjectApplyResult> {
    const { issues, ready } = checkObjects(input, this.seen());
    if (issues.length > 0) return { ok: false, issues, applied: 0 };
    for (const { kind, key, object, generated } of ready) {
      const records = this.records(kind);
      const outcome = await records.apply(key, object as unknown as SpecRecord, { generated });
      // A status given on create is taken (Cluster API objects carry what their controllers wrote).
      const layout = this.options.layouts.find((l) => l.kind === kind);
      if (outcome === 'created' && object.status && layout?.statusOnCreate) await records.writeStatus(key, { ...object.status });
    }
    return { ok: true, issues: [], applied: ready.length, objects: ready.map(({ kind, key }) => ({ kind, key })) };
  }

  private seen(): Parameters<typeof checkObjects>[1] {
    return {
      holds: (kind, key) => this.byKind.get(kind)?.holds(key) ?? false,
      stored: (kind, key): StoredObject | undefined => this.byKind.get(kind)?.merged(key),
      validators: { ...COMPANION_VALIDATORS, ...this.options.validators },
    };
  }

  staleFenceRefusals(): number {
    return this.refusals.total;
  }

  recordProblem(kind: ResourceKind, key: string): string | undefined {
    return this.byKind.get(kind)?.recordProblem(key);
  }

  recordProblems(kind: ResourceKind): ReadonlyMap<string, string> {
    const records = this.byKind.get(kind);
    const out = new Map<string, string>();
    for (const key of records?.recordProblemKeys() ?? []) {
      const problem = records!.recordProblem(key);
      if (problem) out.set(key, problem);
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.stops.splice(0)) {
      try {
        stop();
      } catch {
        // A watch of a closed connection has nothing left to stop.
      }
    }
    this.events.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError('the KV store is closed', false);
  }
}

function secretEvent(key: string, change: SecretChangeKind): ResourceEvent {
  if (change === 'removed') return { type: 'deleted', kind: 'Secret', key };
  const slash = key.indexOf('/');
  return { type: 'upsert', kind: 'Secret', key, change: 'spec', object: { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } } };
}
