import type { Fence, Logger } from '../../ports/index.ts';
import { judgeFence, ObjectGone, StaleFence, StoreError } from '../../ports/index.ts';
import { backoffMs, CONFLICT_BACKOFF } from './backoff.ts';
import { KubeCallError, storeError } from './errors.ts';
import type { KubeClient } from './kube-client.ts';
import type { JsonObject } from './merge-patch.ts';
import { isPlainObject, mergePatchDiff } from './merge-patch.ts';
import { formatOwner, OWNER_ANNOTATION, parseOwner } from './owner-fence.ts';
import type { RawObject } from './raw-object.ts';
import { removedByUpdate } from './raw-object.ts';
import type { ResourceCache } from './resource-cache.ts';
import type { ResourceInfo } from './resources.ts';
import { splitKey } from './resources.ts';
import type { WriteLanes } from './write-lanes.ts';

/** The object named is not in the API server (deleted, or never created). */
export class ObjectNotFound extends ObjectGone {
  constructor(readonly kind: string, readonly key: string, call: string) {
    super(`${call}: ${kind} ${key} not found (it was deleted or never applied)`);
    this.name = 'ObjectNotFound';
  }
}

/** The object is in a namespace this node does not watch: it is another controller's to write. */
export class NamespaceNotWatched extends StoreError {
  constructor(readonly key: string, readonly watched: string, call: string) {
    super(`${call}: ${key} is outside namespace ${watched}, the only namespace this node watches; a node watching its namespace (or all namespaces) writes it`, false);
    this.name = 'NamespaceNotWatched';
  }
}

export interface ObjectWriterOptions {
  readonly client: KubeClient;
  /**
   * The one namespace the informers watch (BMO's WATCH_NAMESPACE); unset: all. An object
   * elsewhere is never read or written: no watch would tell this node that it changed or went.
   */
  readonly namespace?: string;
  readonly cache: ResourceCache;
  readonly lanes: WriteLanes;
  readonly log: Logger;
  /** Attempts per write when others keep writing the object in between (409). Default 8. */
  readonly maxAttempts?: number;
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface MutateOptions {
  /** Says what the write is, for errors: "adding finalizer x to BareMetalHost ns/h". */
  readonly what: string;
  /**
   * Send the resourceVersion the change was computed from, so a concurrent writer makes this one
   * fail (409) and recompute rather than be overwritten: needed when a whole array (finalizers)
   * is replaced, not for setting single keys.
   */
  readonly precondition: boolean;
  /**
   * The writer's shard lease, as for status: a newer owner recorded on the object refuses the
   * write (StaleFence); an older one (or none) is replaced by ours in the same patch. A fenced
   * write always sends the resourceVersion, so a claim made in between makes it read again.
   */
  readonly fence?: Fence;
}

function sameFence(a: Fence | undefined, b: Fence | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.shard === b.shard && a.epoch === b.epoch && a.holder === b.holder);
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function withResourceVersion(patch: JsonObject, rv: string | undefined): JsonObject {
  const metadata = isPlainObject(patch['metadata']) ? patch['metadata'] : {};
  return { ...patch, metadata: { ...metadata, resourceVersion: rv ?? null } };
}

function withOwner(patch: JsonObject, owner: string): JsonObject {
  const metadata = isPlainObject(patch['metadata']) ? patch['metadata'] : {};
  const annotations = isPlainObject(metadata['annotations']) ? metadata['annotations'] : {};
  return { ...patch, metadata: { ...metadata, annotations: { ...annotations, [OWNER_ANNOTATION]: owner } } };
}

/**
 * Writes to the objects of one resource, one at a time per object (WriteLanes), each starting
 * from the newest version this node has seen, its own previous write's answer included. A 409
 * means someone else wrote in between: read the object again, recompute, try again (bounded).
 */
export class ObjectWriter {
  private readonly maxAttempts: number;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(readonly resource: ResourceInfo, private readonly o: ObjectWriterOptions) {
    this.maxAttempts = o.maxAttempts ?? 8;
    this.random = o.random ?? Math.random;
    this.sleep = o.sleep ?? realSleep;
  }

  /**
   * Makes the stored status equal `desired` with one merge patch of the difference on the status
   * subresource, conditional on the resourceVersion. With a fence, the object must be ours first:
   * an older owner's claim is replaced by ours (RV precondition), a newer one refuses the write.
   * Coalesced: a newer status for the same object replaces one still waiting.
   */
  writeStatus(key: string, desired: JsonObject, fence?: Fence): Promise<void> {
    const outside = this.outside(key, `writing the status of ${this.resource.kind} ${key}`);
    if (outside) return Promise.reject(outside);
    // Only writes under one fence fold: a stale actor's status must not ride on a newer fence.
    return this.o.lanes.coalesce(this.lane(key), { desired, fence }, (newest) => this.statusNow(key, newest.desired, newest.fence), (a, b) => sameFence(a.fence, b.fence));
  }

  /** A read-modify-write of the main resource: `change` returns the merge patch, or null for none. */
  mutate(key: string, change: (current: RawObject) => JsonObject | null, options: MutateOptions): Promise<RawObject> {
    const outside = this.outside(key, options.what);
    if (outside) return Promise.reject(outside);
    return this.o.lanes.run(this.lane(key), () => this.mutateNow(key, change, options));
  }

