import type { Secret } from '../../api/secret.ts';
import { errorMessage } from '../../api/index.ts';
import type { Fence, FenceOptions, IntentOutcome, Logger, NewObject, OwnerRef, ResourceEvent, ResourceIntent, ResourceKind, ResourceOf, ResourceStore, ResourceWatchOptions, StatusOf } from '../../ports/index.ts';
import { FenceRefusals, ObjectGone, patchedAnnotations, StoreError } from '../../ports/index.ts';
import type { BareMetalHost } from '../../api/index.ts';
import { ResourceEvents } from '../store/events.ts';
import type { EventRecorder } from './event-recorder.ts';
import type { JsonObject } from './merge-patch.ts';
import { isPlainObject, jsonEqual, mergePatchDiff } from './merge-patch.ts';
import type { ObjectWriter } from './object-writer.ts';
import { parseHost } from './parse-host.ts';
import { parseStoredObject } from './parse-object.ts';
import { parseSecret } from './parse-secret.ts';
import type { RawObject } from './raw-object.ts';
import type { CacheChange, ResourceCache } from './resource-cache.ts';
import { hostsNamingSecret } from './secret-refs.ts';

export interface KubeStoreOptions extends FenceOptions {
  /** The informer cache of every kind this node reads (Secrets always). */
  readonly caches: Readonly<Partial<Record<ResourceKind, ResourceCache>>> & { readonly Secret: ResourceCache };
  /** Writers of the kinds metalfleet writes (BareMetalHost; with MAAS, MaasMachine and MaasCluster). */
  readonly writers: Readonly<Partial<Record<ResourceKind, ObjectWriter>>>;
  readonly events: EventRecorder;
  readonly log: Logger;
}

/**
 * Every kind in Kubernetes, as one ResourceStore. Reads come from the informer caches; writes are
 * merge patches through each kind's ObjectWriter: status on the status subresource (the
 * difference, conditional on the RV, fenced), finalizers read-modify-write with the RV, single
 * annotations and intent as keys. An owner's writes carry the shard fence: the object records its
 * owner (metalfleet.io/owner) and an older epoch is refused (StaleFence, counted). User intent
 * (commands) is never fenced.
 *
 * Watch: every change names whether spec or only status changed. A BareMetalHost's status-only
 * updates are our own writes and are not told; a Secret's event names it and never carries its
 * data, and a change to its data also tells again each host naming it (what a registration error
 * waits for).
 */
export class KubeStore implements ResourceStore {
  private readonly parsed = new WeakMap<RawObject, object | null>();
  // One warning per version of a broken object, not one per resync.
  private readonly warned = new Map<string, string | undefined>();
  private readonly events: ResourceEvents;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly refusals: FenceRefusals;

  constructor(private readonly o: KubeStoreOptions) {
    this.refusals = new FenceRefusals(o.onStaleFence);
    this.events = new ResourceEvents((error, event) => {
      o.log.warn({ kind: event.kind, key: event.key, event: event.type, err: errorMessage(error) }, 'a store watch listener threw; other listeners still got the event');
    });
    for (const [kind, cache] of Object.entries(o.caches) as Array<[ResourceKind, ResourceCache]>) {
      this.unsubscribe.push(cache.subscribe((c) => this.onChange(kind, c)));
    }
  }

  private cache(kind: ResourceKind): ResourceCache | undefined {
    return this.o.caches[kind];
  }

  /** The object as its kind's schema reads it; null (warned once per version) when it does not. */
  private stored(kind: ResourceKind, raw: RawObject): object | null {
    if (this.parsed.has(raw)) return this.parsed.get(raw) ?? null;
    let value: object | null;
    if (kind === 'Secret') {
      // Identity only: Secret data stays in the cache and reaches callers through getSecret.
      value = { apiVersion: 'v1', kind: 'Secret', metadata: { name: raw.metadata.name, namespace: raw.metadata.namespace ?? 'default', ...(raw.metadata.uid ? { uid: raw.metadata.uid } : {}) } };
    } else {
      const parsed = kind === 'BareMetalHost' ? parseHost(raw) : parseStoredObject(raw);
      value = parsed.ok ? parsed.value : null;
      const key = `${raw.metadata.namespace ?? ''}/${raw.metadata.name}`;
      const rv = raw.metadata.resourceVersion;
      if (parsed.ok) this.warned.delete(`${kind} ${key}`);
      else if (this.warned.get(`${kind} ${key}`) !== rv || !this.warned.has(`${kind} ${key}`)) {
        this.warned.set(`${kind} ${key}`, rv);
        this.o.log.warn({ kind, key, resourceVersion: rv, problems: parsed.problems }, 'skipping an object that does not parse (the last valid version, if any, stays in use)');
      }
    }
    this.parsed.set(raw, value);
    return value;
  }

