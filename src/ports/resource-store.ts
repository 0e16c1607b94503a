import type { BareMetalHost, BareMetalHostStatus } from '../api/index.ts';
import type { Secret } from '../api/secret.ts';
import type { Fence } from './fence.ts';

// The one store port (issue 29.1): every kind's objects, keyed by kind and `namespace/name`, on
// whichever substrate (KV, Kubernetes). Values are parsed with the kind's schema and the one
// metadata schema (api/meta.ts); every owner write takes its shard's Fence (ports/fence.ts).

/** A namespaced object as a store hands it out: a kind's schema checks the rest. */
export interface StoredObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
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

/** Each kind a store keeps, to the type its reads return: a BareMetalHost read stays typed. */
export interface ResourceKinds {
  readonly BareMetalHost: BareMetalHost;
  readonly MaasMachine: StoredObject;
  readonly MaasCluster: StoredObject;
  readonly Machine: StoredObject;
  readonly Cluster: StoredObject;
  // A BareMetalHost's companions (machines/companion.ts): kept, read and written by its actor.
  readonly HardwareData: StoredObject;
  readonly FirmwareSchema: StoredObject;
  readonly HostFirmwareSettings: StoredObject;
  readonly HostFirmwareComponents: StoredObject;
  readonly HostUpdatePolicy: StoredObject;
  /** Named only: a Secret's event or listing never carries its data (getSecret reads it). */
  readonly Secret: StoredObject;
}
export type ResourceKind = keyof ResourceKinds;
export type ResourceOf<K extends ResourceKind> = ResourceKinds[K];
/** What writeStatus takes for a kind. */
export type StatusOf<K extends ResourceKind> = K extends 'BareMetalHost' ? BareMetalHostStatus : Record<string, unknown>;

/** The kinds other than BareMetalHost: what the Cluster API side reads and writes. */
export type ObjectKind = Exclude<ResourceKind, 'BareMetalHost'>;
export const OBJECT_KINDS: readonly ObjectKind[] = ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'];

/** A BareMetalHost's companion kinds, as the stores keep them (machines/kinds.ts COMPANION_KINDS). */
export type HostCompanionKind = 'HardwareData' | 'FirmwareSchema' | 'HostFirmwareSettings' | 'HostFirmwareComponents' | 'HostUpdatePolicy';
export const HOST_COMPANION_KINDS: readonly HostCompanionKind[] = ['HardwareData', 'FirmwareSchema', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy'];

/** An object a controller creates (a host's HardwareData): identity, owners and spec; the store adds the rest. */
export interface NewObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
    readonly ownerReferences?: ReadonlyArray<OwnerRef>;
  };
  readonly spec?: Readonly<Record<string, unknown>>;
}

/** An owner reference as a controller writes it (uid when the owner has one: Kubernetes' garbage collector needs it). */
export interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/**
 * A change seen by a watch. `change`: 'spec' for anything but a status write, which is 'status'
 * (a store may leave its own status writes untold). Typed by kind: narrowing `kind` types `object`.
 */
export type ResourceEvent<K extends ResourceKind = ResourceKind> =
  | { [P in K]: { readonly type: 'upsert'; readonly kind: P; readonly key: string; readonly object: ResourceKinds[P]; readonly change: 'spec' | 'status' } }[K]
  | { readonly type: 'deleted'; readonly kind: K; readonly key: string };

/** What a watcher wants; a store may skip work (parsing) for what no watcher wants. */
export interface ResourceWatchOptions<K extends ResourceKind = ResourceKind> {
  /** Only these kinds. Default: all. */
  readonly kinds?: readonly K[];
  /** Only these keys (a node: the objects of the shards it owns). Default: all. */
  readonly keys?: (key: string) => boolean;
}

export interface ResourceListOptions {
  /** Only these keys (`namespace/name`); the caller still checks what it gets. Default: all. */
  readonly keys?: (key: string) => boolean;
}

/** What applyIntent came to: whether it changed the object, and the object as it now is. */
export interface IntentOutcome<K extends ResourceKind> {
  readonly changed: boolean;
  readonly object: ResourceOf<K>;
}

