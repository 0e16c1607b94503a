import type { BareMetalHostSpec } from '../api/index.ts';
import type { CallArgs, OpResult } from '../machines/bmh/index.ts';
import type { Fence } from './fence.ts';
import type { FenceRefusal } from './fence-refusal.ts';

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

// What a provisioner gets to act on one host: resolved just before the call, never stored,
// never logged (credentials and user data are secrets).
export interface HostData {
  readonly key: string; // "<namespace>/<name>"
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly provisionerId: string; // status.provisioning.ID, '' before registration
  readonly labels?: Readonly<Record<string, string>>;
  readonly spec: BareMetalHostSpec;
  readonly credentials: Credentials | null;
  readonly userData?: string;
  readonly networkData?: string;
  readonly metaData?: string;
  /**
   * An oci:// image's registry credentials from spec.image.ociAuthSecretName: base64
   * "username:password" for that registry alone, as BMO passes Ironic's image_pull_secret.
   */
  readonly imagePullSecret?: string;
  /** The caller's shard lease, for backends that log or refuse calls from a stale owner. */
  readonly fence?: Fence;
  /**
   * True while that lease is safely held (monotonic clock, with a margin). A provisioner that
   * sends several requests for one call asks it before each, so none leaves after a pause.
   */
  readonly leaseHeld?: () => boolean;
  /**
   * When the call left its caller (ms since the epoch, sub-millisecond, comparable across
   * processes on one machine): set by a backend that logs calls, so a call is judged by when its
   * caller let it go, not by when a busy backend got round to it.
   */
  readonly sentAt?: number;
  /**
   * Told when the backend's owner record refuses this call because it has seen a later epoch of
   * the shard (issue 30): the node gives the shard up and takes it again above that epoch.
   */
  readonly onFenceRefused?: (refusal: FenceRefusal) => void;
}

export interface CapacityClaim {
  readonly pool: string; // e.g. "fixture:default", "ironic:http://127.0.0.1:6385"
  // Virtual-media hosts do not load the conductor the way PXE hosts do (reference/bmo.md §3.1).
  readonly exempt: boolean;
}

type ArgsOf<O extends CallArgs['op']> = Extract<CallArgs, { op: O }>;

// One backend, one implementation; host actors never know which one they drive. Methods resolve
// to an OpResult and should not throw; a throw is treated as a transient failure.
export interface Provisioner {
  readonly name: string;
  capacity(host: HostData): CapacityClaim;
  register(host: HostData, args: ArgsOf<'register'>): Promise<OpResult>;
  inspect(host: HostData, args: ArgsOf<'inspect'>): Promise<OpResult>;
  prepare(host: HostData, args: ArgsOf<'prepare'>): Promise<OpResult>;
  provision(host: HostData, args: ArgsOf<'provision'>): Promise<OpResult>;
  deprovision(host: HostData, args: ArgsOf<'deprovision'>): Promise<OpResult>;
  adopt(host: HostData, args: ArgsOf<'adopt'>): Promise<OpResult>;
  powerOn(host: HostData, args: ArgsOf<'powerOn'>): Promise<OpResult>;
  powerOff(host: HostData, args: ArgsOf<'powerOff'>): Promise<OpResult>;
  hardwareState(host: HostData, args: ArgsOf<'hardwareState'>): Promise<OpResult>;
  detach(host: HostData, args: ArgsOf<'detach'>): Promise<OpResult>;
  delete(host: HostData, args: ArgsOf<'delete'>): Promise<OpResult>;
  /**
   * Firmware changes on a provisioned host, its workload kept; absent: the backend cannot, and a
   * host asking is told so (invoke.ts). A backend that can only on a newer API version refuses
   * with the version it needs.
   */
  service?(host: HostData, args: ArgsOf<'service'>): Promise<OpResult>;
  /** Current BIOS settings, their registry and firmware components; absent: the backend has none to tell. */
  firmware?(host: HostData, args: ArgsOf<'firmware'>): Promise<OpResult>;
  /** The API version agreed with each backend endpoint (null until it answered); absent: none to tell. */
  apiVersions?(): readonly BackendApiVersion[];
  /** What its HTTP client sent, by route and answer (running totals); absent: it reports none. */
  requests?(): readonly BackendRequestCount[];
  close?(): Promise<void>;
}

/** The API version one backend endpoint and metalfleet agreed on (Ironic's negotiated microversion). */
export interface BackendApiVersion {
  /** As in BackendRequestCount: `ironic:ironic.lab:6385`, never credentials. */
  readonly backend: string;
  /** "1.82"; null before the endpoint first answered. */
  readonly version: string | null;
}

/** Requests one backend was sent on one route (`GET /v1/nodes/{node}`) with one outcome. */
export interface BackendRequestCount {
  /** The backend (its kind and endpoint host, never credentials): `ironic:ironic.lab:6385`. */
  readonly backend: string;
  readonly route: string;
  /** The HTTP status answered, or how the request failed (`timeout`, `network`). */
  readonly status: string;
  /** Since the client started (a running total). */
  readonly count: number;
}
