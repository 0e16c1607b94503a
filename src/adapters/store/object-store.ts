import { randomUUID } from 'node:crypto';
import { Secret } from '../../api/secret.ts';
import { nameOnCreate } from './generated-names.ts';
import { ReadVersions } from './secret-version.ts';
import type { Fence, FenceOptions, ObjectEvent, ObjectKind, ObjectStore, StoredObject } from '../../ports/index.ts';
import { FenceRefusals, objectKey, patchedAnnotations, StaleFence, StoreError } from '../../ports/index.ts';

export interface ObjectIssue {
  readonly index: number;
  readonly kind?: string;
  readonly key?: string;
  readonly path: string;
  readonly message: string;
}

// Validates one object of a kind; returns its problems (empty when valid).
export type ObjectValidator = (object: unknown, old: unknown) => ReadonlyArray<{ path: string; reason: string }>;

export interface MemoryObjectStore extends ObjectStore {
  // All or nothing: every object is validated first, and nothing is stored if one is invalid.
  apply(objects: readonly unknown[]): { ok: boolean; issues: ObjectIssue[]; applied: number };
  delete(kind: ObjectKind, key: string): 'terminating' | 'deleted' | 'missing';
  statusWrites(kind: ObjectKind, key?: string): number;
  staleFenceRefusals(): number;
}

const KINDS: Record<string, ObjectKind> = {
  'infrastructure.cluster.x-k8s.io/v1beta1 MaasMachine': 'MaasMachine',
  'infrastructure.cluster.x-k8s.io/v1beta1 MaasCluster': 'MaasCluster',
  'cluster.x-k8s.io/v1beta1 Machine': 'Machine',
  'cluster.x-k8s.io/v1beta1 Cluster': 'Cluster',
  'v1 Secret': 'Secret',
};

export interface MemoryObjectStoreOptions extends FenceOptions {
  readonly validators?: Partial<Record<ObjectKind, ObjectValidator>>;
  readonly now?: () => number;
}

