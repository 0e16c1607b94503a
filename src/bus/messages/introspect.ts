/**
 * Introspection over NATS: what a node runs, drives and holds, for the CLI.
 *
 * Subject: `<cluster>.introspect.<node>.<verb>` (`mf.introspect.a.hosts` by default),
 * request/reply, no queue group: every node answers for itself under its own name, and a client
 * that wants the whole cluster asks each node (the live ones are the `node.<id>` keys of the
 * `mf-members` KV bucket). The embedded mode answers the same requests in-process, under the
 * node name `embedded`.
 *
 * Payload: one MessagePack map (no record extensions), checked against the schemas below.
 * Unknown request fields are refused. Replies come in the transport envelope
 * (`{ ok: true, value }` or `{ ok: false, error: { kind, message, retryable } }`, src/bus/rpc.ts).
 * No reply ever holds a credential: BMC addresses lose any userinfo, Secrets are named, not read.
 *
 * | verb       | request                                   | reply                                                                 |
 * |------------|-------------------------------------------|-----------------------------------------------------------------------|
 * | `info`     | `{}`                                      | `{ node, version, startedAt, uptimeMs, pid, hosts, shards, memory: { rss, heapUsed }, eventLoopLagMs, broker }` |
 * | `hosts`    | `{ state?, backend?, errors?, storedShards? }` | `{ node, hosts: [{ key, kind, backend, state, poweredOn, operationalStatus, errorType, errorMessage?, shard, stateSinceMs, stored? }] }` |
 * | `actors`   | `{ prefix?, after? }`                     | `{ node, actors: [{ path, kind, parent, mailboxDepth, highWater, processed, restarts, lastError, busy }], next? }` |
 * | `shards`   | `{}`                                      | `{ node, shards: [{ shard, epoch, hosts, leaseAgeMs }] }`             |
 * | `capacity` | `{}`                                      | `{ node, broker, pools: [{ pool, limit, inUse: [...], waiting: [...], longestWaitMs, inUseCount?, boundedCount?, exemptCount? }], calls?: [{ backend, limit, inFlight, waiting, longestWaitMs, slotHolderInFlight, maxInFlight, waitedTotal }] }` |
 * | `inspect`  | `{ host: "<namespace>/<name>", kind? }`   | `{ node, host: { key, kind, backend, spec, status, recent, inFlight, slot, retryAt, nextAttemptInMs, retryWaitsForChange?, shard, epoch, backendRecord? } }` |
 * | `clusters` | `{ after?, storedShards? }`               | `{ node, clusters: [{ key, cluster, shard, phase, ready, failureDomains, dnsName, addresses, addressesSeenMs, machines: [{ key, machineState, controlPlane, address?, dnsAttached }], conditions: [{ type, status, reason }], lastError, waiting }], next? }` |
 *
 * Notes:
 * - Times are milliseconds. `startedAt` is a Unix time; `*Ms` fields are durations measured on
 *   the answering node's clock (no clock skew between nodes gets into them).
 * - `eventLoopLagMs` is the p99 event-loop delay over the node's last sampling interval.
 * - `hosts.state` filters on the host's state (a BareMetalHost provisioning state, or a
 *   MaasMachine's MAAS state); `errors: true` keeps hosts with an error type only.
 * - `capacity`: only the node holding the capacity broker (or the embedded node) has pools;
 *   every other node replies `{ broker: false, pools: [] }`. `limit` is null for an unlimited pool.
 *   `calls` is every node's own: its bound on the calls that hold no slot, per backend.
 * - `inspect`: only the owner of the host's shard answers with the host. `kind` is the object's
 *   kind (`BareMetalHost`, `MaasMachine`); absent: `BareMetalHost`, as for commands. Only that
 *   kind is looked up; another kind is an invalid request. Errors: `notFound` (the owner, or the
 *   embedded node, knows no such object of that kind) and `notOwner` (this node does not own the
 *   host's shard; ask the others).
 * - `clusters`: each node answers for the MaasClusters of the shards it owns (a Cluster API
 *   cluster lives in the shard of `namespace/cluster`), as its cluster actors last saw them:
 *   `addresses` are the DNS record's `ip_addresses` as last read from MAAS, `addressesSeenMs` how
 *   long ago. A machine is `dnsAttached` when the record holds one of its addresses. Paged like
 *   `hosts` (`next`, `after`).
 */
