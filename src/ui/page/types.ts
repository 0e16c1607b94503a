// The shapes the page reads: the server's FleetPicture and HostDetail (src/ui/picture.ts and
// host-detail.ts), restated for the browser bundle, which does not carry zod.
export interface HostRow {
  key: string; kind: string; backend: string; state: string; poweredOn: boolean; operationalStatus: string;
  errorType: string; errorMessage?: string; shard: number; stateSinceMs: number; node: string;
}
export interface Pool {
  pool: string; node: string; limit: number | null;
  inUse: Array<{ holder: string; operation: string; sinceMs: number; exempt?: boolean }>;
  waiting: Array<{ holder: string; operation: string; waitingMs: number }>;
  longestWaitMs: number;
  /** Exact counts (the lists stop at the broker's first 200) and seconds stalled; absent from old brokers. */
  inUseCount?: number;
  waitingCount?: number;
  /** inUseCount split: slots the limit bounds, exempt slots beside it; absent from old nodes. */
  boundedCount?: number;
  exemptCount?: number;
  stallSeconds?: number;
}
export interface NodeLine { node: string; hosts: number; shards: number; broker: boolean; uptimeMs: number; rssBytes: number; eventLoopLagMs: number; lastSeenMs: number | null }
export interface ShardCell { shard: number; node: string; epoch: number; hosts: number; leaseAgeMs: number }
export interface MaasClusterMachine { key: string; machineState: string; controlPlane: boolean; address?: string; dnsAttached: boolean }
export interface MaasClusterLine {
  key: string; cluster: string; shard: number; phase: string; ready: boolean; failureDomains: string[];
  dnsName: string | null; addresses: string[]; addressesSeenMs: number | null; machines: MaasClusterMachine[];
  conditions: Array<{ type: string; status: string; reason: string }>; lastError: string | null; waiting: string | null; node: string;
}
export interface Picture {
  at: number; hostsTotal: number; states: Array<[string, number]>; provisioned: number; throughput: number; errors: number;
  pools: Pool[]; nodes: NodeLine[]; shards: ShardCell[]; broker: string | null; missing: string[]; problems: string[];
  hosts: HostRow[]; clusters: MaasClusterLine[]; history: Array<{ at: number; states: Record<string, number> }>;
}
export interface TimelineStep { at: number; severity: string; reason: string; message: string; durationMs: number }
export interface HostDetail {
  key: string; kind: string; backend: string; state: string; stateSinceMs: number; node: string;
  spec: Record<string, unknown>; status: Record<string, unknown>; timeline: TimelineStep[];
  inFlight: string | null; slot: { phase: string; op?: string; waitingMs?: number };
  retryAt: number | null; nextAttemptInMs: number | null; retryWaitsForChange?: boolean; shard: number; epoch: number; backendRecord?: unknown;
  /** As a live node's store last had it: no node drives the host now. */
  stored?: boolean;
  companions?: {
    hardwareData: boolean;
    settings?: { reported: number; asked: number; valid: boolean | null; changeDetected: boolean | null; schema?: string };
    components?: { versions: Array<{ component: string; version: string }>; updatesAsked: number };
    updatePolicy?: { firmwareSettings?: string; firmwareUpdates?: string };
  };
}
