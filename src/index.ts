// metalfleet as a library: run a node in your own process (the embedded default, or a shard of a
// cluster) with the stores and provisioners it ships. Controllers that only read or write the
// resources import `metalfleet/api` instead, which loads none of this.
export * from './api/index.ts';
export { startNode, memorySubstrate, sharedSubstrate, DEFAULT_CLUSTER_TIMING, FleetStats } from './node/index.ts';
export type { KubeNodeStores, KvNodeStores, Node, NodeBackends, NodeConfig, NodeRuntime, NodeStoreRequests, NodeStores, Substrate, ClusterTiming, HostSummary } from './node/index.ts';
export { openLocalStore, openKvStoreOn } from './adapters/store/index.ts';
export type { KvStore, LocalStore } from './adapters/store/index.ts';
export { createFixtureProvisioner } from './adapters/fixture/index.ts';
export type { FixtureOptions, FixtureProvisioner } from './adapters/fixture/index.ts';
export type { ResourceStore, ResourceEvent, ResourceKind, Provisioner, HostData, CapacityClaim, Logger } from './ports/index.ts';
export type { HostStore, HostEvent } from './adapters/store/host-records.ts';
