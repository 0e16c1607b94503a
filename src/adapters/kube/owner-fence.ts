import type { Fence } from '../../ports/index.ts';

// Fencing on the object itself: the owner of a host's shard records its lease on the host as
// "<shard>/<epoch>/<holder>". Epochs are revisions of one KV bucket, so they grow across shards
// too: a higher epoch is always a later lease. Whether a writer may write is the one fence rule
// (ports/fence.ts judgeFence) applied to the owner parsed from the annotation.
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
