import type { Secret } from '../api/secret.ts';
import type { Fence } from './host-store.ts';

// The store of the Cluster API side: MaasMachines, MaasClusters, and the CAPI Machines, Clusters
// and Secrets they refer to. Objects are plain parsed resources; keys are "<namespace>/<name>".
export type ObjectKind = 'MaasMachine' | 'MaasCluster' | 'Machine' | 'Cluster' | 'Secret';

export interface StoredObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid?: string;
    readonly generation?: number;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
    readonly deletionTimestamp?: string;
    readonly ownerReferences?: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly apiVersion?: string }>;
  };
  readonly spec?: Readonly<Record<string, unknown>>;
  readonly status?: Readonly<Record<string, unknown>>;
}

export type ObjectEvent =
  // change: 'spec' for anything but a status write, which is 'status'.
  | { type: 'upsert'; kind: ObjectKind; key: string; object: StoredObject; change: 'spec' | 'status' }
  | { type: 'deleted'; kind: ObjectKind; key: string };

export interface ObjectStore {
  list(kind: ObjectKind): Promise<StoredObject[]>;
  get(kind: ObjectKind, key: string): Promise<StoredObject | undefined>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  watch(listener: (event: ObjectEvent) => void): () => void;
  // Every write takes the writer's shard fence (see Fence): a store that keeps fences refuses an
  // epoch older than one that has written the object (StaleFence); no fence is never checked.
  writeStatus(kind: ObjectKind, key: string, status: Record<string, unknown>, fence?: Fence): Promise<void>;
  // Top-level spec fields to set; null removes one.
  patchSpec(kind: ObjectKind, key: string, patch: Record<string, unknown>, fence?: Fence): Promise<void>;
  addFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  removeFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  /** Fenced writes this store has refused with StaleFence since it opened (for metrics). */
  staleFenceRefusals?(): number;
}

export function objectKey(o: Pick<StoredObject, 'metadata'>): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
}
