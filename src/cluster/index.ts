// Cluster membership, leases and shard ownership over a KvBucket (JetStream KV or in memory).
export { ownerOf, desiredShards } from './rendezvous.ts';
export { startMembership, checkShardCount, heartbeatShards, Heartbeat, ShardCountMismatch } from './membership.ts';
export type { Membership, MembershipOptions } from './membership.ts';
export { acquireLease, Lease, LeaseValue, encodeLeaseValue, decodeLeaseValue, epochOf, effectiveTtlMs, tolerableOutageMs } from './lease.ts';
export type { LeaseOptions, LeaseLostReason } from './lease.ts';
export { startShardLeases, shardKey } from './shard-leases.ts';
export type { ShardLeases, ShardLeaseOptions, ShardLeaseEvents, ShardLostReason, ShardReleaseWhy, ShardFenceRefused } from './shard-leases.ts';
export { DEFAULT_STALE_FENCE_POLICY, claimAbove, initialStaleFence, stepStaleFence, refusalTellingProvisioner, refusalTellingStore } from './stale-fence/index.ts';
export type { RefusedBy, StaleFenceEffect, StaleFenceEvent, StaleFencePolicy, StaleFenceRetake, StaleFenceState, StaleFenceStep } from './stale-fence/index.ts';
export { OwnershipRecorder, parseOwnershipLog, toIntervals, findOverlaps, preciseNow } from './ownership-recorder.ts';
export type { OwnershipRecord, OwnershipInterval, Overlap } from './ownership-recorder.ts';
