export interface HolderFigure {
  readonly holder: string;
  readonly operation: string;
  readonly grantId: string;
  readonly exempt: boolean;
  readonly sinceMs: number;
}

export interface WaiterFigure {
  readonly holder: string;
  readonly operation: string;
  readonly waitingMs: number;
}

export interface PoolFigures {
  readonly pool: string;
  /** `Infinity` for an unlimited pool (configured as 0 or Infinity). */
  readonly limit: number;
  /** Non-exempt grants, the ones the limit bounds. */
  readonly inUse: number;
  readonly exempt: number;
  readonly waiting: number;
  readonly longestWaitMs: number;
  /** Seconds the broker saw this pool with a free slot beside a waiting request and no grant. */
  readonly stallSeconds: number;
  /** In grant order. */
  readonly holders: readonly HolderFigure[];
  /** In queue order: the first will be granted next. */
  readonly queue: readonly WaiterFigure[];
}

export interface CapacityTotals {
  readonly pools: number;
  readonly inUse: number;
  readonly exempt: number;
  readonly waiting: number;
  readonly longestWaitMs: number;
  readonly stallSeconds: number;
}

export interface CapacityFigures {
  readonly pools: readonly PoolFigures[];
  readonly totals: CapacityTotals;
}

export function totalsOf(pools: readonly PoolFigures[]): CapacityTotals {
  let inUse = 0;
  let exempt = 0;
  let waiting = 0;
  let longestWaitMs = 0;
  let stallSeconds = 0;
  for (const p of pools) {
    stallSeconds += p.stallSeconds;
    inUse += p.inUse;
    exempt += p.exempt;
    waiting += p.waiting;
    if (p.longestWaitMs > longestWaitMs) longestWaitMs = p.longestWaitMs;
  }
  return { pools: pools.length, inUse, exempt, waiting, longestWaitMs, stallSeconds };
}
