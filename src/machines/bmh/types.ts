import type { BareMetalHost, BareMetalHostStatus, FirmwareChanges, FirmwareIntent, FirmwareReport, HardwareDetails, Image, RaidTarget, RootDeviceHints, BootMode } from '../../api/index.ts';

// Backend operations the machine asks the actor to perform. Inspect, provision, deprovision and
// service are gated: they are only ever requested while the host holds a capacity slot.
export type Operation =
  | 'register' | 'inspect' | 'prepare' | 'provision' | 'deprovision' | 'adopt'
  | 'powerOn' | 'powerOff' | 'hardwareState' | 'detach' | 'delete'
  | 'service' | 'firmware';
export type GatedOperation = 'inspect' | 'provision' | 'deprovision';
// Servicing flashes firmware and reboots into the ramdisk, as heavy on the backend as a deploy, so
// it takes a slot of the same pool. Kept apart from GatedOperation, which the fixture backend
// models as node states of its own (it has no servicing state yet).
export type SlotOperation = GatedOperation | 'service';
export const GATED_OPERATIONS: ReadonlySet<Operation> = new Set<Operation>(['inspect', 'provision', 'deprovision', 'service']);

export type CallArgs =
  | { op: 'register'; restartOnFailure: boolean; credentialsChanged: boolean }
  // forceReboot: a reboot annotation with force:true (BMO's hasRebootAnnotation(info, true)): an
  // inspection waiting for its ramdisk (Ironic's inspect wait) is aborted, so that the host
  // reboots into a new preprovisioning image, and started again (BMO's InspectHardware
  // forceReboot). Present only when true.
  | { op: 'inspect'; restartOnFailure: boolean; refresh: boolean; forceReboot?: boolean }
  // raid: what preparing builds (target) from what status says the host has (actual), BMO's nil-vs-empty kept.
  // firmware: BIOS settings and firmware updates to apply as manual clean steps (absent: none).
  // rootDeviceHints: the hints status records for the host (the spec's, else its hardware
  // profile's; absent when a software RAID volume is the root), BMO's PrepareData.RootDeviceHints:
  // a RAID build marks its first volume as the root only without them. `{}` (the "empty"
  // profile) is hints, as BMO's non-nil pointer is.
  | { op: 'prepare'; restartOnFailure: boolean; raid: { target: RaidTarget | null; actual: RaidTarget | null }; firmware?: FirmwareChanges; rootDeviceHints?: RootDeviceHints }
  // forceReboot: as inspect's, BMO's Provision forceReboot: a deployment waiting for its agent
  // (Ironic's wait call-back) is torn down, so that the host reboots into a new preprovisioning
  // image, and deployed again once available. Present only when true.
  | { op: 'provision'; image: Image | undefined; customDeploy: string | undefined; bootMode: BootMode; rootDeviceHints: RootDeviceHints | undefined; forceReboot?: boolean }
  | { op: 'deprovision'; restartOnFailure: boolean; automatedCleaning: boolean }
  | { op: 'adopt'; restartOnFailure: boolean }
  | { op: 'powerOn'; force: boolean }
  | { op: 'powerOff'; mode: 'soft' | 'hard'; force: boolean }
  | { op: 'hardwareState' }
  | { op: 'detach'; force: boolean }
  | { op: 'delete' }
  // Firmware changes on a provisioned host without reprovisioning it (Ironic's service verb, API 1.87).
  // started: a turn before this one already asked (status said servicing): a backend that finds
  // the host back in service with no record of the request treats it as done, never sends it
  // again (BMO's Service `unprepared`, inverted) — a new shard owner must not flash firmware twice.
  | { op: 'service'; restartOnFailure: boolean; firmware: FirmwareChanges; started?: boolean }
  // A read: current BIOS settings, their registry, firmware components (OpResult done.firmware).
  | { op: 'firmware' };

// What a backend call came back with (reference/bmo.md §3 Result): done, still going (poll again
// later), failed for this attempt (recorded, backed off, retried with restartOnFailure), or a
// transient error (fast retry, no status change). needsRegistration: the backend lost the host.
export type OpResult =
  // deployed: a power read also says whether the backend holds the host as deployed (Ironic
  // active), false when it plainly does not (manageable): a provisioned host is then
  // adopted again, as BMO's Adopt on every steady-state pass would.
  // busy: a power read also says whether the backend runs a gated operation on the node (Ironic
  // deploying, inspecting, cleaning, ...): work an earlier owner started that status may not show.
  | { kind: 'done'; provisionerId?: string; hardware?: HardwareDetails; poweredOn?: boolean; hints?: BackendHints; deployed?: boolean; firmware?: FirmwareReport; busy?: boolean }
  // started: the call began the operation itself at the backend, not a step before it (Ironic's
  // inspect sent, not the manage that precedes it): BMO's InspectHardware `started`, after which
  // a re-inspection request is answered and its annotation goes.
  | { kind: 'continuing'; afterMs: number; started?: boolean }
  | { kind: 'failed'; message: string; retryAfterMs?: number | null }
  | { kind: 'transient'; message: string }
  | { kind: 'needsRegistration' }
  | SecretWait;

