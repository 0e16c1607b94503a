import type { BareMetalHostStatus, ProvisioningState } from '../../api/index.ts';
import type { BmhEvent, Operation, SlotState } from '../../machines/bmh/index.ts';
import type { Reply } from '../runtime/index.ts';

export interface Transition {
  readonly at: number;
  readonly severity: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface HostSnapshot {
  readonly key: string;
  readonly state: ProvisioningState;
  readonly status: BareMetalHostStatus;
  readonly inFlight: Operation | null;
  readonly slot: SlotState;
  readonly retryAt: number | null;
  readonly stateSince: number;
  readonly recent: readonly Transition[];
}

export type HostMsg =
  | BmhEvent
  | { type: 'renewSlot' }
  | { type: 'snapshot'; reply: Reply<HostSnapshot | null> }
  // Hand-off: finish the call in flight and its status write, start nothing new, then reply.
  | { type: 'drain'; reply: Reply<void> };