/** A user's intent, as a command or the CLI records it: one write, never fenced. */
export interface ResourceIntent {
  /** Annotations to set; null removes one. */
  readonly annotations?: Readonly<Record<string, string | null>>;
  /** Top-level spec fields to set (each checked against the kind's schema); null removes one. */
  readonly spec?: Readonly<Record<string, unknown>>;
}

export interface ResourceStore {
  get<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined>;
  /**
   * `options.keys`: only the objects whose key passes are wanted (a node taking a few shards of
   * a large fleet); a store may skip the others without reading them, or return them anyway.
   */
  list<K extends ResourceKind>(kind: K, options?: ResourceListOptions): Promise<ResourceOf<K>[]>;
  /**
   * The object as the store itself holds it now, past any cache (which may lag other nodes'
   * writes by a watch delivery). Optional: a store whose get is already that has none.
   */
  getFresh?<K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined>;
  /** Returns unsubscribe. Status writes of a kind whose status is its controller's are not told. */
  watch<K extends ResourceKind>(listener: (event: ResourceEvent<K>) => void, options?: ResourceWatchOptions<K>): () => void;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  // Owner writes: each takes the writer's shard fence; an older one than has written is refused.
  writeStatus<K extends ResourceKind>(kind: K, key: string, status: StatusOf<K>, fence?: Fence): Promise<void>;
  /** Top-level spec fields to set; null removes one. */
  patchSpec(kind: ResourceKind, key: string, patch: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void>;
  /**
   * Annotations to set (a string) or remove (null), as `kubectl annotate` does; nothing else of
   * the object changes. Resolves true when the object changed, false when it already was so.
   */
  patchAnnotations(kind: ResourceKind, key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean>;
  addFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  removeFinalizer(kind: ResourceKind, key: string, finalizer: string, fence?: Fence): Promise<void>;
  /**
   * Creates an object its controller owns unless one of that name exists ('exists': nothing is
   * written, read it to see what it holds), as a controller's Create answered AlreadyExists. The
   * fence, when given, is recorded as the owner's, as other owner writes record it.
   */
  createObject(kind: ResourceKind, object: NewObject, fence?: Fence): Promise<'created' | 'exists'>;
  /** Adds `owner` to the object's ownerReferences unless one of its kind and name is there; true when it changed. */
  addOwnerReference(kind: ResourceKind, key: string, owner: OwnerRef, fence?: Fence): Promise<boolean>;
  /**
   * Records a user's intent durably (an upsert event follows); StoreError when the object is gone.
   * `changed`: this call's write changed the object, judged on the stored version it wrote over,
   * so of two callers recording the same intent at once exactly one is told it changed it.
   */
  applyIntent<K extends ResourceKind>(kind: K, key: string, intent: ResourceIntent): Promise<IntentOutcome<K>>;
  /** As `kubectl delete`: 'terminating' while finalizers remain, 'deleted' once gone. */
  requestDelete(kind: ResourceKind, key: string): Promise<'terminating' | 'deleted' | 'missing'>;
  /**
   * Records what happened to an object where its users look (a Kubernetes Event, as BMO records
   * them). Optional: stores without such a place have none. Resolves even when recording fails.
   */
  recordEvent?(kind: ResourceKind, key: string, severity: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  /** Fenced writes this store has refused with StaleFence since it opened (for metrics). */
  staleFenceRefusals?(): number;
  /**
   * Why the store cannot read the object's newest record (a malformed KV value), for a user;
   * undefined when it can. Optional: a store whose records cannot be malformed has none.
   */
  recordProblem?(kind: ResourceKind, key: string): string | undefined;
  /** Every object of `kind` whose newest record the store cannot read, with recordProblem's message. */
  recordProblems?(kind: ResourceKind): ReadonlyMap<string, string>;
  close?(): Promise<void>;
}

/** `namespace/name`: how every store keys an object. */
export function resourceKey(o: { readonly metadata: { readonly namespace?: string; readonly name: string } }): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
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