import { z } from 'zod';
import { HostKey } from './command.ts';

export const INTROSPECT_VERBS = ['info', 'hosts', 'actors', 'shards', 'capacity', 'inspect', 'clusters'] as const;
export const IntrospectVerb = z.enum(INTROSPECT_VERBS);
export type IntrospectVerb = z.infer<typeof IntrospectVerb>;

/** The error kinds an introspection reply may carry (besides the transport's own). */
export const INTROSPECT_ERROR_KINDS = ['notFound', 'notOwner', 'unavailable'] as const;

const NodeName = z.string().min(1);
const Millis = z.number().nonnegative();
const Count = z.number().int().nonnegative();

// --- info --------------------------------------------------------------------------------------

export const InfoRequest = z.strictObject({});
export const InfoReply = z.object({
  node: NodeName,
  version: z.string(),
  /** Unix time in ms. */
  startedAt: z.number(),
  uptimeMs: Millis,
  pid: z.number().int(),
  /** Hosts driven by this node now. */
  hosts: Count,
  /** Shards owned by this node now. */
  shards: Count,
  memory: z.object({ rss: Count, heapUsed: Count }),
  /** p99 event-loop delay over the last sampling interval. */
  eventLoopLagMs: Millis,
  /** Runs the cluster's capacity broker (always true for the embedded node). */
  broker: z.boolean(),
  /** The API version agreed with each backend endpoint (Ironic's microversion); absent from older nodes. */
  backendApis: z.array(z.object({ backend: z.string(), version: z.string().nullable() })).optional(),
});
export type InfoReply = z.infer<typeof InfoReply>;

// --- hosts -------------------------------------------------------------------------------------

export const HostBackend = z.enum(['ironic', 'maas', 'fixture']);
export type HostBackend = z.infer<typeof HostBackend>;
export const HostKind = z.enum(['BareMetalHost', 'MaasMachine']);
export type HostKind = z.infer<typeof HostKind>;

export const HostsRequest = z.strictObject({
  state: z.string().min(1).max(64).optional(),
  backend: HostBackend.optional(),
  /** true: only hosts with an error type. */
  errors: z.boolean().optional(),
  /** The page after this cursor (the `next` of the page before: a host key, a space and its kind); absent: the first page. */
  after: z.string().max(1024).optional(),
  /** true: each row carries the host's conditions (`hosts -o wide`); left out otherwise, as the dashboard samples every host each second. */
  conditions: z.boolean().optional(),
  /**
   * Instead of this node's own hosts, the hosts of these shards as its store holds them
   * (spec and last written status): asked of a node that answered for the shards of one that did
   * not (killed a moment ago, its leases still standing), so their hosts are listed still.
   */
  storedShards: z.array(Count).max(65_536).optional(),
});
export type HostsRequest = z.infer<typeof HostsRequest>;

export const HostRow = z.object({
  key: z.string(),
  kind: HostKind,
  backend: HostBackend,
  state: z.string(),
  poweredOn: z.boolean(),
  operationalStatus: z.string(),
  /** '' when the host has no error. */
  errorType: z.string(),
  errorMessage: z.string().optional(),
  /** The host's shard; MaasMachines, driven by the embedded node only, report 0. */
  shard: Count,
  stateSinceMs: Millis,
  /** true: a row from the store (HostsRequest.storedShards), as last written; stateSinceMs counts from status.lastUpdated. */
  stored: z.boolean().optional(),
  /** status.conditions without message and time (BareMetalHost: BMO's six; MaasMachine: CAPMAAS's), when asked for. */
  conditions: z.array(z.object({ type: z.string(), status: z.enum(['True', 'False', 'Unknown']), reason: z.string().optional() })).max(32).optional(),
});
export type HostRow = z.infer<typeof HostRow>;

// next: more hosts follow; ask again with `after: next` (a page is at most ~512 KB).
export const HostsReply = z.object({ node: NodeName, hosts: z.array(HostRow), next: z.string().optional() });
export type HostsReply = z.infer<typeof HostsReply>;

