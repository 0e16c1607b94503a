export { startEmbeddedNode } from './embedded-node.ts';
export type { EmbeddedNode, NodeConfig, NodeDeps } from './embedded-node.ts';
export { FleetStats } from './fleet-stats.ts';
export type { HostSummary } from './fleet-stats.ts';
export { startClusterNode } from './cluster-node.ts';
export type { ClusterNode, ClusterNodeDeps, ClusterNodeOptions, ShardOwnershipEvents } from './cluster-node.ts';