  private onChange(kind: ResourceKind, change: CacheChange): void {
    if (change.type === 'deleted') {
      this.warned.delete(`${kind} ${change.key}`);
      this.events.emit({ type: 'deleted', kind, key: change.key });
      return;
    }
    if (change.change === 'none') return;
    const object = this.stored(kind, change.next);
    if (!object) return;
    // A host's status-only change is its own actor's write; a host that did not parse before is
    // new to its actor now.
    if (kind === 'BareMetalHost' && change.change === 'status' && change.prev && this.stored(kind, change.prev)) return;
    this.events.emit({ type: 'upsert', kind, key: change.key, object, change: change.change } as ResourceEvent);
    if (kind === 'Secret') this.onSecret(change);
  }

  // A Secret's new data is what a host waiting for it (a registration error) retries on.
  private onSecret(change: Extract<CacheChange, { type: 'upsert' }>): void {
    const before = change.prev as (RawObject & { data?: unknown; type?: unknown }) | undefined;
    const after = change.next as RawObject & { data?: unknown; type?: unknown };
    if (before && jsonEqual(before.data, after.data) && jsonEqual(before.type, after.type)) return;
    const hosts = this.cache('BareMetalHost');
    if (!hosts) return;
    const parsed = [...hosts.values()].map((raw) => this.stored('BareMetalHost', raw)).filter((h): h is BareMetalHost => h !== null);
    for (const host of hostsNamingSecret(parsed, change.key)) {
      this.events.emit({ type: 'upsert', kind: 'BareMetalHost', key: `${host.metadata.namespace}/${host.metadata.name}`, object: host, change: 'spec' });
    }
  }

  async list<K extends ResourceKind>(kind: K): Promise<ResourceOf<K>[]> {
    const out: ResourceOf<K>[] = [];
    for (const raw of this.cache(kind)?.values() ?? []) {
      const object = this.stored(kind, raw);
      if (object) out.push(object as ResourceOf<K>);
    }
    return out;
  }

  async get<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> {
    const raw = this.cache(kind)?.get(key);
    return raw ? (this.stored(kind, raw) as ResourceOf<K> | null) ?? undefined : undefined;
  }

  watch<K extends ResourceKind>(listener: (event: ResourceEvent<K>) => void, options?: ResourceWatchOptions<K>): () => void {
    return this.events.subscribe(listener, options);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    const raw = this.o.caches.Secret.get(`${namespace}/${name}`);
    if (!raw) return undefined;
    const parsed = parseSecret(raw);
    if (parsed.ok) return parsed.value;
    // Field names only: the problems never carry a value.
    this.o.log.warn({ secret: `${namespace}/${name}`, problems: parsed.problems }, 'a Secret does not parse; treated as missing');
    return undefined;
  }

  async writeStatus<K extends ResourceKind>(kind: K, key: string, status: StatusOf<K>, fence?: Fence): Promise<void> {
    await this.counted(this.writer(kind, 'writing the status of').writeStatus(key, status as unknown as JsonObject, fence));
  }

  staleFenceRefusals(): number {
    return this.refusals.total;
  }

