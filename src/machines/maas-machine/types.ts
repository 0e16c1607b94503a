import type { CapiCluster, CapiMachine, MaasCluster, MaasMachine, MaasMachineStatus } from '../../api/index.ts';
import type { MachineStep, SlotEvent } from '../logic.ts';

// What MAAS told us about the machine, as the machine needs it (the driver maps MAAS JSON).
export interface MaasView {
  readonly systemId: string;
  readonly hostname: string;
  readonly fqdn: string;
  readonly statusName: string;
  readonly powerState: string;
  readonly ipAddresses: readonly string[];
  readonly zone: string;
  /** MAAS's architecture, e.g. amd64/generic (the image check looks for its first part). */
  readonly architecture?: string;
  /** The MAAS user the machine is allocated to; null when nobody holds it; absent when the driver does not say. */
  readonly owner?: string | null;
  /** Whether `owner` is the MAAS user of metalfleet's own API key; absent when nobody holds the machine or the driver does not say. */
  readonly ownedBySelf?: boolean;
}

export type MaasOp = 'findAllocated' | 'allocate' | 'get' | 'swapOff' | 'setMinHweKernel' | 'linkStatic' | 'deploy' | 'release' | 'powerOn' | 'powerOff';

/** The static address asked for, as the machine sends it to the driver (spec.staticAddress). */
export interface StaticLink {
  readonly interface?: string;
  readonly subnet: string;
  readonly address?: string;
  readonly defaultGateway?: boolean;
}

export type MaasCall =
  // GET /machines/?agent_name=: what MAAS holds for this MaasMachine already (adopt.ts).
  | { op: 'findAllocated'; agentName: string }
  // agentName tags the allocation with the MaasMachine's identity, so a later owner finds it.
  // image (osystem/series): the driver checks MAAS has it before allocating (no machine held for
  // an image MAAS lacks), from boot-resources/ read at most once a minute per MAAS.
  | { op: 'allocate'; agentName: string; cpuCount: number; memMb: number; zone?: string; pool?: string; tags?: readonly string[]; image?: string }
  | { op: 'get'; systemId: string }
  | { op: 'swapOff'; systemId: string }
  // PUT min_hwe_kernel: a machine field in MAAS, not a deploy parameter (admin only, as swap).
  | { op: 'setMinHweKernel'; systemId: string; minHweKernel: string }
  // The interface's AUTO link replaced by a STATIC one (unlink_subnet, link_subnet mode=STATIC).
  | ({ op: 'linkStatic'; systemId: string } & StaticLink)
  // image is osystem/series; the driver checks it against the machine's architecture first.
  | { op: 'deploy'; systemId: string; image: string; ephemeral: boolean; hweKernel?: string; enableHwSync?: boolean; architecture?: string }
  | { op: 'release'; systemId: string }
  | { op: 'powerOn'; systemId: string }
  // Only on request (metalfleet.io/power-off): CAPMAAS itself never powers a machine off.
  | { op: 'powerOff'; systemId: string };

export type MaasResult =
  | { kind: 'done'; machine?: MaasView }
  /** findAllocated: every machine MAAS has under the agent name, in any state. */
  | { kind: 'listed'; machines: readonly MaasView[] }
  | { kind: 'notFound' }
  // noMatch: nothing fits the constraints (MAAS 409); forbidden: the key may not do this (403).
  | { kind: 'failed'; message: string; reason?: MaasFailureReason }
  | { kind: 'transient'; message: string };

/**
 * Why MAAS (or the driver, before asking it) refused: noMatch, nothing fits the constraints (409);
 * forbidden, the key may not (403); heldByAnotherUser, a read of the machine refused (403) while
 * the key's own machines listing, which MAAS answers, lacks it: another MAAS user holds it, and
 * MAAS does not say who (a non-admin may view only unowned machines and its own); imageNotFound,
 * boot-resources/ lacks the image; the address ones, link_subnet refused the static address (in
 * use, not in the subnet, no such subnet or interface).
 */
export type MaasFailureReason =
  | 'noMatch' | 'forbidden' | 'heldByAnotherUser' | 'conflict' | 'broken' | 'imageNotFound'
  | 'addressInUse' | 'addressInvalid' | 'subnetNotFound' | 'interfaceNotFound';

