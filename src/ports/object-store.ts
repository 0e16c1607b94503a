import type { Secret } from '../api/secret.ts';
import type { Fence } from './fence.ts';

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
  /**
   * Annotations to set (a string) or remove (null), as `kubectl annotate` does; nothing else of
   * the object changes. How a command records its intent on an object. Resolves true when the
   * object changed, false when it already was so.
   */
  patchAnnotations(kind: ObjectKind, key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean>;
  addFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  removeFinalizer(kind: ObjectKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  /** Fenced writes this store has refused with StaleFence since it opened (for metrics). */
  staleFenceRefusals?(): number;
}

/** The annotations after a patch (null removes), or null when the patch changes nothing. */
export function patchedAnnotations(current: Readonly<Record<string, string>> | undefined, patch: Readonly<Record<string, string | null>>): Record<string, string> | null {
  const next: Record<string, string> = { ...(current ?? {}) };
  let changed = false;
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      if (k in next) {
        delete next[k];
        changed = true;
      }
    } else if (next[k] !== v) {
      next[k] = v;
      changed = true;
    }
  }
  return changed ? next : null;
}

export function objectKey(o: Pick<StoredObject, 'metadata'>): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
}
