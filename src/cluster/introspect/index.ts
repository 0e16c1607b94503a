// Introspection over the bus: the node's service and the CLI's client.
export { serveIntrospection } from './server.ts';
export type { IntrospectionServer, IntrospectionServerOptions } from './server.ts';
export { announcedShardCount, gather, inspectHost, listNodes, IntrospectUnavailable, NotFound, MEMBER_BUCKET } from './client.ts';
export type { GatherOptions, Gathered } from './client.ts';
export { storedClusters, storedHosts, unheldShards } from './stored-hosts.ts';
export type { StoredHosts } from './stored-hosts.ts';
export { INTROSPECT, INTROSPECT_VERBS, IntrospectVerb } from '../../bus/messages/introspect.ts';
export type {
  ActorRow, ActorsReply, BackendCallRow, CapacityReply, ClusterConditionRow, ClusterMachineRow, ClusterRow, ClustersReply, ClustersRequest,
  HostBackend, HostKind, HostRow, HostsReply, HostsRequest, InfoReply, InspectedHost,
  InspectReply, IntrospectReply, IntrospectRequest, PoolRow, ShardRow, ShardsReply, SpecSummary, TransitionRow,
} from '../../bus/messages/introspect.ts';
export { METALFLEET_VERSION } from './source.ts';
export type { CapacityView, InspectOutcome, IntrospectionSource } from './source.ts';