// --- actors ------------------------------------------------------------------------------------

export const ActorsRequest = z.strictObject({ prefix: z.string().max(1024).optional(), after: z.string().max(4096).optional() });
export type ActorsRequest = z.infer<typeof ActorsRequest>;

export const ActorRow = z.object({
  path: z.string(),
  kind: z.string(),
  parent: z.string().nullable(),
  mailboxDepth: Count,
  highWater: Count,
  processed: Count,
  restarts: Count,
  lastError: z.string().nullable(),
  busy: z.boolean(),
});
export type ActorRow = z.infer<typeof ActorRow>;

// next: more actors follow; ask again with `after: next` (a page is at most ~512 KB). A node
// driving 10,000 hosts has 10,000 host actors, ~1.3 MB: over NATS's 1 MiB in one message.
export const ActorsReply = z.object({ node: NodeName, actors: z.array(ActorRow), next: z.string().optional() });
export type ActorsReply = z.infer<typeof ActorsReply>;

// --- shards ------------------------------------------------------------------------------------

export const ShardsRequest = z.strictObject({});
export const ShardRow = z.object({
  shard: Count,
  /** The lease's epoch (its KV revision); 0 in the embedded mode, which holds no leases. */
  epoch: Count,
  /** Hosts of this shard driven here. */
  hosts: Count,
  /** Since this node took the shard. */
  leaseAgeMs: Millis,
  /** Fenced writes and backend calls of this node's tenures of the shard refused as stale, since start (issue 30). */
  fenceRefused: Count.optional(),
  /** Times this node gave the shard up to retake it above a refusing fence, since start. */
  fenceRetakes: Count.optional(),
  /** The last such give-up: the tenure's epoch, the epoch it lost to, who refused, how long ago. */
  lastRetake: z.object({ epoch: Count, lostTo: Count, by: z.enum(['store', 'backend']), agoMs: Millis }).optional(),
});
export type ShardRow = z.infer<typeof ShardRow>;
export const ShardsReply = z.object({ node: NodeName, shards: z.array(ShardRow) });
export type ShardsReply = z.infer<typeof ShardsReply>;

// --- capacity ----------------------------------------------------------------------------------

export const CapacityRequest = z.strictObject({});
export const PoolRow = z.object({
  pool: z.string(),
  /** null: unlimited. */
  limit: Count.nullable(),
  /** In grant order, the oldest first. */
  inUse: z.array(z.object({
    holder: z.string(), operation: z.string(), sinceMs: Millis,
    /** Exempt grants (virtual media) are shown but not bounded by the limit. */
    exempt: z.boolean().optional(),
  })),
  /** In queue order: the first is granted next. */
  waiting: z.array(z.object({ holder: z.string(), operation: z.string(), waitingMs: Millis })),
  longestWaitMs: Millis,
  /** Exact counts: the lists above stop at the broker's first 200 entries each. */
  inUseCount: Count.optional(),
  waitingCount: Count.optional(),
  /**
   * inUseCount split: the slots the limit bounds, and the exempt ones held beside it (a pool of
   * 400 may have 900 in use when 500 are exempt). Absent from older nodes.
   */
  boundedCount: Count.optional(),
  exemptCount: Count.optional(),
  /** Seconds the broker saw a free slot beside a waiting request and no grant (0 is the target). */
  stallSeconds: z.number().nonnegative().optional(),
});
export type PoolRow = z.infer<typeof PoolRow>;
/** One backend's calls from the answering node that hold no slot, bounded per node (issue 30). */
export const BackendCallRow = z.object({
  /** The backend, named as its capacity pool. */
  backend: z.string(),
  /** null: unbounded. */
  limit: Count.nullable(),
  inFlight: Count,
  waiting: Count,
  longestWaitMs: Millis,
  /** Calls of slot holders, running beside the bound. */
  slotHolderInFlight: Count,
  maxInFlight: Count,
  waitedTotal: Count,
});
export type BackendCallRow = z.infer<typeof BackendCallRow>;
export const CapacityReply = z.object({
  node: NodeName, broker: z.boolean(), pools: z.array(PoolRow),
  /** Every node's own: its per-backend call bound (absent from a node that predates it). */
  calls: z.array(BackendCallRow).optional(),
});
export type CapacityReply = z.infer<typeof CapacityReply>;

