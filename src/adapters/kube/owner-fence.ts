import type { Fence } from '../../ports/index.ts';

// Fencing on the object itself: the owner of a host's shard records its lease on the host as
// "<shard>/<epoch>/<holder>". Epochs are revisions of one KV bucket, so they grow across shards
// too: a higher epoch is always a later lease. A writer older than the recorded owner is refused.
export const OWNER_ANNOTATION = 'metalfleet.io/owner';

export function formatOwner(fence: Fence): string {
  return `${fence.shard}/${fence.epoch}/${fence.holder}`;
}

export function parseOwner(value: string | undefined): Fence | null {
  if (value === undefined) return null;
  const match = /^(\d+)\/(\d+)\/(.+)$/.exec(value);
  if (!match) return null;
  const shard = Number(match[1]);
  const epoch = Number(match[2]);
  if (!Number.isSafeInteger(shard) || !Number.isSafeInteger(epoch)) return null;
  return { shard, epoch, holder: match[3]! };
}

export type FenceVerdict =
  /** The object is ours already (or nobody fences it): write. */
  | { readonly kind: 'write' }
  /** An older owner (or none) is recorded: record ours first, with the object's RV as precondition. */
  | { readonly kind: 'claim'; readonly owner: string }
  /** A newer owner has claimed the object: this writer lost the shard. */
  | { readonly kind: 'stale'; readonly current: number };

/**
 * What a writer holding `fence` may do, given the owner annotation on the object. Without a fence
 * (the embedded node owns everything) nothing is claimed or checked. The same epoch held by
 * another holder cannot come from one lease bucket; it is refused rather than overwritten.
 */
export function judgeFence(fence: Fence | undefined, annotation: string | undefined): FenceVerdict {
  if (fence === undefined) return { kind: 'write' };
  const recorded = parseOwner(annotation);
  if (recorded === null || recorded.epoch < fence.epoch) return { kind: 'claim', owner: formatOwner(fence) };
  if (recorded.epoch > fence.epoch) return { kind: 'stale', current: recorded.epoch };
  if (recorded.holder !== fence.holder) return { kind: 'stale', current: recorded.epoch };
  // Same epoch and holder; a different shard number means a node with another shard count.
  return recorded.shard === fence.shard ? { kind: 'write' } : { kind: 'claim', owner: formatOwner(fence) };
}