/**
 * What the backend said about the node besides the call's outcome, for the Manageable and
 * Healthy conditions (BMO asks its provisioner on every reconcile; we keep what the last call
 * that read the node brought back). powerFailure: Ironic's node fault is "power failure".
 * health: Ironic's node health ('OK', 'Warning', 'Critical'), '' when the backend has none
 * (Ironic before API 1.109, the fixture backend).
 */
export interface BackendHints {
  readonly powerFailure: boolean;
  readonly health: string;
}

export const NO_BACKEND_HINTS: BackendHints = { powerFailure: false, health: '' };

// The call did not leave: a Secret it needs is missing (or lacks a key). Read by the actor just
// before the call, so no backend saw anything. retryAfterMs as in 'failed' (registration's
// BMO-style recheck; null: only a change wakes it); the machine waits for `secretChanged` too.
export interface SecretWait {
  readonly kind: 'waitForSecret';
  /** `namespace/name` of the Secret. */
  readonly secret: string;
  /** The spec field naming it: `spec.bmc.credentialsName`, `spec.userData`, ... */
  readonly field: string;
  /** For a user: which Secret, named by which field, and what is wrong with it. Never a value. */
  readonly message: string;
  readonly retryAfterMs?: number | null;
}

export type SlotState =
  | { phase: 'none' }
  | { phase: 'waiting'; op: SlotOperation; since: number }
  | { phase: 'held'; op: SlotOperation; grantId: string };

export interface MachineConfig {
  // provisioningFailCount at which provisioning stops until the image changes; 0 = unlimited.
  maxProvisioningRetries: number;
  // Steady-state power poll, BMO's 60 s.
  powerPollMs: number;
  // Slow poll of detached hosts, BMO's 10 min.
  detachedPollMs: number;
  // One unit of the 2^n error backoff; BMO's is a minute.
  backoffUnitMs: number;
  // Exponent cap of the error backoff (2^9 units).
  backoffMaxExponent: number;
  // Transient errors: first delay and cap of the fast per-host retry.
  transientBaseMs: number;
  transientMaxMs: number;
  // Missing credentials Secret: look again after this long (BMO: 10 s).
  missingCredentialsRetryMs: number;
  // A host waiting for its user/network/meta data Secret looks again after this long even if no
  // change of the Secret was announced (a source that cannot watch); a slot is taken only then.
  secretRecheckMs: number;
  // BMC address schemes of loaded provisioner plugins: the plugin checks such an address when it
  // registers the host, so the machine does not refuse it as an unknown BMC type.
  pluginBmcSchemes?: readonly string[];
}

export const DEFAULT_MACHINE_CONFIG: MachineConfig = {
  maxProvisioningRetries: 5,
  powerPollMs: 60_000,
  detachedPollMs: 600_000,
  backoffUnitMs: 60_000,
  backoffMaxExponent: 9,
  transientBaseMs: 50,
  transientMaxMs: 1_000_000,
  missingCredentialsRetryMs: 10_000,
  secretRecheckMs: 300_000,
};