// --- inspect -----------------------------------------------------------------------------------

// The kind is asked for, never guessed: a BareMetalHost and a MaasMachine may share a name.
export const InspectRequest = z.strictObject({
  host: HostKey,
  kind: HostKind.optional(),
  /**
   * The BareMetalHost as this node's store holds it, not as an actor drives it: asked of a node
   * that answered when the host's owner did not (killed a moment ago, its lease still standing).
   */
  stored: z.boolean().optional(),
});
export type InspectRequest = z.infer<typeof InspectRequest>;

/** The spec as far as it is safe to show: Secrets by name, the BMC address without userinfo. */
export const SpecSummary = z.object({
  online: z.boolean().optional(),
  bmcAddress: z.string().optional(),
  credentialsName: z.string().optional(),
  bootMACAddress: z.string().optional(),
  bootMode: z.string().optional(),
  imageUrl: z.string().optional(),
  imageFormat: z.string().optional(),
  automatedCleaningMode: z.string().optional(),
  inspectionMode: z.string().optional(),
  externallyProvisioned: z.boolean().optional(),
  consumerRef: z.string().optional(),
  userDataName: z.string().optional(),
  networkDataName: z.string().optional(),
  metaDataName: z.string().optional(),
  /** MaasMachine: the image and where it may run. */
  providerID: z.string().optional(),
  minCPU: z.number().optional(),
  minMemoryMB: z.number().optional(),
  failureDomain: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type SpecSummary = z.infer<typeof SpecSummary>;

export const TransitionRow = z.object({
  at: z.number(),
  severity: z.enum(['Normal', 'Warning']),
  reason: z.string(),
  message: z.string(),
});
export type TransitionRow = z.infer<typeof TransitionRow>;

export const SlotRow = z.object({
  phase: z.enum(['none', 'waiting', 'held']),
  op: z.string().optional(),
  waitingMs: Millis.optional(),
});
export type SlotRow = z.infer<typeof SlotRow>;

/** A BareMetalHost's companions as its owner's store holds them (issue 31.3). */
export const CompanionsSummary = z.object({
  /** Its HardwareData exists (inspection wrote what it found). */
  hardwareData: z.boolean(),
  /** Its HostFirmwareSettings: how many settings the host reports, how many are asked, their conditions. */
  settings: z.object({
    reported: Count,
    asked: Count,
    valid: z.boolean().nullable(),
    changeDetected: z.boolean().nullable(),
    schema: z.string().optional(),
  }).optional(),
  /** Its HostFirmwareComponents: each component's current version, and how many updates are asked. */
  components: z.object({
    versions: z.array(z.object({ component: z.string(), version: z.string() })),
    updatesAsked: Count,
  }).optional(),
  /** Its HostUpdatePolicy, as given. */
  updatePolicy: z.object({ firmwareSettings: z.string().optional(), firmwareUpdates: z.string().optional() }).optional(),
});
export type CompanionsSummary = z.infer<typeof CompanionsSummary>;

export const InspectedHost = z.object({
  key: z.string(),
  kind: HostKind,
  backend: HostBackend,
  state: z.string(),
  stateSinceMs: Millis,
  spec: SpecSummary,
  /** The resource's status as last written (a BareMetalHost or MaasMachine status). */
  status: z.record(z.string(), z.unknown()),
  /** Newest last. */
  recent: z.array(TransitionRow),
  /** The backend call running now, if any. */
  inFlight: z.string().nullable(),
  slot: SlotRow,
  /** Unix ms of the next retry, if one is scheduled. */
  retryAt: z.number().nullable(),
  nextAttemptInMs: Millis.nullable(),
  /**
   * True when the last error is retried only once the host or its Secret changes (BMO: a bad BMC
   * address, credentials missing a field): no retry is scheduled, so retryAt is null.
   */
  retryWaitsForChange: z.boolean().optional(),
  shard: Count,
  epoch: Count,
  /** What the backend said last (MAAS: the machine as MAAS showed it). */
  backendRecord: z.unknown().optional(),
  /** A BareMetalHost's companions; absent for other kinds. */
  companions: CompanionsSummary.optional(),
  /** true: as the answering node's store last had it (InspectRequest.stored); no node drives it now. */
  stored: z.boolean().optional(),
});
export type InspectedHost = z.infer<typeof InspectedHost>;

export const InspectReply = z.object({ node: NodeName, host: InspectedHost });
export type InspectReply = z.infer<typeof InspectReply>;

// --- clusters ----------------------------------------------------------------------------------

export const ClustersRequest = z.strictObject({
  /** The page after this cluster key (the `next` of the page before); absent: the first page. */
  after: z.string().max(1024).optional(),
  /**
   * The MaasClusters of these shards as this node's store holds them, driven here or not (as
   * HostsRequest.storedShards): asked of one answering node for the shards no answering node holds.
   */
  storedShards: z.array(Count).max(65_536).optional(),
});
export type ClustersRequest = z.infer<typeof ClustersRequest>;

export const ClusterMachineRow = z.object({
  key: z.string(),
  /** MAAS `status_name` from the MaasMachine's status.machineState; '' before MAAS gave one. */
  machineState: z.string(),
  controlPlane: z.boolean(),
  /** The address the record publishes for it (its first ExternalIP); absent before MAAS gave one. */
  address: z.string().optional(),
  /** The DNS record, as last read from MAAS, holds one of this machine's addresses. */
  dnsAttached: z.boolean(),
});
export type ClusterMachineRow = z.infer<typeof ClusterMachineRow>;

export const ClusterConditionRow = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  /** '' when the condition gives none. */
  reason: z.string(),
});
export type ClusterConditionRow = z.infer<typeof ClusterConditionRow>;

