import type { BareMetalHost, BareMetalHostStatus } from '../../api/index.ts';
import { BMH_API_VERSION, BMH_KIND } from '../../api/index.ts';
import type { Secret } from '../../api/secret.ts';
import type { Fence, FenceOptions, HostEvent, HostIntent, HostStore, Logger } from '../../ports/index.ts';
import { FenceRefusals, StoreError } from '../../ports/index.ts';
import { HostEvents } from '../store/events.ts';
import type { EventRecorder } from './event-recorder.ts';
import { jsonEqual } from './merge-patch.ts';
import type { JsonObject } from './merge-patch.ts';
import type { ObjectWriter } from './object-writer.ts';
import { parseHost } from './parse-host.ts';
import { parseSecret } from './parse-secret.ts';
import type { RawObject } from './raw-object.ts';
import type { CacheChange, ResourceCache } from './resource-cache.ts';
import { hostsNamingSecret } from './secret-refs.ts';

export interface KubeHostStoreOptions extends FenceOptions {
  readonly hosts: ResourceCache;
  readonly secrets: ResourceCache;
  readonly writer: ObjectWriter;
  readonly events: EventRecorder;
  readonly log: Logger;
}

/**
 * BareMetalHosts in Kubernetes. Reads come from the informer cache (ResourceCache); writes are
 * merge patches: status on the status subresource (the difference, conditional on the RV,
 * fenced), finalizers read-modify-write with the RV, single annotations and intent as keys. The
 * controller's writes (status, finalizers, removing an annotation) carry the shard fence: the
 * host records its owner (metalfleet.io/owner) and an older epoch is refused (StaleFence) and
 * counted. User intent (commands) is never fenced.
 *
 * Watch delivers what a controller reacts to: a new host, a spec or metadata change, a deletion,
 * and, when a Secret a host names appears or changes, that host again unchanged (what a
 * registration error waits for). Status-only updates are our own writes and are not delivered.
 */
export class KubeHostStore implements HostStore {
  private readonly hosts = new Map<string, BareMetalHost>();
  private readonly listeners: HostEvents;
  private readonly unsubscribe: Array<() => void>;
  // One warning per version of a broken object, not one per resync.
  private readonly warned = new Map<string, string | undefined>();
  private readonly refusals: FenceRefusals;

  constructor(private readonly o: KubeHostStoreOptions) {
    this.refusals = new FenceRefusals(o.onStaleFence);
    this.listeners = new HostEvents((error, event) => {
      const key = event.type === 'deleted' ? event.key : `${event.host.metadata.namespace}/${event.host.metadata.name}`;
      o.log.warn({ host: key, event: event.type, err: error instanceof Error ? error.name : typeof error }, 'a host store watch listener threw; other listeners still got the event');
    });
    for (const raw of o.hosts.values()) this.onHost({ type: 'upsert', key: keyOf(raw), prev: undefined, next: raw, change: 'spec' });
    this.unsubscribe = [o.hosts.subscribe((c) => this.onHost(c)), o.secrets.subscribe((c) => this.onSecret(c))];
  }

  // ---- the cache ----

  private onHost(change: CacheChange): void {
    if (change.type === 'deleted') {
      this.warned.delete(change.key);
      if (this.hosts.delete(change.key)) this.listeners.emit({ type: 'deleted', key: change.key });
      return;
    }
    const parsed = parseHost(change.next);
    if (!parsed.ok) {
      const rv = change.next.metadata.resourceVersion;
      if (!this.warned.has(change.key) || this.warned.get(change.key) !== rv) {
        this.warned.set(change.key, rv);
        this.o.log.warn({ host: change.key, resourceVersion: rv, problems: parsed.problems }, 'skipping a BareMetalHost that does not parse (the last valid version, if any, stays in use)');
      }
      return;
    }
    this.warned.delete(change.key);
    const known = this.hosts.has(change.key);
    this.hosts.set(change.key, parsed.value);
    // A host that failed to parse before is new to the controllers now.
    if (change.change === 'spec' || !known) this.listeners.emit({ type: 'upsert', host: parsed.value });
  }

  private onSecret(change: CacheChange): void {
    if (change.type === 'deleted') return;
    const before = change.prev as (RawObject & { data?: unknown; type?: unknown }) | undefined;
    const after = change.next as RawObject & { data?: unknown; type?: unknown };
    if (before && jsonEqual(before.data, after.data) && jsonEqual(before.type, after.type)) return;
    for (const host of hostsNamingSecret(this.hosts.values(), change.key)) this.listeners.emit({ type: 'upsert', host });
  }