export interface BmhState {
  readonly config: MachineConfig;
  // The host as last observed (spec and metadata) with the status this machine owns.
  readonly host: BareMetalHost & { status: BareMetalHostStatus };
  // The one backend call in flight; its result must carry the same seq to be applied.
  // soft: a power-off asked for softly (its failure message says the next attempt is hard).
  // firmware: the changes a prepare or service call sends.
  // forceReboot: an inspect or provision call that asked for the operation to be aborted.
  readonly inFlight: { op: Operation; seq: number; soft?: boolean; firmware?: FirmwareChanges; forceReboot?: true } | null;
  readonly seq: number;
  readonly slot: SlotState;
  // Error backoff: no backend call before this time (ms since epoch).
  readonly retryAt: number | null;
  readonly transientCount: number;
  // Steady states: when the next power read is due.
  readonly powerCheckAt: number | null;
  // The backend lost the node: register again (and adopt if the host was provisioned).
  readonly needsRegistration: boolean;
  readonly needsAdopt: boolean;
  // The finalizer was removed: the host is gone and the actor may stop.
  readonly gone: boolean;
  // The Secret the last call found missing: its appearance (secretChanged) wakes the host.
  readonly waitingForSecret: { readonly key: string; readonly field: string } | null;
  // Observed already inside an operation (this actor did not start it): its first slot request
  // says since when the operation runs.
  readonly resumed: boolean;
  // An earlier incarnation (the shard's previous owner, this actor before a restart) may have left
  // a capacity grant in this host's name, which nobody renews. Settled by the first slot request
  // (the acquire adopts a live grant) or, once a backend read shows no gated work of this host
  // running, by releaseGrant: never before that read, since the old owner may have started a
  // deploy and stopped before its status said so, and freeing the slot would let another start.
  readonly grantInherited: boolean;
  // The backend runs a gated operation this host's status does not show (an earlier owner started
  // it and stopped before writing so): the host holds a slot for it, the grant it inherited
  // adopted, and reads the backend often until the operation ends, then gives the slot back.
  readonly backendBusy: boolean;
  // The backend's node facts as last reported, read when the conditions are computed.
  readonly backend: BackendHints;
  // The operation whose "started" Event (BMO's InspectionStarted, ...) this state already sent.
  readonly announced: Operation | null;
  // Suffixed reboot annotations already served while they stay: a disablePowerOff host rebooted
  // for them (it cannot be held off), or an inspection was aborted and restarted for them (BMO
  // would abort every restarted inspection again for as long as the annotation stays).
  readonly rebootsServed: readonly string[];
  // The last inspect call aborted the inspection for a forced reboot: the next one restarts it
  // (restartOnFailure), whatever the backend's last error says about the abort.
  readonly inspectionAborted: boolean;
  // What the host's HostFirmwareSettings/HostFirmwareComponents/HostUpdatePolicy ask (null: the
  // actor has told none yet, so there is nothing to apply).
  readonly firmware: FirmwareIntent | null;
  // The changes the last preparing or servicing applied: the same ones told again (the companions
  // not refreshed yet) are not applied a second time.
  readonly firmwareApplied: FirmwareChanges | null;
  // Firmware to be read back from the backend (after inspection, preparing and servicing), so the
  // companions' status shows what the host now has (BMO's HFS/HFC controllers refresh then).
  readonly firmwareReadDue: boolean;
}

export type BmhEvent =
  | { type: 'observed'; host: BareMetalHost }
  | { type: 'tick' }
  // credentials: the Secret a register call read (BMO's triedCredentials), when it read one.
  | { type: 'result'; seq: number; result: OpResult; jitter: number; credentials?: CredentialsUsed }
  | { type: 'slotGranted'; grantId: string }
  | { type: 'slotQueued'; position: number }
  | { type: 'slotLost'; grantId: string; reason: string }
  // A Secret (`namespace/name`) appeared, changed or went away in the host's Secret source.
  | { type: 'secretChanged'; key: string; change: SecretChange }
  // The host's firmware companions as last read (src/api/bmh/firmware.ts).
  | { type: 'firmwareIntent'; intent: FirmwareIntent };

export type SecretChange = 'appeared' | 'changed' | 'removed';

/** The BMC credentials Secret a register call used: which one and its version, never a value. */
export interface CredentialsUsed {
  readonly name: string;
  readonly namespace: string;
  /** The Secret's resourceVersion as its source gives it ('' when the source has none). */
  readonly version: string;
}

export type BmhEffect =
  | { type: 'call'; seq: number; args: CallArgs }
  // since: the operation began before this actor (a new owner, a restart): its place in the
  // capacity queue counts from then, so work already admitted is finished before new work starts.
  | { type: 'requestSlot'; op: SlotOperation; since?: number }
  | { type: 'releaseSlot' }
  // The grant an earlier incarnation left (grantInherited): its work is over, the slot goes back.
  | { type: 'releaseGrant' }
  | { type: 'writeStatus'; status: BareMetalHostStatus }
  | { type: 'requeue'; afterMs: number }
  | { type: 'addFinalizer'; finalizer: string }
  | { type: 'removeFinalizer'; finalizer: string }
  | { type: 'removeAnnotation'; key: string }
  | { type: 'event'; severity: 'Normal' | 'Warning'; reason: string; message: string };

export interface Step {
  readonly state: BmhState;
  readonly effects: readonly BmhEffect[];
}

export const HOST_FINALIZER = 'baremetalhost.metal3.io';
