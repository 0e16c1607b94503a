import { randomUUID } from 'node:crypto';
import { BareMetalHostSpec, type BareMetalHost, type BareMetalHostStatus } from '../../api/index.ts';
import { formatFieldPath } from '../../api/field-error.ts';
import type { ValidateOptions } from '../../api/bmh/validate.ts';
import { readManifests } from '../../api/manifest.ts';
import type { Secret } from '../../api/secret.ts';
import { StoreError, type Fence, type HostEvent, type HostIntent, type HostStore } from '../../ports/index.ts';
import { HostEvents } from './events.ts';
import { compact, deepEqual, union } from './object-helpers.ts';
import { readPersistFile, writePersistFile, type PersistedHost } from './persist.ts';
import { validateDocuments, type ApplyIssue, type SourceDocument } from './validate.ts';

/** The time and timers the store needs; the actor runtime's Clock fits. */
export interface StoreClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface MemoryStoreOptions {
  /**
   * Apply the admission webhook's rules (default true). Off, only the schema is checked: a
   * cluster without the webhook installed, whose bad objects the controller must handle itself.
   */
  admission?: boolean;
  /** BMC address schemes of loaded provisioner plugins, accepted by admission (their plugin checks them). */
  pluginBmcSchemes?: readonly string[];
  /** Save status, finalizers and deletion stamps to this JSON file; call load() before use. */
  persistPath?: string;
  /** Quiet time before changes are written; later changes join the next write. Default 200 ms. */
  persistDebounceMs?: number;
  clock?: StoreClock;
  /** A watch listener threw. Default: a process warning naming the event (never its content). */
  onListenerError?: (error: unknown, event: HostEvent) => void;
  /** A background write of the persist file failed; it is retried. Default: a process warning. */
  onPersistError?: (error: StoreError) => void;
}

export interface ApplyResult {
  /** False when any document was invalid; then nothing at all was applied. */
  readonly ok: boolean;
  readonly issues: readonly ApplyIssue[];
  /** Host keys (`namespace/name`) by what apply did to them. */
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
  /** Secret keys stored (created or replaced). */
  readonly secrets: readonly string[];
  /** Documents of kinds the store does not keep. */
  readonly skipped: readonly { index: number; kind: string; key?: string }[];
  /** Applied, but worth a look: a Secret a host names is not in the store, a key given twice. */
  readonly warnings: readonly string[];
}

export interface LoadResult {
  /** Hosts that took their saved status, finalizers and identity. */
  readonly restored: number;
  /** Saved hosts not applied yet; they take their saved state when applied. */
  readonly pending: number;
}