/** What a read of the cluster's DNS record found: its addresses, no record, or a failure to retry. */
export type DnsLookupResult =
  | { readonly kind: 'found'; readonly ips: readonly string[] }
  | { readonly kind: 'none' }
  | { readonly kind: 'transient'; readonly message: string };

/**
 * The Cluster API objects around a MaasMachine, resolved by the actor from its store and parsed
 * with their schemas; null while an object does not exist (or does not parse).
 */
export interface MaasMachineWorld {
  /** The owning CAPI Machine. */
  readonly machine: CapiMachine | null;
  /** The Machine's Cluster. */
  readonly cluster: CapiCluster | null;
  /** The Cluster's MaasCluster (its infrastructureRef): infrastructure readiness and the DNS name. */
  readonly maasCluster: MaasCluster | null;
  /** The Secret `machine.spec.bootstrap.dataSecretName` exists and holds `value`. */
  readonly bootstrapDataReady: boolean;
}

export const NO_WORLD: MaasMachineWorld = { machine: null, cluster: null, maasCluster: null, bootstrapDataReady: false };

export interface MaasMachineConfig {
  // CAPMAAS #85: swap can only be turned off with an admin key.
  readonly skipSwap: boolean;
  readonly deployingPollMs: number;
  readonly steadyPollMs: number; // how often a ready machine is looked at (power loss)
  readonly powerOnRequeueMs: number; // CAPMAAS: 1 min; also after a power-off asked for by command
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  // A control-plane machine waiting for the cluster to (de)attach it in DNS looks again after this
  // (CAPMAAS: 10 s); the cluster also wakes it when it changes the record.
  readonly dnsPollMs: number;
  // Power that reads neither on nor off is read again after this, doubling up to the max
  // (power-known.ts): a BMC outage is waited out, never answered with a power action.
  readonly powerRecheckMs: number;
  readonly powerRecheckMaxMs: number;
  // A machine whose image MAAS lacks looks again after this (the driver's boot-resources cache
  // lasts a minute too): an upload shows within about two minutes.
  readonly imageRecheckMs: number;
  // A resumed machine whose owner Machine or Cluster the node has not seen yet (its cache still
  // filling, the object late) makes no MAAS call that could settle the grant an earlier owner left:
  // past this wait the grant goes back rather than idle to its TTL (issue 30.1).
  readonly inheritedGrantOwnerWaitMs: number;
}

export const DEFAULT_MAAS_MACHINE_CONFIG: MaasMachineConfig = {
  skipSwap: false,
  deployingPollMs: 10_000,
  steadyPollMs: 60_000,
  powerOnRequeueMs: 60_000,
  backoffBaseMs: 5_000,
  backoffMaxMs: 300_000,
  dnsPollMs: 10_000,
  powerRecheckMs: 20_000,
  powerRecheckMaxMs: 300_000,
  imageRecheckMs: 60_000,
  inheritedGrantOwnerWaitMs: 10_000,
};

/** The capacity operation a slot is held for: a deploy, or a release. */
export type MaasSlotOp = 'provision' | 'deprovision';

export type SlotState =
  | { readonly phase: 'none' }
  | { readonly phase: 'waiting'; readonly op: MaasSlotOp; readonly since: number }
  | { readonly phase: 'held'; readonly op: MaasSlotOp; readonly grantId: string };

/**
 * Where a MaasMachine is in its life, the key of the handler table (states.ts):
 * - pending: no MAAS machine yet (waits for the Cluster API gates, then allocates);
 * - allocated: a machine is ours (its providerID is set) and is not deploying yet;
 * - deploying / deployed: MAAS is deploying it / has deployed it;
 * - failed: terminal (failureReason set); Cluster API's MachineHealthCheck replaces the Machine;
 * - deleting: the DNS record lets go of it, then it is released;
 * - gone: the finalizer is off, the actor may stop.
 */
export type MaasMachinePhase = 'pending' | 'allocated' | 'deploying' | 'deployed' | 'failed' | 'deleting' | 'gone';
export const MAAS_MACHINE_PHASES: readonly MaasMachinePhase[] = ['pending', 'allocated', 'deploying', 'deployed', 'failed', 'deleting', 'gone'];

