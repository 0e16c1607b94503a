// The object store: one resourceVersion counter for every write of every kind (the etcd
// revision), a bounded history of write events for watches and exact lists, and listeners that
// see each write synchronously, so a watch never misses or reorders one.
import { clone, metaOf } from './types.ts';
import type { Obj } from './types.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly rv: number;
  readonly type: EventType;
  /** The resource's store key (`plural.group`). */
  readonly resource: string;
  /** `namespace/name`, or `name` when cluster-scoped. */
  readonly key: string;
  /** The object after the write; for DELETED the last stored object with the delete's RV. */
  readonly object: Obj;
  /** The object before the write (MODIFIED, DELETED). */
  readonly prev: Obj | undefined;
}

export type Expired = { readonly expired: true; readonly oldest: number };

export class Store {
  private rv: number;
  private readonly objects = new Map<string, Map<string, Obj>>();
  private history: StoreEvent[] = [];
  /** Every event with an RV above this is in `history`. */
  private compactedThrough: number;
  private readonly listeners = new Set<(e: StoreEvent) => void>();

  /**
   * @param strictNamespaces writes into a namespace that is not stored are refused (the
   *   NamespaceLifecycle admission plugin); off, any namespace takes objects.
   * @param fieldManagement writes keep metadata.managedFields and apply patches can conflict.
   * @param startRv the revision before the first write: what a real apiserver's own start-up
   *   writes left etcd at. Their events are not kept, so a watch from an RV below it gets 410.
   */
  constructor(private readonly historyLimit: number, readonly strictNamespaces = false, readonly fieldManagement = false, startRv = 0) {
    this.rv = startRv;
    this.compactedThrough = startRv;
  }

  currentRv(): number {
    return this.rv;
  }

  /** The stored object itself: callers clone before handing it out or changing it. */
  peek(resource: string, key: string): Obj | undefined {
    return this.objects.get(resource)?.get(key);
  }

  /** Stored objects of a resource in etcd key order. */
  list(resource: string): Obj[] {
    const m = this.objects.get(resource);
    if (!m) return [];
    return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  }

  create(resource: string, key: string, obj: Obj): Obj {
    return this.write('ADDED', resource, key, obj, undefined);
  }

  update(resource: string, key: string, obj: Obj): Obj {
    return this.write('MODIFIED', resource, key, obj, this.peek(resource, key));
  }

  /** Removes the object; the DELETED event carries its last state with the delete's RV. */
  remove(resource: string, key: string): Obj {
    const last = this.peek(resource, key);
    if (!last) throw new Error(`store: ${resource} ${key} is not stored`);
    this.objects.get(resource)?.delete(key);
    const gone = clone(last);
    return this.record('DELETED', resource, key, gone, last);
  }

  private write(type: EventType, resource: string, key: string, obj: Obj, prev: Obj | undefined): Obj {
    const stored = clone(obj);
    let m = this.objects.get(resource);
    if (!m) this.objects.set(resource, (m = new Map()));
    m.set(key, stored);
    // record() sets the RV on `stored` itself, so listeners already read the new state.
    return this.record(type, resource, key, stored, prev);
  }

  private record(type: EventType, resource: string, key: string, obj: Obj, prev: Obj | undefined): Obj {
    this.rv++;
    metaOf(obj).resourceVersion = String(this.rv);
    const event: StoreEvent = { rv: this.rv, type, resource, key, object: clone(obj), prev };
    this.history.push(event);
    while (this.history.length > this.historyLimit) this.compactedThrough = (this.history.shift() as StoreEvent).rv;
    for (const listener of [...this.listeners]) listener(event);
    return clone(obj);
  }

  /** Events after `rv`, or Expired when some of them are no longer kept. */
  eventsSince(rv: number): readonly StoreEvent[] | Expired {
    if (rv < this.compactedThrough) return { expired: true, oldest: this.compactedThrough };
    return this.history.filter((e) => e.rv > rv);
  }

  /** The resource's objects as they were at `rv` (rebuilt from the history), in key order. */
  snapshotAt(resource: string, rv: number): Obj[] | Expired {
    const later = this.eventsSince(rv);
    if ('expired' in later) return later;
    const state = new Map((this.objects.get(resource) ?? new Map<string, Obj>()).entries());
    for (const e of [...later].reverse()) {
      if (e.resource !== resource) continue;
      if (e.prev) state.set(e.key, e.prev);
      else state.delete(e.key);
    }
    return [...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  }

  /** Forget all history: any watch or exact list from an RV before now gets 410. */
  expireHistory(): void {
    this.history = [];
    this.compactedThrough = this.rv;
  }

  subscribe(listener: (e: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves true once the RV reaches `rv`, false after `timeoutMs`. */
  waitForRv(rv: number, timeoutMs: number): Promise<boolean> {
    if (this.rv >= rv) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(false);
      }, timeoutMs);
      timer.unref();
      const off = this.subscribe(() => {
        if (this.rv < rv) return;
        clearTimeout(timer);
        off();
        resolve(true);
      });
    });
  }
}
