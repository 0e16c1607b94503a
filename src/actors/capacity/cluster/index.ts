// The cluster-wide capacity broker: one broker per cluster behind a lease, grants persisted in KV
// by compare-and-set, and a proxy on every node that speaks the local broker's CapacityMsg.
export { startClusterBroker, BROKER_QUEUE } from './cluster-broker.ts';
export type { ClusterBroker, ClusterBrokerOptions } from './cluster-broker.ts';
export { pushToProxy, spawnCapacityProxy } from './capacity-proxy.ts';
export type { CapacityProxyOptions } from './capacity-proxy.ts';
export { createManualLeadership } from './leadership.ts';
export type { Leadership, ManualLeadership } from './leadership.ts';
export { GrantRecord, PoolRecord, POOL_KEY_PREFIX, poolKey, poolOfKey, inUse, isLive, overGrant } from './grant-record.ts';
export { GrantStore, BrokerDeposed, CorruptRecord, OverGrant } from './grant-store.ts';
export type { Versioned, Mutation } from './grant-store.ts';
export {
  AcquireRequest, ReleaseRequest, RenewRequest, SetLimitRequest, FiguresRequest, BrokerRequest,
  AcquireReply, ReleaseReply, RenewReply, RenewResult, SetLimitReply, WireFigures, SlotPush, MAX_RENEW_BATCH,
} from './messages.ts';

/** The KV bucket the pool records live in, unless a deployment names another. */
export const CAPACITY_BUCKET = 'capacity';
