export { PoolBook, DEFAULT_TTL_MS } from './pool-book.ts';
export type { PoolBookOptions, AcquireResult, ReleaseResult, RenewResult, ExpireResult } from './pool-book.ts';
export type { Grant } from './grant.ts';
export type { CapacityFigures, CapacityTotals, PoolFigures, HolderFigure, WaiterFigure } from './figures.ts';
export { UNLIMITED, IRONIC_DEFAULT_LIMIT, isValidLimit } from './limits.ts';
export { spawnCapacityBroker, BROKER_MAILBOX } from './capacity-broker.ts';
export type { CapacityBrokerOptions } from './capacity-broker.ts';
export type { CapacityMsg, SlotNotice } from './messages.ts';
export { SlotLease } from './slot-lease.ts';
