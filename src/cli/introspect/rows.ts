// The reply rows the tables and the dashboard read, from the wire schemas (one source of shapes).
import type { PoolRow } from '../../cluster/introspect/index.ts';
import { usageOf } from '../../api/pool-usage.ts';

export { usageOf };

export type {
  ActorRow, BackendCallRow, CapacityReply, HostRow, InfoReply, InspectedHost, PoolRow, ShardRow,
} from '../../cluster/introspect/index.ts';

/** Slots in use and hosts waiting, exactly: the row's lists stop at the broker's first 200. */
export const inUseOf = (p: PoolRow): number => p.inUseCount ?? p.inUse.length;
export const waitingOf = (p: PoolRow): number => p.waitingCount ?? p.waiting.length;

/**
 * `400/400 (+500 exempt)`: the bounded slots against the limit, exempt ones beside it. Without
 * `unlimited` the limit is left out (`400 (+500 exempt)`), for a table with a column of its own.
 */
export function usageText(p: PoolRow, unlimited?: string): string {
  const { bounded, exempt } = usageOf(p);
  const limit = unlimited === undefined ? '' : `/${p.limit === null ? unlimited : p.limit}`;
  return `${bounded}${limit}${exempt > 0 ? ` (+${exempt} exempt)` : ''}`;
}

/** A row with the node that reported it. */
export type OnNode<R> = R & { readonly node: string };
