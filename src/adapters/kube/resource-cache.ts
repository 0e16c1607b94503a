import type { Logger } from '../../ports/index.ts';
import type { ChangeKind } from './change-kind.ts';
import { classifyChange } from './change-kind.ts';
import type { RawObject } from './raw-object.ts';
import { parseRaw, rawKey, rvNewer } from './raw-object.ts';
import type { ResourceInfo } from './resources.ts';
import { errorMessage } from '../../api/index.ts';

export type CacheChange =
  | { readonly type: 'upsert'; readonly key: string; readonly prev: RawObject | undefined; readonly next: RawObject; readonly change: ChangeKind }
  | { readonly type: 'deleted'; readonly key: string; readonly prev: RawObject };

// Tombstones of objects we saw deleted before the watch said so; bounded so they cannot pile up.
const MAX_TOMBSTONES = 10_000;

/**
 * The adapter's view of one resource: what the informer delivered, overlaid with what our own
 * writes returned (a write's response is newer than the watch until the watch catches up), so a
 * write right after another starts from the resourceVersion the first one produced. Every change
 * is announced once, whichever of the two brought it: listeners never see an older version after
 * a newer one of the same object.
 */
export class ResourceCache {
  private readonly objects = new Map<string, RawObject>();
  private readonly tombstones = new Map<string, string | undefined>();
  private readonly listeners = new Set<(change: CacheChange) => void>();

  constructor(readonly resource: ResourceInfo, private readonly log: Logger) {}

  subscribe(listener: (change: CacheChange) => void): () => void {
    const entry = (change: CacheChange): void => listener(change);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  get(key: string): RawObject | undefined {
    return this.objects.get(key);
  }

  values(): IterableIterator<RawObject> {
    return this.objects.values();
  }

  get size(): number {
    return this.objects.size;
  }

  /** An informer callback. Returns false when the object is not even an object with a name. */
  observe(verb: 'add' | 'update' | 'delete', value: unknown): boolean {
    const parsed = parseRaw(value);
    if (!parsed.ok) {
      this.log.warn({ resource: this.resource.plural, problems: parsed.problems }, 'ignoring a watch event that is not an object with a name');
      return false;
    }
    if (verb === 'delete') {
      if (!this.earlierIncarnation(parsed.value)) this.deleted(rawKey(parsed.value), undefined, true);
    } else this.put(parsed.value);
    return true;
  }

  // A DELETED carries the last state of what was deleted (reference/kube-api.md §3). Another uid
  // with an older revision than ours is the object that had this name before: our write created
  // it again before the watch told us the old one went, and the new one is still there.
  private earlierIncarnation(gone: RawObject): boolean {
    const cached = this.objects.get(rawKey(gone));
    if (!cached?.metadata.uid || !gone.metadata.uid || cached.metadata.uid === gone.metadata.uid) return false;
    return rvNewer(cached.metadata.resourceVersion, gone.metadata.resourceVersion) === true;
  }

  /**
   * A list (the first, or again after 410) holds `keys` as of `resourceVersion`. The informer
   * reports as deleted only what it saw itself; an object we know from our own write or read
   * that the list does not hold was deleted by then, unless our version is newer than the list.
   */
  listed(keys: readonly string[], resourceVersion: string | undefined): void {
    if (resourceVersion === undefined) return;
    const present = new Set(keys);
    for (const [key, raw] of [...this.objects]) {
      if (present.has(key)) continue;
      const rv = raw.metadata.resourceVersion;
      if (rv === resourceVersion || rvNewer(rv, resourceVersion) === false) this.deleted(key, undefined, true);
    }
  }

  /** The object a write of ours returned. */
  written(raw: RawObject): void {
    this.put(raw);
  }

  /**
   * Our write removed the object (its last finalizer, or a delete without finalizers). Watch
   * events up to `rv` that are still on their way are older than this and are ignored.
   */
  removed(key: string, rv: string | undefined): void {
    this.deleted(key, rv, false);
  }

  private put(raw: RawObject): void {
    const key = rawKey(raw);
    const rv = raw.metadata.resourceVersion;
    if (this.tombstones.has(key)) {
      if (rvNewer(rv, this.tombstones.get(key)) !== true) return;
      this.tombstones.delete(key);
    }
    const prev = this.objects.get(key);
    if (prev) {
      const prevRv = prev.metadata.resourceVersion;
      if (rv !== undefined && rv === prevRv) return;
      if (rvNewer(rv, prevRv) === false) return;
    }
    this.objects.set(key, raw);
    this.emit({ type: 'upsert', key, prev, next: raw, change: classifyChange(prev, raw) });
  }

  private deleted(key: string, rv: string | undefined, fromWatch: boolean): void {
    if (fromWatch) this.tombstones.delete(key);
    else {
      this.tombstones.set(key, rv);
      if (this.tombstones.size > MAX_TOMBSTONES) {
        const oldest = this.tombstones.keys().next().value;
        if (oldest !== undefined) this.tombstones.delete(oldest);
      }
    }
    const prev = this.objects.get(key);
    if (!prev) return;
    this.objects.delete(key);
    this.emit({ type: 'deleted', key, prev });
  }

  private emit(change: CacheChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.log.warn({ resource: this.resource.plural, key: change.key, err: errorMessage(error) }, 'a cache listener threw; the others still got the change');
      }
    }
  }
}