export const ClusterRow = z.object({
  /** The MaasCluster, `namespace/name`. */
  key: z.string(),
  /** Its Cluster API cluster's name (the cluster-name label). */
  cluster: z.string(),
  shard: Count,
  /** The cluster actor's phase: pending, active, deleting, gone; unknown when it did not answer. */
  phase: z.string(),
  ready: z.boolean(),
  failureDomains: z.array(z.string()),
  /** status.network.dnsName; null until the record exists. */
  dnsName: z.string().nullable(),
  /** The record's ip_addresses as last read from (or written to) MAAS; [] when no record is known. */
  addresses: z.array(z.string()),
  /** Since the record was last read from MAAS; null when it never was. */
  addressesSeenMs: Millis.nullable(),
  machines: z.array(ClusterMachineRow),
  conditions: z.array(ClusterConditionRow),
  lastError: z.string().nullable(),
  /** Why nothing happens now (paused, no Cluster yet). */
  waiting: z.string().nullable(),
  /** true: a row from the store (ClustersRequest.storedShards), as its status last said; no node drives it now. */
  stored: z.boolean().optional(),
});
export type ClusterRow = z.infer<typeof ClusterRow>;

// next: more clusters follow; ask again with `after: next` (a page is at most ~512 KB).
export const ClustersReply = z.object({ node: NodeName, clusters: z.array(ClusterRow), next: z.string().optional() });
export type ClustersReply = z.infer<typeof ClustersReply>;

// --- the verb table ----------------------------------------------------------------------------

export const INTROSPECT = {
  info: { request: InfoRequest, reply: InfoReply },
  hosts: { request: HostsRequest, reply: HostsReply },
  actors: { request: ActorsRequest, reply: ActorsReply },
  shards: { request: ShardsRequest, reply: ShardsReply },
  capacity: { request: CapacityRequest, reply: CapacityReply },
  inspect: { request: InspectRequest, reply: InspectReply },
  clusters: { request: ClustersRequest, reply: ClustersReply },
} as const satisfies Record<IntrospectVerb, { request: z.ZodType; reply: z.ZodType }>;

/** What a client sends for a verb. */
export type IntrospectRequest<V extends IntrospectVerb> = z.input<(typeof INTROSPECT)[V]['request']>;
/** What a node answers for a verb. */
export type IntrospectReply<V extends IntrospectVerb> = z.infer<(typeof INTROSPECT)[V]['reply']>;
