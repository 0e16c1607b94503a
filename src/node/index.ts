// The one engine: every mode (demo, `metalfleet node` on NATS, Kubernetes) starts a node here.
export { startNode, LEASE_BUCKET, MEMBER_BUCKET } from './start-node.ts';
export type { KubeNodeStores, KvNodeStores, Node, NodeBackends, NodeRuntime, NodeStoreRequests, NodeStores } from './start-node.ts';
export { DEFAULT_CLUSTER_TIMING, REPLICATED_LEASE_TTL_MS, clusterTiming, leaseTtlWarning, replicasWarning } from './config.ts';
export type { ClusterTiming, NodeConfig } from './config.ts';
export { memorySubstrate, sharedSubstrate } from './substrate.ts';
export type { Substrate } from './substrate.ts';
export { HealthListenError } from './health.ts';
export { FleetStats } from './fleet-stats.ts';
export { KindFigures } from './fleet-stats.ts';
export type { HostSummary, MachineSummary } from './fleet-stats.ts';
export type { MaasShards, ShardHost, ShardOwnershipEvents } from './shard-host.ts';
export { clusterKeyOf } from '../actors/maas/index.ts';
export { nodeSource, stripUserinfo } from './introspection-source.ts';

// What cli reads of the engine comes through here (cli -> node -> actors, the walls say).
export { systemClock } from '../actors/runtime/index.ts';
export type { CapacityFigures } from '../actors/capacity/index.ts';
export { DEFAULT_CALL_LIMITS } from '../actors/calls/index.ts';
export type { BackendCallFigures, CallLimits } from '../actors/calls/index.ts';
