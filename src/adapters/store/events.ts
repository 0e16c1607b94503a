import type { ResourceEvent, ResourceKind, ResourceWatchOptions } from '../../ports/index.ts';
import type { HostEvent } from './host-records.ts';

export type HostListener = (event: HostEvent) => void;

/**
 * The delivery both event kinds share: synchronous and in order. An event raised while one is
 * being delivered is queued behind it; a listener that throws is reported and the others still
 * get the event.
 */
class OrderedDelivery<E> {
  readonly listeners = new Set<(event: E) => void>();
  private readonly queue: E[] = [];
  private delivering = false;

  constructor(private readonly onListenerError: (error: unknown, event: E) => void) {}

  emit(event: E): void {
    if (this.listeners.size === 0) return;
    this.queue.push(event);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let i = 0; i < this.queue.length; i++) {
        const next = this.queue[i]!;
        // A snapshot: listeners added or removed while delivering take effect with the next event.
        for (const listener of [...this.listeners]) {
          try {
            listener(next);
          } catch (error) {
            this.onListenerError(error, next);
          }
        }
      }
    } finally {
      this.queue.length = 0;
      this.delivering = false;
    }
  }
}

/**
 * Delivers host events synchronously, in order, before the call that caused them returns. An
 * event raised by a listener (say it adds a finalizer on upsert) is queued and delivered once the
 * current event has reached every listener, so no listener ever sees events out of order. A
 * listener that throws is reported and the others still get the event.
 */
export class HostEvents {
  private readonly delivery: OrderedDelivery<HostEvent>;
  private readonly listeners: Set<HostListener>;
  // Listeners that take every key; the others each have a key filter.
  private everything = 0;
  private readonly filters = new Map<HostListener, (key: string) => boolean>();

  constructor(onListenerError: (error: unknown, event: HostEvent) => void) {
    this.delivery = new OrderedDelivery(onListenerError);
    this.listeners = this.delivery.listeners;
  }

  get size(): number {
    return this.listeners.size;
  }

  subscribe(listener: HostListener, keys?: (key: string) => boolean): () => void {
    // Wrapped so one function subscribed twice gets two subscriptions, as two callers expect.
    const entry: HostListener = keys
      ? (event) => {
        if (keys(event.type === 'upsert' ? `${event.host.metadata.namespace}/${event.host.metadata.name}` : event.key)) listener(event);
      }
      : (event) => listener(event);
    this.listeners.add(entry);
    if (keys) this.filters.set(entry, keys);
    else this.everything += 1;
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.listeners.delete(entry);
      if (keys) this.filters.delete(entry);
      else this.everything -= 1;
    };
  }

  /** Whether any listener would take an event for this key (so it is worth building). */
  wants(key: string): boolean {
    if (this.everything > 0) return true;
    for (const keys of this.filters.values()) if (keys(key)) return true;
    return false;
  }

  emit(event: HostEvent): void {
    this.delivery.emit(event);
  }
}

type ResourceListener = (event: ResourceEvent) => void;

/**
 * HostEvents for every kind: the same ordered, synchronous delivery, each listener filtered by
 * the kinds and keys it asked for (ResourceWatchOptions). The Kubernetes store and the KV object
 * records deliver through it.
 */
export class ResourceEvents {
  private readonly delivery: OrderedDelivery<ResourceEvent>;
  private readonly listeners: Set<ResourceListener>;
  private readonly filters = new Map<ResourceListener, { readonly kinds: ReadonlySet<ResourceKind> | null; readonly keys: ((key: string) => boolean) | undefined }>();

  constructor(onListenerError: (error: unknown, event: ResourceEvent) => void) {
    this.delivery = new OrderedDelivery(onListenerError);
    this.listeners = this.delivery.listeners;
  }

  subscribe<K extends ResourceKind>(listener: (event: ResourceEvent<K>) => void, options: ResourceWatchOptions<K> = {}): () => void {
    const kinds = options.kinds ? new Set<ResourceKind>(options.kinds) : null;
    const keys = options.keys;
    // Wrapped so one function subscribed twice gets two subscriptions, as two callers expect.
    const entry: ResourceListener = (event) => {
      if (kinds && !kinds.has(event.kind)) return;
      if (keys && !keys(event.key)) return;
      listener(event as ResourceEvent<K>);
    };
    this.listeners.add(entry);
    this.filters.set(entry, { kinds, keys });
    return () => {
      this.listeners.delete(entry);
      this.filters.delete(entry);
    };
  }

  /** Whether any listener would take an event for this object (so its record is worth parsing). */
  wants(kind: ResourceKind, key: string): boolean {
    for (const { kinds, keys } of this.filters.values()) {
      if ((!kinds || kinds.has(kind)) && (!keys || keys(key))) return true;
    }
    return false;
  }

  clear(): void {
    this.listeners.clear();
    this.filters.clear();
  }

  emit(event: ResourceEvent): void {
    this.delivery.emit(event);
  }
}