export interface MemoryStore extends HostStore {
  apply(objects: readonly unknown[], file?: string): ApplyResult;
  applyManifests(text: string, file: string): ApplyResult;
  /** Finalizers present: stamps deletionTimestamp ('terminating'); none: removes ('deleted'). */
  delete(key: string): 'terminating' | 'deleted';
  setAnnotation(key: string, name: string, value: string): void;
  /** Top-level spec fields to replace (undefined removes one); validated, bumps generation. */
  patchSpec(key: string, patch: Partial<BareMetalHostSpec>): void;
  statusWrites(key?: string): number;
  /** Reads the persist file and merges it into the hosts by key. Persisting starts after it. */
  load(): Promise<LoadResult>;
  /** Writes pending changes now and waits for the write; rejects if it fails. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const systemClock: StoreClock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    // Callers flush() or close() on shutdown; a pending write must not hold a process open.
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

function warnListenerError(error: unknown, event: HostEvent): void {
  const key = event.type === 'deleted' ? event.key : `${event.host.metadata.namespace}/${event.host.metadata.name}`;
  const name = error instanceof Error ? error.name : typeof error;
  process.emitWarning(`a host store watch listener threw ${name} on ${event.type} of ${key}; other listeners still got the event`, 'MemoryStoreWarning');
}

function warnPersistError(error: StoreError): void {
  process.emitWarning(error.message, 'MemoryStoreWarning');
}

/**
 * The embedded HostStore: hosts and Secrets in memory, seeded from manifests, optionally
 * persisted. Stored objects are never changed in place (every change replaces the object), so
 * objects handed out stay as they were; callers must not mutate them either.
 *
 * Watch events are synchronous: they reach every listener before the call that caused them
 * returns (see HostEvents for listeners that cause events).
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new Memory(options);
}

// Kubernetes timestamps are RFC 3339 with whole seconds.
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function notFound(key: string): StoreError {
  return new StoreError(`BareMetalHost ${key} not found (it was deleted or never applied)`, false);
}

class Memory implements MemoryStore {
  private readonly hosts = new Map<string, BareMetalHost>();
  private readonly secrets = new Map<string, Secret>();
  private readonly events: HostEvents;
  private readonly clock: StoreClock;
  private readonly writes = new Map<string, number>();
  private totalWrites = 0;
  private revision = 0;

  // Persistence.
  private readonly path: string | undefined;
  private readonly admission: false | ValidateOptions;
  private readonly debounceMs: number;
  private readonly onPersistError: (error: StoreError) => void;
  // Saved hosts not applied yet.
  private readonly pending = new Map<string, PersistedHost>();
  private loadState: 'no' | 'loading' | 'yes' = 'no';
  // A corrupt file: nothing is written over it.
  private blocked: StoreError | null = null;
  private dirty = false;
  private timer: unknown = null;
  private inFlight: Promise<StoreError | null> | null = null;
  private closed = false;

  constructor(options: MemoryStoreOptions) {
    this.clock = options.clock ?? systemClock;
    this.events = new HostEvents(options.onListenerError ?? warnListenerError);
    this.path = options.persistPath;
    this.admission = options.admission === false ? false : { pluginBmcSchemes: new Set(options.pluginBmcSchemes ?? []) };
    const debounce = options.persistDebounceMs ?? 200;
    if (!Number.isFinite(debounce) || debounce < 0) throw new RangeError(`persistDebounceMs must be 0 or more milliseconds, got ${debounce}`);
    this.debounceMs = debounce;
    this.onPersistError = options.onPersistError ?? warnPersistError;
  }

  // ---- HostStore ----

  async list(): Promise<BareMetalHost[]> {
    return [...this.hosts.values()];
  }

  async get(key: string): Promise<BareMetalHost | undefined> {
    return this.hosts.get(key);
  }

  watch(listener: (event: HostEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.secrets.get(`${namespace}/${name}`);
  }

  // O(1): keeps the caller's status object (callers pass a fresh one per write) and copies only
  // the two top-level objects. Controllers filter their own status writes, so no event.
  async writeStatus(key: string, status: BareMetalHostStatus): Promise<void> {
    const host = this.hosts.get(key);
    if (host === undefined) throw notFound(key);
    this.hosts.set(key, { ...host, metadata: { ...host.metadata, resourceVersion: this.nextRevision() }, status });
    this.writes.set(key, (this.writes.get(key) ?? 0) + 1);
    this.totalWrites += 1;
    this.changed();
  }

  // One process, no shards: a fence has nothing to be checked against here and is not.
  async addFinalizer(key: string, finalizer: string, _fence?: Fence): Promise<void> {
    const host = this.require(key);
    const finalizers = host.metadata.finalizers ?? [];
    if (finalizers.includes(finalizer)) return;
    // As the API server: an object being deleted takes no new finalizers.
    if (host.metadata.deletionTimestamp) {
      throw new StoreError(`BareMetalHost ${key} is being deleted; finalizer ${finalizer} cannot be added`, false);
    }
    this.replaceMeta(key, host, { finalizers: [...finalizers, finalizer] });
  }

  async removeFinalizer(key: string, finalizer: string, _fence?: Fence): Promise<void> {
    const host = this.require(key);
    const finalizers = host.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    const rest = finalizers.filter((f) => f !== finalizer);
    if (host.metadata.deletionTimestamp && rest.length === 0) {
      this.remove(key);
      return;
    }
    this.replaceMeta(key, host, { finalizers: rest.length > 0 ? rest : undefined });
  }

  async removeAnnotation(key: string, annotation: string, _fence?: Fence): Promise<void> {
    const host = this.require(key);
    const annotations = host.metadata.annotations;
    if (annotations === undefined || !(annotation in annotations)) return;
    const rest = { ...annotations };
    delete rest[annotation];
    this.replaceMeta(key, host, { annotations: Object.keys(rest).length > 0 ? rest : undefined });
  }

  async applyIntent(key: string, intent: HostIntent): Promise<BareMetalHost> {
    if (intent.online !== undefined) this.patchSpec(key, { online: intent.online });
    for (const [name, value] of Object.entries(intent.annotations ?? {})) {
      if (value === null) await this.removeAnnotation(key, name);
      else this.setAnnotation(key, name, value);
    }
    return this.require(key);
  }

  async requestDelete(key: string): Promise<'terminating' | 'deleted'> {
    return this.delete(key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.path !== undefined && this.loadState === 'yes' && this.blocked === null) await this.flush();
    } finally {
      this.closed = true;
      this.disarm();
    }
  }

  // ---- helpers for tests and the CLI ----

  delete(key: string): 'terminating' | 'deleted' {
    const host = this.require(key);
    if ((host.metadata.finalizers ?? []).length === 0) {
      this.remove(key);
      return 'deleted';
    }
    if (!host.metadata.deletionTimestamp) this.replaceMeta(key, host, { deletionTimestamp: timestamp(this.clock.now()) });
    return 'terminating';
  }

  setAnnotation(key: string, name: string, value: string): void {
    const host = this.require(key);
    if (host.metadata.annotations?.[name] === value) return;
    this.replaceMeta(key, host, { annotations: { ...host.metadata.annotations, [name]: value } });
  }

  patchSpec(key: string, patch: Partial<BareMetalHostSpec>): void {
    const host = this.require(key);
    const merged: Record<string, unknown> = { ...host.spec };
    for (const [field, value] of Object.entries(patch)) {
      if (value === undefined) delete merged[field];
      else merged[field] = value;
    }
    const parsed = BareMetalHostSpec.safeParse(merged);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const path = formatFieldPath(['spec', ...issue.path.filter((s): s is string | number => typeof s !== 'symbol')]);
        return `${path}: ${issue.message}`;
      });
      throw new StoreError(`BareMetalHost ${key}: invalid spec patch: ${problems.join('; ')}`, false);
    }
    if (deepEqual(host.spec, parsed.data)) return;
    const next: BareMetalHost = {
      ...host,
      metadata: { ...host.metadata, generation: (host.metadata.generation ?? 0) + 1, resourceVersion: this.nextRevision() },
      spec: parsed.data,
    };
    this.hosts.set(key, next);
    this.events.emit({ type: 'upsert', host: next });
  }

  statusWrites(key?: string): number {
    return key === undefined ? this.totalWrites : this.writes.get(key) ?? 0;
  }

  applyManifests(text: string, file: string): ApplyResult {
    return this.applyDocuments(readManifests(text, file));
  }

  apply(objects: readonly unknown[], file = '(objects)'): ApplyResult {
    return this.applyDocuments(objects.map((object, index) => ({ file, index, object })));
  }

  private applyDocuments(docs: readonly SourceDocument[]): ApplyResult {
    const { valid, issues } = validateDocuments(docs, (key) => this.hosts.get(key), this.admission);
    if (issues.length > 0) {
      return { ok: false, issues, created: [], updated: [], unchanged: [], secrets: [], skipped: [], warnings: [] };
    }
    const warnings: string[] = [];
    const skipped: { index: number; kind: string; key?: string }[] = [];
    const seen = new Map<string, SourceDocument>();
    // Everything is valid: build every new object first, then commit them all, then announce.
    const hostPlan = new Map<string, { host: BareMetalHost; outcome: 'created' | 'updated' | 'unchanged' }>();
    const secretPlan = new Map<string, Secret>();
    for (const doc of valid) {
      if (doc.type === 'skipped') {
        skipped.push({ index: doc.source.index, kind: doc.kind, ...(doc.key ? { key: doc.key } : {}) });
        continue;
      }
      const id = `${doc.type === 'host' ? 'BareMetalHost' : 'Secret'} ${doc.key}`;
      const earlier = seen.get(id);
      if (earlier) warnings.push(`${id} is given twice (documents ${earlier.index} and ${doc.source.index} of ${doc.source.file}); the later one wins`);
      seen.set(id, doc.source);
      if (doc.type === 'secret') secretPlan.set(doc.key, doc.secret);
      else hostPlan.set(doc.key, this.planHost(doc.key, doc.host));
    }

    const changedSecrets = new Set<string>();
    for (const [key, secret] of secretPlan) {
      const old = this.secrets.get(key);
      if (old === undefined || !deepEqual(old, secret)) changedSecrets.add(key);
      this.secrets.set(key, secret);
    }
    const created: string[] = [];
    const updated: string[] = [];
    const unchanged: string[] = [];
    for (const [key, { host, outcome }] of hostPlan) {
      if (outcome === 'unchanged') {
        unchanged.push(key);
        continue;
      }
      if (outcome === 'created') {
        created.push(key);
        this.pending.delete(key);
      } else {
        updated.push(key);
      }
      this.hosts.set(key, host);
      // New hosts have a new identity to save; updates may bring finalizers.
      this.changed();
    }

    for (const [key] of hostPlan) {
      for (const ref of secretRefs(this.hosts.get(key)!)) {
        if (!this.secrets.has(ref.key)) warnings.push(`BareMetalHost ${key} names Secret ${ref.key} (${ref.field}), which is not in the store yet`);
      }
    }

    const announced = new Set<string>([...created, ...updated]);
    for (const key of announced) this.events.emit({ type: 'upsert', host: this.hosts.get(key)! });
    // A new or changed Secret wakes the hosts that name it (a host waiting for credentials
    // retries now rather than after its backoff); the host itself is unchanged.
    if (changedSecrets.size > 0) {
      for (const [key, host] of this.hosts) {
        if (announced.has(key)) continue;
        if (secretRefs(host).some((ref) => changedSecrets.has(ref.key))) this.events.emit({ type: 'upsert', host });
      }
    }
    return { ok: true, issues: [], created, updated, unchanged, secrets: [...secretPlan.keys()], skipped, warnings };
  }

  private planHost(key: string, parsed: BareMetalHost): { host: BareMetalHost; outcome: 'created' | 'updated' | 'unchanged' } {
    const old = this.hosts.get(key);
    const { status: _ignored, ...desired } = parsed;
    // Identity and lifecycle fields belong to the store, not to the manifest.
    const { uid: _uid, resourceVersion: _rv, generation: _gen, creationTimestamp: _ct, deletionTimestamp: _dt, finalizers, ...rest } = desired.metadata;
    if (old === undefined) {
      const saved = this.pending.get(key);
      const metadata = compact({
        ...rest,
        uid: saved?.uid ?? randomUUID(),
        resourceVersion: this.nextRevision(),
        generation: 1,
        creationTimestamp: saved?.creationTimestamp ?? timestamp(this.clock.now()),
        finalizers: union(saved?.finalizers, finalizers),
        deletionTimestamp: saved?.deletionTimestamp,
      });
      // Status comes only from the store's own writes (a status in a manifest is ignored, as the
      // API server ignores it on create), or from the persist file.
      return { host: compact({ ...desired, metadata, status: saved?.status }) as BareMetalHost, outcome: 'created' };
    }
    const specChanged = !deepEqual(old.spec, desired.spec);
    const metadata = compact({
      ...rest,
      uid: old.metadata.uid,
      resourceVersion: old.metadata.resourceVersion,
      generation: (old.metadata.generation ?? 1) + (specChanged ? 1 : 0),
      creationTimestamp: old.metadata.creationTimestamp,
      finalizers: union(old.metadata.finalizers, finalizers),
      deletionTimestamp: old.metadata.deletionTimestamp,
    });
    if (!specChanged && deepEqual(old.metadata, metadata)) return { host: old, outcome: 'unchanged' };
    metadata.resourceVersion = this.nextRevision();
    return { host: compact({ ...desired, metadata, status: old.status }) as BareMetalHost, outcome: 'updated' };
  }

  // ---- persistence ----

  async load(): Promise<LoadResult> {
    if (this.path === undefined) return { restored: 0, pending: 0 };
    if (this.loadState !== 'no') throw new StoreError(`the store file ${this.path} is loaded once, at start`, false);
    this.loadState = 'loading';
    let saved: Map<string, PersistedHost>;
    try {
      saved = await readPersistFile(this.path);
    } catch (error) {
      // Nothing is ever written over a file that could not be read.
      this.blocked = error instanceof StoreError ? error : new StoreError(String(error), false, { cause: error });
      throw this.blocked;
    }
    let restored = 0;
    const merged: BareMetalHost[] = [];
    for (const [key, entry] of saved) {
      const host = this.hosts.get(key);
      if (host === undefined) {
        this.pending.set(key, entry);
        continue;
      }
      restored += 1;
      const next = compact({
        ...host,
        metadata: compact({
          ...host.metadata,
          uid: entry.uid ?? host.metadata.uid,
          creationTimestamp: entry.creationTimestamp ?? host.metadata.creationTimestamp,
          resourceVersion: this.nextRevision(),
          finalizers: union(entry.finalizers, host.metadata.finalizers),
          deletionTimestamp: entry.deletionTimestamp ?? host.metadata.deletionTimestamp,
        }),
        status: entry.status ?? host.status,
      }) as BareMetalHost;
      this.hosts.set(key, next);
      merged.push(next);
    }
    this.loadState = 'yes';
    for (const host of merged) this.events.emit({ type: 'upsert', host });
    // Hosts applied before load may carry state the file does not have yet.
    if (this.hosts.size > restored) this.changed();
    else if (this.dirty) this.arm(this.debounceMs);
    return { restored, pending: this.pending.size };
  }

  async flush(): Promise<void> {
    if (this.path === undefined) return;
    if (this.blocked) throw this.blocked;
    if (this.loadState !== 'yes') throw new StoreError(`call load() before flush(): ${this.path} may hold state that must not be overwritten`, false);
    for (;;) {
      this.disarm();
      if (this.inFlight) {
        await this.inFlight;
        continue;
      }
      if (!this.dirty) return;
      const error = await this.startWrite();
      if (error) throw error;
    }
  }

  private changed(): void {
    if (this.path === undefined) return;
    this.dirty = true;
    if (this.loadState === 'yes' && this.timer === null && this.inFlight === null && !this.closed) this.arm(this.debounceMs);
  }

  private arm(ms: number): void {
    if (this.blocked || this.closed) return;
    this.disarm();
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      if (this.inFlight === null && this.dirty) void this.startWrite();
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
  }

  // At most one write in flight; changes made while it runs set dirty and join the next one.
  private startWrite(): Promise<StoreError | null> {
    const path = this.path!;
    this.dirty = false;
    const keys = [...this.hosts.keys(), ...this.pending.keys()];
    const write = writePersistFile(path, keys, (key) => this.persisted(key)).then(
      () => null,
      (cause: unknown) => {
        this.dirty = true;
        const error = new StoreError(`cannot write the store file ${path}: ${(cause as Error).message ?? String(cause)}`, true, { cause });
        this.onPersistError(error);
        return error;
      },
    );
    this.inFlight = write.then((error) => {
      this.inFlight = null;
      // A failed write is retried after a pause, not in a tight loop.
      if (this.dirty) this.arm(error ? Math.max(this.debounceMs, 1000) : this.debounceMs);
      return error;
    });
    return this.inFlight;
  }

  private persisted(key: string): PersistedHost | undefined {
    const host = this.hosts.get(key);
    if (host === undefined) return this.pending.get(key);
    const m = host.metadata;
    return compact({
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
      status: host.status,
      finalizers: m.finalizers,
      deletionTimestamp: m.deletionTimestamp,
    });
  }

  // ---- internals ----

  private nextRevision(): string {
    this.revision += 1;
    return String(this.revision);
  }

  private require(key: string): BareMetalHost {
    const host = this.hosts.get(key);
    if (host === undefined) throw notFound(key);
    return host;
  }

  private replaceMeta(key: string, host: BareMetalHost, patch: Partial<BareMetalHost['metadata']>): void {
    const next: BareMetalHost = {
      ...host,
      metadata: compact({ ...host.metadata, ...patch, resourceVersion: this.nextRevision() }),
    };
    this.hosts.set(key, next);
    if ('finalizers' in patch || 'deletionTimestamp' in patch) this.changed();
    this.events.emit({ type: 'upsert', host: next });
  }

  private remove(key: string): void {
    this.hosts.delete(key);
    this.pending.delete(key);
    this.writes.delete(key);
    this.changed();
    this.events.emit({ type: 'deleted', key });
  }
}

type SecretRef = { key: string; field: string };

function secretRefs(host: BareMetalHost): SecretRef[] {
  const ns = host.metadata.namespace;
  const spec = host.spec;
  const refs: SecretRef[] = [];
  if (spec.bmc?.credentialsName) refs.push({ key: `${ns}/${spec.bmc.credentialsName}`, field: 'spec.bmc.credentialsName' });
  for (const field of ['userData', 'networkData', 'metaData'] as const) {
    const ref = spec[field];
    if (ref) refs.push({ key: `${ref.namespace || ns}/${ref.name}`, field: `spec.${field}` });
  }
  return refs;
}

