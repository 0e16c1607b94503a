// Which Event object an occurrence goes to, as client-go's recorder decides (EventCorrelator's
// eventLogger): the same source, object, type, reason and message seen again within the window
// bumps count and lastTimestamp of the Event already written instead of creating another one.

export interface EventIdentity {
  readonly namespace: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export type EventPlan =
  | { readonly action: 'create'; readonly key: string; readonly name: string; readonly count: 1; readonly firstMs: number }
  | { readonly action: 'patch'; readonly key: string; readonly name: string; readonly count: number; readonly firstMs: number };

interface Seen {
  name: string;
  count: number;
  readonly firstMs: number;
  lastMs: number;
}

export interface EventAggregatorOptions {
  /** How long an identical event keeps counting into the same object. Default 5 minutes. */
  readonly windowMs?: number;
  /** Identities remembered (least recently seen forgotten first); client-go keeps 4096. */
  readonly capacity?: number;
}

export class EventAggregator {
  private readonly seen = new Map<string, Seen>();
  private readonly windowMs: number;
  private readonly capacity: number;
  private sequence = 0;

  constructor(options: EventAggregatorOptions = {}) {
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.capacity = options.capacity ?? 4096;
  }

  plan(event: EventIdentity, nowMs: number): EventPlan {
    const key = identityKey(event);
    const known = this.seen.get(key);
    if (known && nowMs - known.lastMs <= this.windowMs) {
      known.count += 1;
      known.lastMs = nowMs;
      // Map order is recency order: re-insert so the least recent is evicted first.
      this.seen.delete(key);
      this.seen.set(key, known);
      return { action: 'patch', key, name: known.name, count: known.count, firstMs: known.firstMs };
    }
    const name = eventName(event.name, nowMs, this.sequence++);
    this.seen.delete(key);
    this.seen.set(key, { name, count: 1, firstMs: nowMs, lastMs: nowMs });
    while (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
    return { action: 'create', key, name, count: 1, firstMs: nowMs };
  }

  /**
   * The Event `name` behind `key` is gone (expired by the server's TTL): the next occurrence
   * creates anew. An identity already counting into a newer Event keeps it.
   */
  forget(key: string, name: string): void {
    if (this.seen.get(key)?.name === name) this.seen.delete(key);
  }

  get size(): number {
    return this.seen.size;
  }
}

function identityKey(e: EventIdentity): string {
  return JSON.stringify([e.namespace, e.kind, e.name, e.uid, e.type, e.reason, e.message]);
}

// client-go names an event "<object>.<unix nanoseconds in hex>"; a sequence keeps two events of
// one millisecond apart.
function eventName(objectName: string, nowMs: number, sequence: number): string {
  const nanos = BigInt(Math.max(0, Math.floor(nowMs))) * 1_000_000n + BigInt(sequence % 1_000_000);
  return `${objectName}.${nanos.toString(16)}`;
}
