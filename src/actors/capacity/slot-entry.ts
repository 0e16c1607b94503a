import type { ExpiryLinks } from './expiry-list.ts';
import type { QueueLinks, WaiterQueue } from './waiter-queue.ts';

/** Internal per-pool bookkeeping a pool keeps for each of its holders. */
export interface PoolState<T> {
  readonly name: string;
  limit: number;
  /** Non-exempt grants: the only ones that count against `limit`. */
  inUse: number;
  exemptInUse: number;
  /** holder → its one entry in this pool, waiting or granted. */
  readonly entries: Map<string, SlotEntry<T>>;
  readonly queue: WaiterQueue<SlotEntry<T>>;
}

/**
 * One holder's request in one pool. The same object is first a waiter and then, unchanged in
 * identity, a grant: a hand-off only flips fields and relinks, so the hot path allocates nothing
 * but the snapshot it hands back.
 */
export class SlotEntry<T> implements QueueLinks<SlotEntry<T>>, ExpiryLinks<SlotEntry<T>> {
  state: 'waiting' | 'granted' = 'waiting';
  grantId = '';
  grantedAt = Number.NaN;
  expiresAt = Number.NaN;
  qPrev: SlotEntry<T> | undefined = undefined;
  qNext: SlotEntry<T> | undefined = undefined;
  ePrev: SlotEntry<T> | undefined = undefined;
  eNext: SlotEntry<T> | undefined = undefined;

  constructor(
    readonly holder: string,
    readonly pool: PoolState<T>,
    public operation: string,
    public exempt: boolean,
    readonly requestedAt: number,
    public tag: T | undefined,
  ) {}
}
