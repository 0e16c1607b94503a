import type { Fence } from './fence.ts';
import { StaleOwner } from './owner-record.ts';
import { StaleFence } from './store-error.ts';

/**
 * A fenced write or backend call refused because the record it touched has seen a later tenure of
 * the shard (issue 30): the store's StaleFence or a backend owner record's StaleOwner, as one
 * value. `fence` is the refused caller's; `current` the epoch the record holds, which it lost to.
 * The shard's owner gives the shard up when its own tenure is refused, and takes it again above
 * `current`.
 */
export interface FenceRefusal {
  readonly fence: Fence;
  readonly current: number;
  /** Who refused: the resource store, or a backend's owner record (Ironic, MAAS, the fixture). */
  readonly by: 'store' | 'backend';
}

/** The refusal a StaleFence or StaleOwner stands for; null for any other error. */
export function fenceRefusalOf(error: unknown): FenceRefusal | null {
  if (error instanceof StaleFence) return { fence: error.fence, current: error.current, by: 'store' };
  if (error instanceof StaleOwner) return { fence: error.fence, current: error.recorded.epoch, by: 'backend' };
  return null;
}

/** Tells `host.onFenceRefused` of `error` when it is a refusal; returns `error`, to be rethrown. */
export function tellFenceRefused(host: { readonly onFenceRefused?: (refusal: FenceRefusal) => void }, error: unknown): unknown {
  const refusal = host.onFenceRefused ? fenceRefusalOf(error) : null;
  if (refusal) {
    try {
      host.onFenceRefused!(refusal);
    } catch {
      // A listener's failure must not turn the refusal into another error.
    }
  }
  return error;
}
