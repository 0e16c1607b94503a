import type { BareMetalHost, BareMetalHostStatus, ProvisioningState } from '../../api/index.ts';
import type { BmhEvent, Operation, SlotState } from '../../machines/bmh/index.ts';
import type { MachineMsg } from '../machine/index.ts';

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

/** The host changed in its store: the message carries it, so the first step needs no read. */
export interface HostObserved {
  readonly type: 'observed';
  readonly host: BareMetalHost;
}

/** One of the host's companions changed (its settings, updates or policy): it reads them again. */
export interface HostCompanionsChanged {
  readonly type: 'companionsChanged';
}

export const COMPANIONS_CHANGED: HostCompanionsChanged = Object.freeze({ type: 'companionsChanged' });

/** What wakes a host actor from outside: its own object, or its companions. */
export type HostWake = HostObserved | HostCompanionsChanged;

/**
 * A host actor's mailbox, the generic machine actor's: `observed` and `tick` wake it, answers of
 * its calls and slot notices come back, `snapshot` and `drain` (hand-off: finish the call in
 * flight and its status write, start nothing new, then reply) are answered by the actor.
 */
export type HostMsg = MachineMsg<HostWake, BmhEvent, HostSnapshot | null>;
