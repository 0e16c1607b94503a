import type { Secret } from '../../api/secret.ts';
import type { Fence, FenceOptions, Logger, ObjectEvent, ObjectKind, ObjectStore, StoredObject } from '../../ports/index.ts';
import { FenceRefusals, patchedAnnotations, StoreError } from '../../ports/index.ts';
import type { JsonObject } from './merge-patch.ts';
import { isPlainObject, mergePatchDiff } from './merge-patch.ts';
import type { ObjectWriter } from './object-writer.ts';
import { parseStoredObject } from './parse-object.ts';
import { parseSecret } from './parse-secret.ts';
import type { RawObject } from './raw-object.ts';
import type { CacheChange, ResourceCache } from './resource-cache.ts';
import { errorMessage } from '../../api/index.ts';

export interface KubeObjectStoreOptions extends FenceOptions {
  readonly caches: Readonly<Record<ObjectKind, ResourceCache>>;
  /** Writers of the kinds the MAAS actors write (MaasMachine, MaasCluster). */
  readonly writers: Readonly<Partial<Record<ObjectKind, ObjectWriter>>>;
  readonly log: Logger;
}

const KINDS: readonly ObjectKind[] = ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'];

/**
 * The Cluster API side in Kubernetes, for the MAAS actors: the same write rules as the host
 * store (status subresource, merge patch of the difference, 409 read and retry, one write in
 * flight per object). Watch events say whether spec or only status changed; Secret events name
 * the Secret and never carry its data. Writes with a fence claim the object for the writer's
 * shard lease (metalfleet.io/owner) and are refused (StaleFence, counted) when a newer one has.
 */
export class KubeObjectStore implements ObjectStore {
  private readonly parsed = new WeakMap<RawObject, StoredObject | null>();
  private readonly listeners = new Set<(event: ObjectEvent) => void>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly refusals: FenceRefusals;

  constructor(private readonly o: KubeObjectStoreOptions) {
    this.refusals = new FenceRefusals(o.onStaleFence);
    for (const kind of KINDS) this.unsubscribe.push(o.caches[kind].subscribe((c) => this.onChange(kind, c)));
  }

  private stored(kind: ObjectKind, raw: RawObject): StoredObject | null {
    if (this.parsed.has(raw)) return this.parsed.get(raw) ?? null;
    let value: StoredObject | null;
    if (kind === 'Secret') {
      // Identity only: Secret data stays in the cache and reaches callers through getSecret.
      value = { apiVersion: 'v1', kind: 'Secret', metadata: { name: raw.metadata.name, namespace: raw.metadata.namespace ?? 'default', ...(raw.metadata.uid ? { uid: raw.metadata.uid } : {}) } };
    } else {
      const parsed = parseStoredObject(raw);
      value = parsed.ok ? parsed.value : null;
      if (!parsed.ok) this.o.log.warn({ kind, key: `${raw.metadata.namespace}/${raw.metadata.name}`, resourceVersion: raw.metadata.resourceVersion, problems: parsed.problems }, 'skipping an object that does not parse');
    }
    this.parsed.set(raw, value);
    return value;
  }

