import type { Secret } from '../api/secret.ts';
import type { Fence } from './fence.ts';
import type { ObjectKind, StoredObject } from './resource-store.ts';

// The Cluster API side's store, as the KV object engine (adapters/store/kv-object-store.ts)
// serves it beside the host engine inside the one KV store: what its callers outside the adapters
// see is ResourceStore. Objects are plain parsed resources; keys are "<namespace>/<name>".

export type ObjectEvent =
  // change: 'spec' for anything but a status write, which is 'status'.
  | { type: 'upsert'; kind: ObjectKind; key: string; object: StoredObject; change: 'spec' | 'status' }
  | { type: 'deleted'; kind: ObjectKind; key: string };

export interface ObjectStore {
  list(kind: ObjectKind): Promise<StoredObject[]>;
  get(kind: ObjectKind, key: string): Promise<StoredObject | undefined>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  watch(listener: (event: ObjectEvent) => void): () => void;
  writeStatus(kind: ObjectKind, key: string, status: Record<string, unknown>, fence?: Fence): Promise<void>;
  patchSpec(kind: ObjectKind, key: string, patch: Record<string, unknown>, fence?: Fence): Promise<void>;
  patchAnnotations(kind: ObjectKind, key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean>;
  addFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  removeFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  staleFenceRefusals?(): number;
}

export function objectKey(o: Pick<StoredObject, 'metadata'>): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
}
