export type { CapacityFigures, CapacityTotals, PoolFigures, HolderFigure, WaiterFigure } from './figures.ts';
export { UNLIMITED, IRONIC_DEFAULT_LIMIT, DEFAULT_TTL_MS, isValidLimit } from './limits.ts';
export type { CapacityMsg, HolderPage, SlotNotice } from './messages.ts';
export { SlotLease, releaseGone } from './slot-lease.ts';
