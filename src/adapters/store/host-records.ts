import type { BareMetalHost, BareMetalHostStatus } from '../../api/index.ts';
import type { Secret } from '../../api/secret.ts';
import type { Fence } from '../../ports/index.ts';

// The BareMetalHost records' own interface on KV (nats-store.ts, local-store.ts): host-keyed, as
// apply, snapshots and their tests use it. Everything else reaches hosts through the one store
// port, ResourceStore (kv-store.ts serves it over these records).

export type HostEvent =
  | { type: 'upsert'; host: BareMetalHost }
  | { type: 'deleted'; key: string };

/** A user's intent for a host, as a spec or annotation change records it (commands, CLI). */
export interface HostIntent {
  /** null removes the annotation. */
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly online?: boolean;
  /** Other top-level spec fields, each checked against its schema; null removes one. */
  readonly spec?: Readonly<Record<string, unknown>>;
}

/** What a watcher wants; a store may skip work (parsing) for what no watcher wants. */
export interface WatchOptions {
  /** Only events for these keys (a node: the hosts of the shards it owns). Default: all. */
  readonly keys?: (key: string) => boolean;
}

// Where host specs come from and status goes to on KV. Writes of status never touch spec, and a
// write naming a host that is gone fails with StoreNotFound.
export interface HostStore {
  list(): Promise<BareMetalHost[]>;
  get(key: string): Promise<BareMetalHost | undefined>;
  /**
   * The host as the store itself holds it now, past any cache (which may lag other nodes' writes
   * by a watch delivery). Optional: a store whose get is already that has none.
   */
  getFresh?(key: string): Promise<BareMetalHost | undefined>;
  // Called for spec and metadata changes (not for our own status writes). Returns unsubscribe.
  watch(listener: (event: HostEvent) => void, options?: WatchOptions): () => void;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  writeStatus(key: string, status: BareMetalHostStatus, fence?: Fence): Promise<void>;
  addFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void>;
  removeFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void>;
  removeAnnotation(key: string, annotation: string, fence?: Fence): Promise<void>;
  /** Records intent durably (an upsert event follows); StoreError when the host is gone. */
  applyIntent(key: string, intent: HostIntent): Promise<BareMetalHost>;
  /** As `kubectl delete`: 'terminating' while finalizers remain, 'deleted' once gone. */
  requestDelete(key: string): Promise<'terminating' | 'deleted'>;
  /**
   * Records what happened to a host where its users look (a Kubernetes Event, as BMO records
   * them). Optional: stores without such a place have none. Resolves even when recording fails.
   */
  recordEvent?(key: string, severity: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  /** Fenced writes this store has refused with StaleFence since it opened (for metrics). */
  staleFenceRefusals?(): number;
  /**
   * Why the store cannot read the host's newest record (a malformed KV value), for a user;
   * undefined when it can. Optional: a store whose records cannot be malformed has none.
   */
  recordProblem?(key: string): string | undefined;
  /** Every host whose newest record the store cannot read, with recordProblem's message. */
  recordProblems?(): ReadonlyMap<string, string>;
  close?(): Promise<void>;
}

