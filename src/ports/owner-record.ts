import { z } from 'zod';
import type { Fence } from './fence.ts';
import { MetalfleetError } from '../api/index.ts';

// The shard lease a backend record says drives it (issue 19.2). Backends without compare-and-set
// (Ironic's node `extra`, MAAS owner data) keep it; the owner of a host writes its own lease there
// when it takes the host, and every owner compares before acting: a later epoch of the same shard
// means the host has moved on and this owner is stale.

/** The key under which backends keep the record (Ironic `extra`, MAAS owner data). */
export const OWNER_RECORD_KEY = 'metalfleet_owner';

export const OwnerRecord = z.object({ holder: z.string(), shard: z.number().int().nonnegative(), epoch: z.number().int().nonnegative() });
export type OwnerRecord = z.infer<typeof OwnerRecord>;

/** A record from a backend value (an object, or JSON text where only strings are kept); null if none. */
export function ownerRecordOf(value: unknown): OwnerRecord | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  const parsed = OwnerRecord.safeParse(v);
  return parsed.success ? parsed.data : null;
}

export const ownerRecordFor = (fence: Fence): OwnerRecord => ({ holder: fence.holder, shard: fence.shard, epoch: fence.epoch });

/**
 * How `recorded` stands to the caller's `fence`: 'newer' (another owner took the host since: do
 * not act), 'same' (ours, recorded), 'record' (none, or older: ours should be written).
 */
export function compareOwner(recorded: OwnerRecord | null, fence: Fence): 'newer' | 'same' | 'record' {
  if (recorded && recorded.shard === fence.shard && recorded.epoch > fence.epoch) return 'newer';
  if (recorded && recorded.shard === fence.shard && recorded.epoch === fence.epoch && recorded.holder === fence.holder) return 'same';
  return 'record';
}

/** Why a stale owner does not act: transient for the host, whose actor stops once its lease is known lost. */
export class StaleOwner extends MetalfleetError {
  /** `recorded` is the owner the backend keeps, whose epoch `fence` lost to (issue 30: the retake claims above it). */
  constructor(what: string, readonly recorded: OwnerRecord, readonly fence: Fence) {
    super('staleOwner', `${what} is driven by ${recorded.holder} (lease epoch ${recorded.epoch} of shard ${recorded.shard}); this node's lease (epoch ${fence.epoch}) is older, so it does not act`, true);
    this.name = 'StaleOwner';
  }
}
