import { StaleFence } from './store-error.ts';

/**
 * Who may write an object (its status, finalizers and the annotations the controller removes):
 * the owner of its shard, at the lease's epoch. Epochs are revisions of one lease bucket, so they
 * grow across shards too: a higher epoch is always a later lease. Writes without a fence (a single
 * owner: the embedded node, tests, user intent) are not checked.
 */
export interface Fence {
  readonly shard: number;
  readonly epoch: number;
  readonly holder: string;
}

export type FenceVerdict =
  /** The object records this very fence (or the write has none): write as it is. */
  | { readonly kind: 'write' }
  /** No owner, or an older one, is recorded: the write records `fence` with it. */
  | { readonly kind: 'claim'; readonly fence: Fence }
  /** A newer owner has written the object: this writer lost the shard. */
  | { readonly kind: 'stale'; readonly current: number };

/**
 * The one fence rule every store applies (KV and Kubernetes, every kind): `recorded` is the
 * highest fence that has written the object (undefined: none has), `fence` the write's. An older
 * epoch is refused; the same epoch held by another holder cannot come from one lease bucket and
 * is refused rather than overwritten; the same epoch and holder under another shard number (a
 * node with another shard count) is claimed again.
 */
export function judgeFence(recorded: Fence | undefined, fence: Fence | undefined): FenceVerdict {
  if (fence === undefined) return { kind: 'write' };
  if (recorded === undefined || recorded.epoch < fence.epoch) return { kind: 'claim', fence: plainFence(fence) };
  if (recorded.epoch > fence.epoch || recorded.holder !== fence.holder) return { kind: 'stale', current: recorded.epoch };
  return recorded.shard === fence.shard ? { kind: 'write' } : { kind: 'claim', fence: plainFence(fence) };
}

/** Of two recorded fences (say a host's spec and status records), the later one. */
export function laterFence(a: Fence | undefined, b: Fence | undefined): Fence | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.epoch > a.epoch ? b : a;
}

/** Exactly the three fields, whatever object carried them: what a store records. */
function plainFence(fence: Fence): Fence {
  return { epoch: fence.epoch, shard: fence.shard, holder: fence.holder };
}

/** Options every store that keeps fences takes: told of each refusal as it happens. */
export interface FenceOptions {
  readonly onStaleFence?: (refusal: StaleFence) => void;
}

/** Counts StaleFence refusals of one store and tells its onStaleFence; a listener that throws is ignored. */
export class FenceRefusals {
  private count = 0;

  constructor(private readonly listener?: (refusal: StaleFence) => void) {}

  /** Counts `refusal` and returns it, for `throw refusals.refused(new StaleFence(...))`. */
  refused(refusal: StaleFence): StaleFence {
    this.count += 1;
    try {
      this.listener?.(refusal);
    } catch {
      // A metrics hook must not turn a refusal into another error.
    }
    return refusal;
  }

  /** Counts `error` if it is a StaleFence; returns it either way, to be rethrown. */
  seen(error: unknown): unknown {
    return error instanceof StaleFence ? this.refused(error) : error;
  }

  get total(): number {
    return this.count;
  }
}
