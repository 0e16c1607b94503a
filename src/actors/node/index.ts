export { startEmbeddedNode } from './embedded-node.ts';
export type { EmbeddedNode, NodeConfig, NodeDeps } from './embedded-node.ts';
export { FleetStats } from './fleet-stats.ts';
export type { HostSummary } from './fleet-stats.ts';