  private onChange(kind: ObjectKind, change: CacheChange): void {
    let event: ObjectEvent;
    if (change.type === 'deleted') event = { type: 'deleted', kind, key: change.key };
    else {
      if (change.change === 'none') return;
      const object = this.stored(kind, change.next);
      if (!object) return;
      event = { type: 'upsert', kind, key: change.key, object, change: change.change };
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.o.log.warn({ kind, key: change.key, err: errorMessage(error) }, 'an object store listener threw; the others still got the event');
      }
    }
  }

  async list(kind: ObjectKind): Promise<StoredObject[]> {
    const out: StoredObject[] = [];
    for (const raw of this.o.caches[kind].values()) {
      const object = this.stored(kind, raw);
      if (object) out.push(object);
    }
    return out;
  }

  async get(kind: ObjectKind, key: string): Promise<StoredObject | undefined> {
    const raw = this.o.caches[kind].get(key);
    return raw ? this.stored(kind, raw) ?? undefined : undefined;
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    const raw = this.o.caches.Secret.get(`${namespace}/${name}`);
    if (!raw) return undefined;
    const parsed = parseSecret(raw);
    if (parsed.ok) return parsed.value;
    this.o.log.warn({ secret: `${namespace}/${name}`, problems: parsed.problems }, 'a Secret does not parse; treated as missing');
    return undefined;
  }

  watch(listener: (event: ObjectEvent) => void): () => void {
    const entry = (event: ObjectEvent): void => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  async writeStatus(kind: ObjectKind, key: string, status: Record<string, unknown>, fence?: Fence): Promise<void> {
    await this.counted(this.writer(kind, 'writing the status of').writeStatus(key, status, fence));
  }

  staleFenceRefusals(): number {
    return this.refusals.total;
  }

  async patchSpec(kind: ObjectKind, key: string, patch: Record<string, unknown>, fence?: Fence): Promise<void> {
    const what = `patching the spec of ${kind} ${key}`;
    await this.counted(this.writer(kind, 'patching the spec of').mutate(key, (current) => {
      const spec = isPlainObject(current['spec']) ? current['spec'] : {};
      // Top-level fields are replaced whole, as in the memory store: the diff nulls what a
      // replaced field no longer has.
      const desired: JsonObject = { ...spec };
      for (const [field, value] of Object.entries(patch)) {
        if (value === null || value === undefined) delete desired[field];
        else desired[field] = value;
      }
      const diff = mergePatchDiff(spec, desired);
      return Object.keys(diff).length > 0 ? { spec: diff } : null;
    }, { what, precondition: true, ...(fence ? { fence } : {}) }));
  }

  async patchAnnotations(kind: ObjectKind, key: string, patch: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    let changed = false;
    await this.counted(this.writer(kind, 'annotating').mutate(key, (current) => {
      changed = patchedAnnotations(current.metadata.annotations, patch) !== null;
      // A merge patch of metadata.annotations: only the keys given, null deleting one.
      return changed ? { metadata: { annotations: { ...patch } } } : null;
    }, { what: `annotating ${kind} ${key}`, precondition: false, ...(fence ? { fence } : {}) }));
    return changed;
  }

  async addFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.counted(this.writer(kind, 'adding a finalizer to').mutate(key, (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return null;
      if (current.metadata.deletionTimestamp) throw new StoreError(`adding finalizer ${finalizer} to ${kind} ${key}: it is being deleted and takes no new finalizers`, false);
      return { metadata: { finalizers: [...finalizers, finalizer] } };
    }, { what: `adding finalizer ${finalizer} to ${kind} ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
  }

  async removeFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void> {
    // Gone already: nothing left to release (as the KV object store).
    if (!this.o.caches[kind].get(key)) return;
    try {
      await this.counted(this.writer(kind, 'removing a finalizer from').mutate(key, (current) => {
        const finalizers = current.metadata.finalizers ?? [];
        if (!finalizers.includes(finalizer)) return null;
        const rest = finalizers.filter((f) => f !== finalizer);
        return { metadata: { finalizers: rest.length > 0 ? rest : null } };
      }, { what: `removing finalizer ${finalizer} from ${kind} ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
    } catch (error) {
      if (error instanceof StoreError && error.name === 'ObjectNotFound') return;
      throw error;
    }
  }

  close(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  // A StaleFence from any write is counted (and told to onStaleFence) before the caller sees it.
  private counted<T>(write: Promise<T>): Promise<T> {
    return write.catch((error: unknown) => {
      throw this.refusals.seen(error);
    });
  }

  private writer(kind: ObjectKind, what: string): ObjectWriter {
    const writer = this.o.writers[kind];
    if (!writer) throw new StoreError(`${what} ${kind} objects: metalfleet does not write ${kind} objects`, false);
    return writer;
  }
}