  // ---- HostStore ----

  async list(): Promise<BareMetalHost[]> {
    return [...this.hosts.values()];
  }

  async get(key: string): Promise<BareMetalHost | undefined> {
    return this.hosts.get(key);
  }

  watch(listener: (event: HostEvent) => void): () => void {
    return this.listeners.subscribe(listener);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    const raw = this.o.secrets.get(`${namespace}/${name}`);
    if (!raw) return undefined;
    const parsed = parseSecret(raw);
    if (parsed.ok) return parsed.value;
    // Field names only: the problems never carry a value.
    this.o.log.warn({ secret: `${namespace}/${name}`, problems: parsed.problems }, 'a Secret a host names does not parse; treated as missing');
    return undefined;
  }

  writeStatus(key: string, status: BareMetalHostStatus, fence?: Fence): Promise<void> {
    return this.counted(this.o.writer.writeStatus(key, status as unknown as JsonObject, fence));
  }

  staleFenceRefusals(): number {
    return this.refusals.total;
  }

  async addFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.counted(this.o.writer.mutate(key, (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return null;
      // The API server refuses it too (422); say so without a request.
      if (current.metadata.deletionTimestamp) throw new StoreError(`adding finalizer ${finalizer} to BareMetalHost ${key}: the host is being deleted and takes no new finalizers`, false);
      return { metadata: { finalizers: [...finalizers, finalizer] } };
    }, { what: `adding finalizer ${finalizer} to BareMetalHost ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
  }

  async removeFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.counted(this.o.writer.mutate(key, (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return null;
      const rest = finalizers.filter((f) => f !== finalizer);
      return { metadata: { finalizers: rest.length > 0 ? rest : null } };
    }, { what: `removing finalizer ${finalizer} from BareMetalHost ${key}`, precondition: true, ...(fence ? { fence } : {}) }));
  }

  async removeAnnotation(key: string, annotation: string, fence?: Fence): Promise<void> {
    await this.counted(this.o.writer.mutate(key, (current) => {
      const annotations = current.metadata.annotations;
      if (!annotations || !(annotation in annotations)) return null;
      return { metadata: { annotations: { [annotation]: null } } };
    }, { what: `removing annotation ${annotation} from BareMetalHost ${key}`, precondition: false, ...(fence ? { fence } : {}) }));
  }

  // A StaleFence from any write is counted (and told to onStaleFence) before the caller sees it.
  private counted<T>(write: Promise<T>): Promise<T> {
    return write.catch((error: unknown) => {
      throw this.refusals.seen(error);
    });
  }

  async applyIntent(key: string, intent: HostIntent): Promise<BareMetalHost> {
    const what = `recording intent on BareMetalHost ${key}`;
    const written = await this.o.writer.mutate(key, () => {
      const patch: JsonObject = {};
      if (intent.annotations && Object.keys(intent.annotations).length > 0) patch['metadata'] = { annotations: { ...intent.annotations } };
      if (intent.online !== undefined) patch['spec'] = { online: intent.online };
      return Object.keys(patch).length > 0 ? patch : null;
    }, { what, precondition: false });
    const parsed = parseHost(written);
    if (!parsed.ok) throw new StoreError(`${what}: the stored host does not parse (${parsed.problems.join('; ')})`, false);
    return parsed.value;
  }

  requestDelete(key: string): Promise<'terminating' | 'deleted'> {
    return this.o.writer.delete(key);
  }

  async recordEvent(key: string, severity: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const raw = this.o.hosts.get(key);
    const slash = key.indexOf('/');
    await this.o.events.record({
      apiVersion: BMH_API_VERSION,
      kind: BMH_KIND,
      namespace: raw?.metadata.namespace ?? key.slice(0, slash),
      name: raw?.metadata.name ?? key.slice(slash + 1),
      ...(raw?.metadata.uid ? { uid: raw.metadata.uid } : {}),
      ...(raw?.metadata.resourceVersion ? { resourceVersion: raw.metadata.resourceVersion } : {}),
    }, severity, reason, message);
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
  }
}

function keyOf(raw: RawObject): string {
  return `${raw.metadata.namespace ?? ''}/${raw.metadata.name}`;
}
