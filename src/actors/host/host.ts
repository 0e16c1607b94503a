import type { BareMetalHostStatus } from '../../api/index.ts';
import type { BmhEffect, BmhEvent, BmhState, MachineConfig, SecretChange, SlotOperation } from '../../machines/bmh/index.ts';
import type { Fence, Logger, Provisioner, ResourceStore } from '../../ports/index.ts';
import type { BackendCalls } from '../calls/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import type { ChangeSink, MachineBehavior } from '../machine/index.ts';
import { machineBehavior } from '../machine/index.ts';
import type { ActorRef, Clock } from '../runtime/index.ts';
import { hostKind } from './host-kind.ts';
import type { HostSnapshot, HostWake } from './messages.ts';

/**
 * What only a BareMetalHost reports beside the node's change stream: the status itself and its
 * Warning events, which BMO's metal3_* counters are read off (operation durations, error counts,
 * power, credentials). State changes and a host's end come through the stream, as every kind's.
 */
export interface HostStatusObserver {
  /** The status the actor read the host with (its first look, after a restart, as a new owner). */
  statusRead(key: string, status: BareMetalHostStatus): void;
  /**
   * `waitingFor`: the operation whose capacity slot the host waits for, while it waits. A delayed
   * host may still be in the state before it (a deleted provisioned host waits to deprovision), so
   * only this says what it is kept from (BMO's metal3_delayed__(de)provisioning_total).
   */
  statusChanged(key: string, status: BareMetalHostStatus, waitingFor?: SlotOperation): void;
  warning(key: string, reason: string, message: string): void;
}

/** Changes of one Secret at a time: how a host waiting for a Secret learns that it appeared. */
export interface SecretWatch {
  /** Calls `listener` on each change of the Secret `key` (`namespace/name`) until unsubscribed. */
  subscribe(key: string, listener: (change: SecretChange) => void): () => void;
}

export interface HostDeps {
  readonly store: ResourceStore;
  readonly provisioner: Provisioner;
  readonly broker: ActorRef<CapacityMsg>;
  readonly clock: Clock;
  readonly config: MachineConfig;
  readonly log: Logger;
  readonly random: () => number;
  readonly grantTtlMs: number;
  readonly observer: HostStatusObserver;
  /** Where the actor reports each change of its view (the node's change stream, for its shard). */
  readonly changes?: ChangeSink;
  /** The host is gone, or no longer in the store: its shard may stop and forget its actor. */
  readonly ended?: (key: string) => void;
  /** The shard lease this host runs under (cluster mode): stamped on every write and call. */
  readonly fence?: Fence;
  /** Whether that lease is still safely held, asked right before each backend call leaves. */
  readonly leaseHeld?: () => boolean;
  /** Changes of the Secrets hosts read; without it a waiting host rechecks on its own timer. */
  readonly secrets?: SecretWatch;
  /** The node's per-backend bound on calls that hold no slot; without it every call leaves at once. */
  readonly calls?: BackendCalls;
}

// One actor per host: the generic machine actor running the BareMetalHost kind.
export function hostBehavior(key: string, deps: HostDeps): MachineBehavior<BmhState, BmhEvent, BmhEffect, HostWake, HostSnapshot | null> {
  return machineBehavior(key, hostKind(key, deps), { clock: deps.clock, slots: { broker: deps.broker, ttlMs: deps.grantTtlMs }, ...(deps.changes ? { changes: deps.changes } : {}) });
}