  async patchSpec(kind: ResourceKind, key: string, patch: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void> {
    await this.counted(this.writer(kind, 'patching the spec of').mutate(key, (current) => {
      const diff = specFieldsDiff(current, patch);
      return Object.keys(diff).length > 0 ? { spec: diff } : null;
    }, { what: `patching the spec of ${kind} ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
  }

  async patchAnnotations(kind: ResourceKind, key: string, patch: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    let changed = false;
    await this.counted(this.writer(kind, 'annotating').mutate(key, (current) => {
      changed = patchedAnnotations(current.metadata.annotations, patch) !== null;
      // A merge patch of metadata.annotations: only the keys given, null deleting one.
      return changed ? { metadata: { annotations: { ...patch } } } : null;
    }, { what: `annotating ${kind} ${key}`, precondition: false, ...(fence ? { fence } : {}) }));
    return changed;
  }

  async addFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    const what = `adding finalizer ${finalizer} to ${kind} ${key}`;
    await this.counted(this.writer(kind, 'adding a finalizer to').mutate(key, (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return null;
      // The API server refuses it too (422); say so without a request.
      if (current.metadata.deletionTimestamp) throw new StoreError(`${what}: it is being deleted and takes no new finalizers`, false);
      return { metadata: { finalizers: [...finalizers, finalizer] } };
    }, { what, precondition: true, ...(fence ? { fence } : {}) }));
  }

  async removeFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    // Gone already: nothing left to release.
    if (kind !== 'BareMetalHost' && !this.cache(kind)?.get(key)) return;
    try {
      await this.counted(this.writer(kind, 'removing a finalizer from').mutate(key, (current) => {
        const finalizers = current.metadata.finalizers ?? [];
        if (!finalizers.includes(finalizer)) return null;
        const rest = finalizers.filter((f) => f !== finalizer);
        return { metadata: { finalizers: rest.length > 0 ? rest : null } };
      }, { what: `removing finalizer ${finalizer} from ${kind} ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
    } catch (error) {
      if (kind !== 'BareMetalHost' && error instanceof ObjectGone) return;
      throw error;
    }
  }

  async applyIntent<K extends ResourceKind>(kind: K, key: string, intent: ResourceIntent): Promise<IntentOutcome<K>> {
    const what = `recording intent on ${kind} ${key}`;
    let changed = false;
    // Judged on the object and sent conditional on its version: a cache that lags another writer's
    // same intent conflicts, is read again, and is told unchanged.
    const written = await this.writer(kind, 'recording intent on').mutate(key, (current) => {
      changed = false;
      const patch: JsonObject = {};
      const annotations = intent.annotations ?? {};
      if (patchedAnnotations(current.metadata.annotations, annotations) !== null) patch['metadata'] = { annotations: { ...annotations } };
      if (Object.keys(specFieldsDiff(current, intent.spec ?? {})).length > 0) patch['spec'] = { ...intent.spec } as JsonObject;
      changed = Object.keys(patch).length > 0;
      return changed ? patch : null;
    }, { what, precondition: true });
    const parsed = kind === 'BareMetalHost' ? parseHost(written) : parseStoredObject(written);
    if (!parsed.ok) throw new StoreError(`${what}: the stored object does not parse (${parsed.problems.join('; ')})`, false);
    return { changed, object: parsed.value as ResourceOf<K> };
  }

  async createObject(kind: ResourceKind, object: NewObject, fence?: Fence): Promise<'created' | 'exists'> {
    const key = `${object.metadata.namespace}/${object.metadata.name}`;
    return this.counted(this.writer(kind, 'creating').create(key, JSON.parse(JSON.stringify(object)) as JsonObject, fence));
  }

  async addOwnerReference(kind: ResourceKind, key: string, owner: OwnerRef, fence?: Fence): Promise<boolean> {
    let changed = false;
    await this.counted(this.writer(kind, 'adding an owner to').mutate(key, (current) => {
      const owners = (current.metadata as { ownerReferences?: Array<{ kind?: string; name?: string }> }).ownerReferences ?? [];
      if (owners.some((o) => o.kind === owner.kind && o.name === owner.name)) return null;
      changed = true;
      // A merge patch replaces the whole list: sent with the resourceVersion it was computed from.
      return { metadata: { ownerReferences: [...owners, { ...owner }] as unknown as JsonObject[] } } as JsonObject;
    }, { what: `adding owner ${owner.kind} ${owner.name} to ${kind} ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
    return changed;
  }

  async requestDelete(kind: ResourceKind, key: string): Promise<'terminating' | 'deleted' | 'missing'> {
    if (!this.cache(kind)?.get(key) && kind !== 'BareMetalHost') return 'missing';
    return this.writer(kind, 'deleting').delete(key);
  }

  async recordEvent(kind: ResourceKind, key: string, severity: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const cache = this.cache(kind);
    const raw = cache?.get(key);
    const slash = key.indexOf('/');
    await this.o.events.record({
      apiVersion: cache?.resource.apiVersion ?? raw?.apiVersion ?? 'v1',
      kind,
      namespace: raw?.metadata.namespace ?? key.slice(0, slash),
      name: raw?.metadata.name ?? key.slice(slash + 1),
      ...(raw?.metadata.uid ? { uid: raw.metadata.uid } : {}),
      ...(raw?.metadata.resourceVersion ? { resourceVersion: raw.metadata.resourceVersion } : {}),
    }, severity, reason, message);
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  // A StaleFence from any write is counted (and told to onStaleFence) before the caller sees it.
  private counted<T>(write: Promise<T>): Promise<T> {
    return write.catch((error: unknown) => {
      throw this.refusals.seen(error);
    });
  }

  private writer(kind: ResourceKind, what: string): ObjectWriter {
    const writer = this.o.writers[kind];
    if (!writer) throw new StoreError(`${what} ${kind} objects: metalfleet does not write ${kind} objects${this.cache(kind) ? '' : ' here (this node does not run that kind)'}`, false);
    return writer;
  }
}

// The merge patch that sets top-level spec fields (null or undefined removes one) on the stored
// object. Fields are replaced whole: the diff nulls what a replaced field no longer has.
function specFieldsDiff(current: RawObject, fields: Readonly<Record<string, unknown>>): JsonObject {
  const spec = isPlainObject(current['spec']) ? current['spec'] : {};
  const desired: JsonObject = { ...spec };
  for (const [field, value] of Object.entries(fields)) {
    if (value === null || value === undefined) delete desired[field];
    else desired[field] = value as JsonObject[string];
  }
  return mergePatchDiff(spec, desired);
}