// The embedded mode's store of Cluster API objects: in memory, events delivered synchronously,
// status and spec written separately as the API server does. Fenced writes are checked against
// the highest epoch that has written each object, as the cluster's stores do, so the same rule
// holds in every mode.
export function createMemoryObjectStore(o: MemoryObjectStoreOptions = {}): MemoryObjectStore {
  const objects = new Map<string, StoredObject>();
  const listeners = new Set<(e: ObjectEvent) => void>();
  const writes = new Map<string, number>();
  /** The highest fence epoch that has written each object, for as long as it exists. */
  const epochs = new Map<string, number>();
  const refusals = new FenceRefusals(o.onStaleFence);
  const now = o.now ?? Date.now;
  const secretVersions = new ReadVersions();
  const id = (kind: ObjectKind, key: string) => `${kind} ${key}`;
  const emit = (e: ObjectEvent): void => {
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        // One listener's failure is not the store's, nor the other listeners'.
      }
    }
  };
  const must = (kind: ObjectKind, key: string): StoredObject => {
    const found = objects.get(id(kind, key));
    if (!found) throw new StoreError(`${kind} ${key} not found`, false);
    return found;
  };
  // Refuses a write older than the newest fence seen on the object; otherwise records it.
  const admit = (kind: ObjectKind, key: string, fence: Fence | undefined, write: string): void => {
    if (fence === undefined) return;
    const recorded = epochs.get(id(kind, key));
    if (recorded !== undefined && fence.epoch < recorded) throw refusals.refused(new StaleFence(key, fence, recorded, `${write} ${kind} ${key}`));
    epochs.set(id(kind, key), fence.epoch);
  };
  const replace = (kind: ObjectKind, key: string, next: StoredObject, change: 'spec' | 'status'): void => {
    const finalizers = next.metadata.finalizers ?? [];
    if (next.metadata.deletionTimestamp && finalizers.length === 0) {
      objects.delete(id(kind, key));
      epochs.delete(id(kind, key));
      emit({ type: 'deleted', kind, key });
      return;
    }
    objects.set(id(kind, key), next);
    emit({ type: 'upsert', kind, key, object: next, change });
  };
  return {
    async list(kind) {
      return [...objects.entries()].filter(([k]) => k.startsWith(`${kind} `)).map(([, v]) => v);
    },
    async get(kind, key) {
      return objects.get(id(kind, key));
    },
    async getSecret(namespace, name) {
      const s = objects.get(id('Secret', `${namespace}/${name}`));
      const parsed = s ? Secret.safeParse(s) : undefined;
      // Applied Secrets carry no resourceVersion here; one is stamped on read, fresh when the
      // content differs from the last read (see secret-version.ts).
      return secretVersions.stamp(`${namespace}/${name}`, parsed?.success ? parsed.data : undefined);
    },
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async writeStatus(kind, key, status, fence) {
      const cur = must(kind, key);
      admit(kind, key, fence, 'writing the status of');
      writes.set(id(kind, key), (writes.get(id(kind, key)) ?? 0) + 1);
      objects.set(id(kind, key), { ...cur, status });
      emit({ type: 'upsert', kind, key, object: { ...cur, status }, change: 'status' });
    },
    async patchSpec(kind, key, patch, fence) {
      const cur = must(kind, key);
      admit(kind, key, fence, 'patching the spec of');
      const spec: Record<string, unknown> = { ...(cur.spec ?? {}) };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null || v === undefined) delete spec[k];
        else spec[k] = v;
      }
      replace(kind, key, { ...cur, metadata: { ...cur.metadata, generation: (cur.metadata.generation ?? 1) + 1 }, spec }, 'spec');
    },
    async patchAnnotations(kind, key, patch, fence) {
      const cur = must(kind, key);
      admit(kind, key, fence, 'annotating');
      const annotations = patchedAnnotations(cur.metadata.annotations, patch);
      if (annotations === null) return false;
      // Metadata only: the generation stays, as the API server keeps it.
      const { annotations: _old, ...metadata } = cur.metadata;
      replace(kind, key, { ...cur, metadata: { ...metadata, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) } }, 'spec');
      return true;
    },
    async addFinalizer(kind, key, finalizer, fence) {
      const cur = must(kind, key);
      admit(kind, key, fence, `adding finalizer ${finalizer} to`);
      if (cur.metadata.deletionTimestamp) throw new StoreError(`${kind} ${key} is being deleted: no new finalizers`, false);
      if (cur.metadata.finalizers?.includes(finalizer)) return;
      replace(kind, key, { ...cur, metadata: { ...cur.metadata, finalizers: [...(cur.metadata.finalizers ?? []), finalizer] } }, 'spec');
    },
    async removeFinalizer(kind, key, finalizer, fence) {
      const cur = objects.get(id(kind, key));
      if (!cur) return;
      admit(kind, key, fence, `removing finalizer ${finalizer} from`);
      replace(kind, key, { ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer) } }, 'spec');
    },
    apply(input) {
      const issues: ObjectIssue[] = [];
      const ready: Array<{ kind: ObjectKind; key: string; object: StoredObject }> = [];
      input.forEach((raw, index) => {
        const typed = raw as Partial<StoredObject> | null;
        const kind = typed && typeof typed === 'object' ? KINDS[`${String(typed.apiVersion)} ${String(typed.kind)}`] : undefined;
        // Named only by generateName: named now, once, as the API server names it on create.
        const named = kind ? nameOnCreate(raw, (key) => objects.has(id(kind, key)) || ready.some((r) => r.kind === kind && r.key === key)) : { object: raw, generated: false };
        const obj = named.object as Partial<StoredObject> | null;
        if (!obj || !kind || !obj.metadata?.name) {
          issues.push({ index, ...(obj?.kind ? { kind: String(obj.kind) } : {}), path: kind ? 'metadata.name' : 'kind', message: kind ? 'Required value: name or generateName is required' : `unsupported apiVersion/kind ${String(obj?.apiVersion)}/${String(obj?.kind)}` });
          return;
        }
        const object = { ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? 'default' } } as StoredObject;
        const key = objectKey(object);
        const old = objects.get(id(kind, key));
        // A generated name's problems are its generateName's, reported at metadata.generateName.
        for (const e of o.validators?.[kind]?.(object, old) ?? []) if (!named.generated || e.path !== 'metadata.name') issues.push({ index, kind, key, path: e.path, message: e.reason });
        ready.push({ kind, key, object });
      });
      if (issues.length > 0) return { ok: false, issues, applied: 0 };
      for (const { kind, key, object } of ready) {
        const old = objects.get(id(kind, key));
        const metadata = { ...object.metadata, uid: old?.metadata.uid ?? randomUUID(), generation: (old?.metadata.generation ?? 0) + 1, ...(old?.metadata.finalizers ? { finalizers: old.metadata.finalizers } : {}), ...(old?.metadata.deletionTimestamp ? { deletionTimestamp: old.metadata.deletionTimestamp } : {}) };
        replace(kind, key, { ...object, metadata, ...(old?.status ? { status: old.status } : {}) }, 'spec');
      }
      return { ok: true, issues: [], applied: ready.length };
    },
    delete(kind, key) {
      const cur = objects.get(id(kind, key));
      if (!cur) return 'missing';
      if ((cur.metadata.finalizers ?? []).length === 0) {
        objects.delete(id(kind, key));
        epochs.delete(id(kind, key));
        emit({ type: 'deleted', kind, key });
        return 'deleted';
      }
      replace(kind, key, { ...cur, metadata: { ...cur.metadata, deletionTimestamp: new Date(now()).toISOString() } }, 'spec');
      return 'terminating';
    },
    staleFenceRefusals: () => refusals.total,
    statusWrites(kind, key) {
      if (key !== undefined) return writes.get(id(kind, key)) ?? 0;
      let n = 0;
      for (const [k, v] of writes) if (k.startsWith(`${kind} `)) n += v;
      return n;
    },
  };
}
