import type { BareMetalHostStatus } from '../../api/index.ts';
import type { Secret } from '../../api/secret.ts';
import type { Fence, ObjectKind, ResourceEvent, ResourceIntent, ResourceKind, ResourceOf, ResourceStore, ResourceWatchOptions, StatusOf } from '../../ports/index.ts';
import { OBJECT_KINDS, StoreError } from '../../ports/index.ts';
import type { NatsStore } from './nats-store.ts';

// The one KV store (issue 29.1): every kind on KV, in the buckets each kind declares
// (machines/*/kind.ts `buckets`). BareMetalHost keeps spec and status apart (mf-hosts,
// mf-status: a user's apply and the controller's status write never race on one revision) and
// is served by the host records (nats-store.ts: msgpack values, shard-filtered watch, bytes of
// unwatched hosts left unparsed, own fenced-write echoes not told again); the MAAS kinds and the
// Cluster API objects they read share mf-objects (kv-object-store.ts). Both apply the one fence
// rule (ports/fence.ts), keep their records in one cache (record-slots.ts: lazy parse, own-write
// echoes, last good versions), and open, read back and compare-and-set through kv-record.ts; what
// is still theirs is the layout (two buckets or one) and apply. What the rest of metalfleet sees
// is this ResourceStore.

const HOST = 'BareMetalHost';

export interface KvStore extends ResourceStore {
  /** BareMetalHost records: apply, snapshots and the host-only reads live there. */
  readonly hosts: NatsStore;
  /** The Cluster API side's records (kv-object-store.ts); null on a node that runs no MAAS kind. */
  readonly objects: ResourceStore | null;
  getFresh<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined>;
  staleFenceRefusals(): number;
  recordProblem(kind: ResourceKind, key: string): string | undefined;
  recordProblems(kind: ResourceKind): ReadonlyMap<string, string>;
  close(): Promise<void>;
}

/** The one store over the host records and (with a MAAS kind) the object records. */
export function kvStore(hosts: NatsStore, objects: ResourceStore | null): KvStore {
  return new KvResources(hosts, objects);
}

class KvResources implements KvStore {
  constructor(readonly hosts: NatsStore, readonly objects: ResourceStore | null) {}

  private objectRecords(kind: ResourceKind, doing: string): ResourceStore {
    if (!this.objects) throw new StoreError(`${doing} ${kind}: this node keeps no ${kind} objects (it runs no MAAS kind)`, false);
    return this.objects;
  }

  async get<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> {
    if (kind === HOST) return (await this.hosts.get(key)) as ResourceOf<K> | undefined;
    return this.objects?.get(kind, key);
  }

  async list<K extends ResourceKind>(kind: K): Promise<ResourceOf<K>[]> {
    if (kind === HOST) return (await this.hosts.list()) as ResourceOf<K>[];
    return (await this.objects?.list(kind)) ?? [];
  }

  async getFresh<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> {
    // The object records are read through their compare-and-set: their cache is what writes start from.
    return kind === HOST ? (await this.hosts.getFresh(key)) as ResourceOf<K> | undefined : this.get(kind, key);
  }

  watch<K extends ResourceKind>(listener: (event: ResourceEvent<K>) => void, options: ResourceWatchOptions<K> = {}): () => void {
    const kinds = options.kinds ? new Set<ResourceKind>(options.kinds) : null;
    const keys = options.keys;
    const stops: Array<() => void> = [];
    if (!kinds || kinds.has(HOST)) {
      const tell = listener as (event: ResourceEvent<'BareMetalHost'>) => void;
      // The host records tell each change in both shapes already (nats-store.ts hostUpsert):
      // passed on as it is, no second object per change on the hot path.
      stops.push(this.hosts.watch((event) => {
        if ((event as { kind?: string }).kind === HOST) tell(event as unknown as ResourceEvent<'BareMetalHost'>);
        else if (event.type === 'deleted') tell({ type: 'deleted', kind: HOST, key: event.key });
        else tell({ type: 'upsert', kind: HOST, key: `${event.host.metadata.namespace}/${event.host.metadata.name}`, object: event.host, change: 'spec' });
      }, keys ? { keys } : {}));
    }
    const others = [...(kinds ?? OBJECT_KINDS)].filter((k): k is ObjectKind => k !== HOST);
    if (this.objects && others.length > 0) {
      stops.push(this.objects.watch(listener as (event: ResourceEvent<ObjectKind>) => void, { kinds: others, ...(keys ? { keys } : {}) }));
    }
    return () => {
      for (const stop of stops.splice(0)) stop();
    };
  }

  getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.hosts.getSecret(namespace, name);
  }

  writeStatus<K extends ResourceKind>(kind: K, key: string, status: StatusOf<K>, fence?: Fence): Promise<void> {
    if (kind === HOST) return this.hosts.writeStatus(key, status as BareMetalHostStatus, fence);
    return this.objectRecords(kind, 'writing the status of').writeStatus(kind, key, status, fence);
  }

  patchSpec(kind: ResourceKind, key: string, patch: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void> {
    if (kind === HOST) return this.hosts.patchSpec(key, patch, fence);
    return this.objectRecords(kind, 'patching the spec of').patchSpec(kind, key, patch, fence);
  }

  patchAnnotations(kind: ResourceKind, key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    if (kind === HOST) return this.hosts.patchAnnotations(key, annotations, fence);
    return this.objectRecords(kind, 'annotating').patchAnnotations(kind, key, annotations, fence);
  }

  addFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    if (kind === HOST) return this.hosts.addFinalizer(key, finalizer, fence);
    return this.objectRecords(kind, 'adding a finalizer to').addFinalizer(kind, key, finalizer, fence);
  }

  removeFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    if (kind === HOST) return this.hosts.removeFinalizer(key, finalizer, fence);
    return this.objectRecords(kind, 'removing a finalizer from').removeFinalizer(kind, key, finalizer, fence);
  }

  async applyIntent<K extends ResourceKind>(kind: K, key: string, intent: ResourceIntent): Promise<ResourceOf<K>> {
    if (kind === HOST) return (await this.hosts.applyIntent(key, intent)) as ResourceOf<K>;
    return this.objectRecords(kind, 'recording intent on').applyIntent(kind, key, intent);
  }

  requestDelete(kind: ResourceKind, key: string): Promise<'terminating' | 'deleted' | 'missing'> {
    if (kind === HOST) return this.hosts.requestDelete(key);
    return this.objects ? this.objects.requestDelete(kind, key) : Promise.resolve('missing');
  }

  staleFenceRefusals(): number {
    return this.hosts.staleFenceRefusals() + (this.objects?.staleFenceRefusals?.() ?? 0);
  }

  recordProblem(kind: ResourceKind, key: string): string | undefined {
    return kind === HOST ? this.hosts.recordProblem(key) : this.objects?.recordProblem?.(kind, key);
  }

  recordProblems(kind: ResourceKind): ReadonlyMap<string, string> {
    return kind === HOST ? this.hosts.recordProblems() : new Map();
  }

  async close(): Promise<void> {
    await this.hosts.close();
    await this.objects?.close?.();
  }
}
