// How a capacity pool's slots in use split, from an introspection reply: shared by the CLI and the
// page, so it imports nothing (the page's bundle takes it as it is).

/** The fields of a pool's reply row the split is read from. */
export interface PoolUsageFields {
  readonly inUse: ReadonlyArray<{ readonly exempt?: boolean | undefined }>;
  readonly inUseCount?: number | undefined;
  readonly boundedCount?: number | undefined;
  readonly exemptCount?: number | undefined;
}

/**
 * Slots the limit bounds and slots held beside it by exempt holders. An older node sends no split:
 * the exempt holders its list shows are taken out of its count (all of them when it lists all).
 */
export function usageOf(p: PoolUsageFields): { readonly bounded: number; readonly exempt: number } {
  if (p.boundedCount !== undefined && p.exemptCount !== undefined) return { bounded: p.boundedCount, exempt: p.exemptCount };
  const exempt = p.inUse.filter((u) => u.exempt === true).length;
  return { bounded: Math.max(0, (p.inUseCount ?? p.inUse.length) - exempt), exempt };
}