  /**
   * POST, in turn with the object's other writes: 'exists' when the name is taken (409), as a
   * controller's Create answered AlreadyExists. With a fence the new object records its owner.
   */
  create(key: string, body: JsonObject, fence?: Fence): Promise<'created' | 'exists'> {
    const what = `creating ${this.resource.kind} ${key}`;
    const outside = this.outside(key, what);
    if (outside) return Promise.reject(outside);
    return this.o.lanes.run(this.lane(key), async () => {
      if (this.o.cache.get(key)) return 'exists';
      const { namespace } = splitKey(key);
      try {
        const written = await this.o.client.create(this.resource, namespace, fence ? withOwner(body, formatOwner(fence)) : body, what);
        this.o.cache.written(written);
        return 'created';
      } catch (error) {
        if (error instanceof KubeCallError && error.conflict) return 'exists';
        throw this.failure(key, what, error);
      }
    });
  }

  /** DELETE, in turn with the object's other writes. */
  delete(key: string): Promise<'terminating' | 'deleted'> {
    const what = `deleting ${this.resource.kind} ${key}`;
    const outside = this.outside(key, what);
    if (outside) return Promise.reject(outside);
    return this.o.lanes.run(this.lane(key), async () => {
      const { namespace, name } = splitKey(key);
      try {
        const outcome = await this.o.client.delete(this.resource, namespace, name);
        if (outcome.kind === 'deleted') {
          this.o.cache.removed(key, this.o.cache.get(key)?.metadata.resourceVersion);
          return 'deleted';
        }
        this.o.cache.written(outcome.object);
        return 'terminating';
      } catch (error) {
        throw this.failure(key, what, error);
      }
    });
  }

  private outside(key: string, what: string): NamespaceNotWatched | null {
    const watched = this.o.namespace;
    return watched === undefined || splitKey(key).namespace === watched ? null : new NamespaceNotWatched(key, watched, what);
  }

  // Lanes are per object: kinds share the lane set, not the lanes.
  private lane(key: string): string {
    return `${this.resource.name} ${key}`;
  }

  private async statusNow(key: string, desired: JsonObject, fence: Fence | undefined): Promise<void> {
    const what = `writing the status of ${this.resource.kind} ${key}`;
    const { namespace, name } = splitKey(key);
    let current = this.o.cache.get(key);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      try {
        current ??= await this.read(key, what, 'status');
        const verdict = judgeFence(parseOwner(current.metadata.annotations?.[OWNER_ANNOTATION]) ?? undefined, fence);
        if (verdict.kind === 'stale') throw new StaleFence(key, fence!, verdict.current);
        if (verdict.kind === 'claim') {
          const claim = withResourceVersion({ metadata: { annotations: { [OWNER_ANNOTATION]: formatOwner(verdict.fence) } } }, current.metadata.resourceVersion);
          current = await this.o.client.patch(this.resource, namespace, name, claim, undefined, `claiming ${this.resource.kind} ${key} for shard ${fence!.shard} epoch ${fence!.epoch}`);
          this.o.cache.written(current);
        }
        const stored = isPlainObject(current['status']) ? current['status'] : {};
        const diff = mergePatchDiff(stored, desired);
        if (Object.keys(diff).length === 0) return;
        const body = withResourceVersion({ status: diff }, current.metadata.resourceVersion);
        const written = await this.o.client.patch(this.resource, namespace, name, body, 'status', what);
        this.o.cache.written(written);
        return;
      } catch (error) {
        if (error instanceof KubeCallError && error.conflict) {
          current = undefined;
          await this.sleep(backoffMs(attempt, this.random(), CONFLICT_BACKOFF));
          continue;
        }
        throw this.failure(key, what, error);
      }
    }
    throw this.gaveUp(what);
  }

  private async mutateNow(key: string, change: (current: RawObject) => JsonObject | null, options: MutateOptions): Promise<RawObject> {
    const { namespace, name } = splitKey(key);
    let current = this.o.cache.get(key);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      try {
        current ??= await this.read(key, options.what);
        const verdict = judgeFence(parseOwner(current.metadata.annotations?.[OWNER_ANNOTATION]) ?? undefined, options.fence);
        if (verdict.kind === 'stale') throw new StaleFence(key, options.fence!, verdict.current, options.what);
        const patch = change(current);
        if (patch === null) return current;
        const owned = verdict.kind === 'claim' ? withOwner(patch, formatOwner(verdict.fence)) : patch;
        const body = options.precondition || options.fence !== undefined ? withResourceVersion(owned, current.metadata.resourceVersion) : owned;
        const written = await this.o.client.patch(this.resource, namespace, name, body, undefined, options.what);
        if (removedByUpdate(written)) this.o.cache.removed(key, written.metadata.resourceVersion);
        else this.o.cache.written(written);
        return written;
      } catch (error) {
        if (error instanceof KubeCallError && error.conflict) {
          current = undefined;
          await this.sleep(backoffMs(attempt, this.random(), CONFLICT_BACKOFF));
          continue;
        }
        throw this.failure(key, options.what, error);
      }
    }
    throw this.gaveUp(options.what);
  }

  private async read(key: string, what: string, sub?: 'status'): Promise<RawObject> {
    const { namespace, name } = splitKey(key);
    const fresh = await this.o.client.get(this.resource, namespace, name, sub);
    if (!fresh) throw new ObjectNotFound(this.resource.kind, key, what);
    this.o.cache.written(fresh);
    return fresh;
  }

  private failure(key: string, what: string, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    if (error instanceof KubeCallError && error.notFound) return new ObjectNotFound(this.resource.kind, key, what);
    return storeError(what, error);
  }

  private gaveUp(what: string): StoreError {
    return new StoreError(`${what}: ${this.maxAttempts} attempts all conflicted with other writers (HTTP 409); try again`, true);
  }
}
