import type { CallLimits } from '../actors/calls/index.ts';
import type { MachineConfig } from '../machines/bmh/index.ts';
import type { AuthorizedKeys, SigningKey } from '../security/index.ts';
import { tolerableOutageMs } from '../cluster/lease.ts';

/**
 * Who may send a node commands and store requests over a shared bus (NATS). One of the two is
 * required there; the embedded single process (a private bus) trusts its own and needs neither.
 */
export interface RequestSecurity {
  /** Only requests signed by these keys (operators for changes) are taken. */
  readonly authorizedKeys?: AuthorizedKeys;
  /** Take unsigned requests too (recorded as unsigned in the audit). Must be asked for. */
  readonly allowUnsigned?: boolean;
  /** How far a signing time may be from this node's clock; default ±2 minutes. */
  readonly freshnessMs?: number;
}

/** How a node takes part in its cluster: leases, heartbeats, hand-off. The same on every node. */
export interface ClusterTiming {
  /** Shard and broker lease TTL: a dead node's shards move within about this long. */
  readonly leaseTtlMs: number;
  readonly heartbeatMs: number;
  /** How long a hand-off waits for calls in flight before giving the shard up anyway. */
  readonly drainTimeoutMs: number;
  /** KV replicas of the cluster's buckets (3 on a clustered NATS, reference/peers.md B4). */
  readonly replicas: number;
}

/**
 * The lease TTL where the cluster's buckets are replicated (R3), unless one is given. Killing a NATS
 * stream leader on R3 stopped writes for 5–8 s (docs/scale.md): a 5 s lease lapsed on every shard
 * and each was retaken. 15 s outlasts such an election with renews (every TTL/3) to spare; the cost
 * is that a dead node's shards move after ~15 s instead of ~5 s.
 */
export const REPLICATED_LEASE_TTL_MS = 15_000;

/** The longest NATS leader election measured on R3 (docs/scale.md): a shorter lease lapses in one. */
export const MEASURED_LEADER_ELECTION_MS = 8_000;

export const DEFAULT_CLUSTER_TIMING: ClusterTiming = {
  /** One server (R1, tests, a single nats-server): nothing to elect, so a short lease is safe. */
  leaseTtlMs: 5_000,
  heartbeatMs: 1_000,
  drainTimeoutMs: 10_000,
  replicas: 1,
};

/** Everything a node needs to know, parsed once by its caller (the CLI, a test, a library user). */
export interface NodeConfig {
  /** Unique in the cluster: letters, digits, '-' and '_'. */
  readonly name: string;
  readonly shardCount: number;
  readonly machine: MachineConfig;
  readonly capacity: { readonly limits: Readonly<Record<string, number>>; readonly defaultLimit: number; readonly ttlMs: number };
  /**
   * At most this many calls that hold no capacity slot in flight at each backend, from this node
   * (actors/calls). Default DEFAULT_CALL_LIMITS: 50 per backend, the in-process fixture unbounded.
   */
  readonly calls?: CallLimits;
  readonly supervision: { maxRestarts: number; windowMs: number; backoff: { initialMs: number; maxMs: number } };
  readonly askTimeoutMs: number;
  /** Default DEFAULT_CLUSTER_TIMING. */
  readonly cluster?: Partial<ClusterTiming>;
  /** Serve /healthz, /readyz and /metrics on this port (0: any free one); null or absent: none. */
  readonly healthPort?: number | null;
  /** Address of the health port (and the dashboard on it); default 127.0.0.1. */
  readonly healthBind?: string;
  /** Host commands from the dashboard on the health port: the token a browser must present, and the key they are signed with. */
  readonly uiCommands?: { readonly token: string; readonly signingKey?: SigningKey };
  /** Append ownership records (JSON lines) here: the cluster tests check no two owners overlap. */
  readonly ownershipLog?: string;
  /** Required on a shared substrate (NATS): see RequestSecurity. */
  readonly security?: RequestSecurity;
}

/**
 * On a private substrate no other node can take a shard, so a lease only has to outlive the
 * longest stall of a busy event loop (100,000 hosts starting at once stall it for seconds): a
 * lapsed lease would stop and restart that shard's hosts for nothing.
 */
export const PRIVATE_CLUSTER_TIMING: Partial<ClusterTiming> = { leaseTtlMs: 60_000, heartbeatMs: 10_000 };

export function clusterTiming(config: NodeConfig, shared = true): ClusterTiming {
  const replicas = config.cluster?.replicas ?? DEFAULT_CLUSTER_TIMING.replicas;
  const replicated: Partial<ClusterTiming> = replicas > 1 ? { leaseTtlMs: REPLICATED_LEASE_TTL_MS } : {};
  return { ...DEFAULT_CLUSTER_TIMING, ...(shared ? replicated : PRIVATE_CLUSTER_TIMING), ...config.cluster };
}

/**
 * Why a node's lease TTL is unsafe on its replicated buckets, or null: a TTL (given with
 * --lease-ttl) whose renews cannot outlast a measured leader election lets every lease lapse
 * when a NATS server fails.
 */
export function leaseTtlWarning(timing: Pick<ClusterTiming, 'leaseTtlMs' | 'replicas'>): string | null {
  const outlasts = tolerableOutageMs(timing.leaseTtlMs);
  if (timing.replicas <= 1 || outlasts >= MEASURED_LEADER_ELECTION_MS) return null;
  return `lease TTL ${timing.leaseTtlMs} ms on R${timing.replicas} buckets outlasts a write outage of ${outlasts} ms at most, `
    + `below a NATS leader election (writes stopped up to ${MEASURED_LEADER_ELECTION_MS / 1000} s when a stream leader was killed, docs/scale.md): `
    + `one election lapses every shard lease; the default there is ${REPLICATED_LEASE_TTL_MS} ms`;
}

/** The NATS cluster a connection's server belongs to, as its INFO says: its name and how many servers it told of. */
export interface NatsClusterSeen {
  readonly name: string;
  readonly servers: number;
}

/**
 * One copy of each key (R1) on a clustered NATS: each bucket lives on one server only, so losing
 * that server with its store loses its leases, hosts and grants, and a node connected to another
 * server may never notice (kv-stream-identity.ts checks on reconnects). deploy/nats runs R3.
 */
export function replicasWarning(cluster: NatsClusterSeen | null, replicas: number): string | null {
  if (cluster === null || replicas > 1) return null;
  const servers = cluster.servers > 1 ? `, ${cluster.servers} servers known` : '';
  return `NATS is clustered (cluster "${cluster.name}"${servers}) but the KV buckets keep one copy of each key (--replicas ${replicas}): `
    + 'a bucket lives on one server then, and that server lost with its store takes the shard leases, hosts and grants it held; '
    + 'run every node with --replicas 3, as deploy/nats does';
}