export interface MaasMachineState {
  readonly config: MaasMachineConfig;
  readonly object: MaasMachine;
  readonly world: MaasMachineWorld;
  readonly phase: MaasMachinePhase;
  readonly status: MaasMachineStatus;
  /** Set once from the allocation (or the object's providerID, or an adoption) and never changed. */
  readonly systemId: string | null;
  /**
   * MAAS was asked for a machine allocated to this MaasMachine (by an owner before us) and holds
   * none; reset when an allocate is sent, whose answer may be lost after MAAS allocated.
   */
  readonly noEarlierAllocation: boolean;
  readonly view: MaasView | null;
  /** The view is current; when false the next look at MAAS is due at nextPollAt. */
  readonly fresh: boolean;
  readonly nextPollAt: number;
  /** Reads in a row that found power neither on nor off (power-known.ts); 0 once it is known. */
  readonly powerRereads: number;
  readonly swapped: boolean;
  /** spec.minHweKernel is set on the MAAS machine (or none is asked for). */
  readonly minKernelSet: boolean;
  /** spec.staticAddress is linked on the MAAS machine (or none is asked for). */
  readonly staticLinked: boolean;
  /** The cluster's DNS record as last read (control plane only); null when not read or stale. */
  readonly dnsIps: readonly string[] | null;
  readonly nextDnsAt: number;
  readonly inFlight: { readonly op: MaasOp | 'dnsLookup'; readonly seq: number } | null;
  readonly seq: number;
  readonly slot: SlotState;
  /**
   * An earlier incarnation (the shard's previous owner, this actor before a restart) may have left
   * a capacity grant in this MaasMachine's name. Settled by the first slot request (the acquire
   * adopts a live grant: MAAS still deploying or releasing it) or, once MAAS has answered and no
   * slot is wanted, by releaseGrant: never before MAAS was read.
   */
  readonly grantInherited: boolean;
  /** Since when the inherited grant waits for the owner Machine or Cluster to appear; null while it does not. */
  readonly grantOwnerWaitSince: number | null;
  /**
   * MAAS refused the deletion's release (409 or 403), or a release asked by command (403): MAAS is
   * read before it is asked again; a machine MAAS has taken back (deleting.ts, takenBack) or
   * another MAAS user holds ends the deletion, or fails the MaasMachine (release.ts).
   */
  readonly releaseRefused: boolean;
  /** Error backoff: no backend call before this time. */
  readonly retryAt: number | null;
  readonly attempts: number;
  /** The call whose failure the backoff counts (attempts); null when the last call succeeded. */
  readonly failedOp: MaasOp | null;
  /** Why nothing happens now (paused, waiting for the owner Machine or Cluster), for views. */
  readonly waiting: string | null;
  readonly gone: boolean;
}

export type MaasMachineEvent =
  | { readonly type: 'observed'; readonly object: MaasMachine; readonly world: MaasMachineWorld }
  | { readonly type: 'tick' }
  | { readonly type: 'result'; readonly seq: number; readonly result: MaasResult }
  | { readonly type: 'dnsResult'; readonly seq: number; readonly result: DnsLookupResult }
  /** The cluster changed its DNS record: what was read of it is stale. */
  | { readonly type: 'dnsChanged' }
  | SlotEvent;

export type MaasMachineEffect =
  | { readonly type: 'call'; readonly seq: number; readonly call: MaasCall }
  | { readonly type: 'dnsLookup'; readonly seq: number; readonly fqdn: string }
  | { readonly type: 'requestSlot'; readonly op: 'deploy' | 'release' }
  | { readonly type: 'releaseSlot' }
  /** The grant an earlier incarnation left (grantInherited): MAAS shows no work of it, the slot goes back. */
  | { readonly type: 'releaseGrant' }
  // The IDs of the allocation, persisted at once; there is no effect that clears them.
  | { readonly type: 'writeSpec'; readonly patch: { readonly providerID: string; readonly systemID: string; readonly failureDomain?: string } }
  | { readonly type: 'writeStatus'; readonly status: MaasMachineStatus }
  | { readonly type: 'requeue'; readonly afterMs: number }
  | { readonly type: 'addFinalizer'; readonly finalizer: string }
  | { readonly type: 'removeFinalizer'; readonly finalizer: string }
  | { readonly type: 'event'; readonly severity: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };

export type MaasMachineStep = MachineStep<MaasMachineState, MaasMachineEffect>;
